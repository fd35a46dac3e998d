package safeio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type endless struct{}

func (endless) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestReadAllLimit(t *testing.T) {
	_, err := ReadAll(endless{}, "<stdin>", 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != -1 || err.Error() != "<stdin>: more than the limit of 1 MiB" {
		t.Errorf("endless stream: %v", err)
	}
	b, err := ReadAll(strings.NewReader(strings.Repeat("x", 1<<20)), "s", 1<<20)
	if err != nil || len(b) != 1<<20 {
		t.Errorf("exactly the limit: %d bytes, %v", len(b), err)
	}
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 1<<20+1)), "s", 1<<20); err == nil {
		t.Error("one byte past the limit was read")
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(5 << 30) // sparse: the size alone is checked, nothing read
	f.Close()
	_, err = ReadFile(p, 1<<30)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 5<<30 || !strings.Contains(err.Error(), "5368709120 bytes, more than the limit of 1 GiB") {
		t.Errorf("large file: %v", err)
	}
	os.WriteFile(p, []byte("hello"), 0o644)
	if b, err := ReadFile(p, 5); err != nil || string(b) != "hello" {
		t.Errorf("%q %v", b, err)
	}
	buf := make([]byte, 3)
	if n, err := ReadPrefix(p, buf); n != 3 || err != nil || string(buf) != "hel" {
		t.Errorf("prefix %q %d %v", buf, n, err)
	}
	buf = make([]byte, 8)
	if n, err := ReadPrefix(p, buf); n != 5 || err != nil {
		t.Errorf("prefix of a shorter file: %d %v", n, err)
	}
	if n, err := Size(p); n != 5 || err != nil {
		t.Errorf("size %d %v", n, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{256 << 20: "256 MiB", 48 << 10: "48 KiB", 1 << 30: "1 GiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
