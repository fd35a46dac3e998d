package gentest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures instead of stopping the real test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic(f) }
func (f *fakeT) Fatal(...any)          { f.failed = true; panic(f) }

func check(path string, want []byte, err error) (failed bool) {
	ft := &fakeT{}
	defer func() {
		if r := recover(); r != nil && r != any(ft) {
			panic(r)
		}
		failed = ft.failed
	}()
	Current(ft, path, want, err, "./x")
	return
}

func TestCurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tables.go")
	os.WriteFile(p, []byte("same"), 0o644)
	if check(p, []byte("same"), nil) {
		t.Error("equal content reported stale")
	}
	if !check(p, []byte("other"), nil) {
		t.Error("different content not reported")
	}
	if !check(p, []byte("same"), errors.New("bad spec")) {
		t.Error("generator error not reported")
	}
	if !check(filepath.Join(t.TempDir(), "missing.go"), nil, nil) {
		t.Error("missing file not reported")
	}
}

// writeOrCheck is check for WriteOrCheck.
func writeOrCheck(path string, src []byte, err error, write bool) (failed bool) {
	ft := &fakeT{}
	defer func() {
		if r := recover(); r != nil && r != any(ft) {
			panic(r)
		}
		failed = ft.failed
	}()
	WriteOrCheck(ft, path, src, err, "./x", write)
	return
}

func TestWriteOrCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "inittables.go")
	if !writeOrCheck(p, []byte("new"), nil, false) {
		t.Error("a missing file passed the check")
	}
	if writeOrCheck(p, []byte("new"), nil, true) {
		t.Error("writing the file failed")
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("the file holds %q, want %q", got, "new")
	}
	if !writeOrCheck(p, []byte("newer"), nil, false) {
		t.Error("a stale file passed the check")
	}
	if !writeOrCheck(p, []byte("broken"), errors.New("bad"), true) {
		t.Error("a generator error passed")
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("a failed generator wrote the file: %q", got)
	}
}
