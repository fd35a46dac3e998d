package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestOracleData says once, for the whole `go test -v ./...`, where the
// oracle data is or that the tests needing it skip. (In a test, not in
// TestMain: only what tests look at is an input go test's cache tracks.)
func TestOracleData(t *testing.T) {
	if d := SharedDir(); d != "" {
		fmt.Printf("oracle data: %s\n", d)
	} else {
		fmt.Printf("%s: the tests that compare with NVIDIA's tools skip; link ../shared or set %s to run them\n", Absent, Env)
	}
}

func TestSharedDirFromEnv(t *testing.T) {
	d := t.TempDir()
	os.MkdirAll(filepath.Join(d, "oracle"), 0o755)
	t.Setenv(Env, d)
	if got := SharedDir(); got != d {
		t.Fatalf("SharedDir() = %q, want %q", got, d)
	}
}

// The module's .shared link is what go test's cache sees: it must stay a
// link to ../shared, inside the module.
func TestSharedLink(t *testing.T) {
	root := moduleRoot()
	target, err := os.Readlink(filepath.Join(root, ".shared"))
	if err != nil {
		t.Skipf("no .shared link (a checkout without symbolic links?): %v", err)
	}
	if target != "../shared" {
		t.Errorf(".shared points at %q, want ../shared", target)
	}
}
