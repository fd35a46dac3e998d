// Package oracle finds and reads the project's ground truth: the shared oracle
// data beside the repository (../shared, present in CI, absent in a user's
// clone) and NVIDIA's tools when they are installed.
//
// Where the data is, in order:
//
//  1. $GPUISA_SHARED, the directory holding oracle/ (and seeds/). When it is
//     set but holds no oracle/, tests that need the data fail rather than
//     skip: a wrong setting should not pass quietly.
//  2. The module's .shared link (committed, pointing at ../shared): a path
//     inside the module, so `go test` caches results keyed on it, and adding
//     or removing ../shared re-runs the tests that use it.
//  3. A shared/ directory beside one of the module root's parents (git
//     worktrees such as ../../shared). Go's test cache does not see that
//     one: with it, run `go test -count=1`, or set GPUISA_SHARED.
package oracle

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable that names the shared directory.
const Env = "GPUISA_SHARED"

// Absent is what a test that needs the oracle says when it skips.
const Absent = "oracle data absent (no ../shared, GPUISA_SHARED unset)"

// SharedDir returns the shared/ directory (the one holding oracle/ and
// seeds/), or "" when there is none; see the package comment for where it
// looks.
func SharedDir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	root := moduleRoot()
	if root == "" {
		return ""
	}
	if link := filepath.Join(root, ".shared"); hasOracle(link) {
		return link
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if cand := filepath.Join(d, "shared"); hasOracle(cand) {
			return cand
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func hasOracle(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "oracle"))
	return err == nil && st.IsDir()
}

// moduleRoot is the directory holding go.mod, found from the working
// directory (a test's is its package directory).
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns the path of rel (e.g. "oracle/sass-real/sm_10.tsv") inside the
// shared directory, or skips the test when the shared data is absent. It
// fails the test when $GPUISA_SHARED names a directory without rel.
func Path(t testing.TB, rel string) string {
	t.Helper()
	d := SharedDir()
	if d == "" {
		t.Skip(Absent)
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(Env) != "" {
			t.Fatalf("%s=%s: %v", Env, d, err)
		}
		t.Skipf("%s not present: %v", rel, err)
	}
	return p
}
