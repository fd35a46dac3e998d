// Package oracle finds and reads the project's ground truth: the shared oracle
// data beside the repository (../shared, present in CI, absent in a user's
// clone) and NVIDIA's tools when they are installed.
package oracle

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir returns the shared/ directory (the one holding oracle/ and seeds/),
// or "" when there is none. It honours $GPUISA_SHARED, then looks for a shared/
// directory beside the module root or any of its parents.
func SharedDir() string {
	if d := os.Getenv("GPUISA_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			// the module root: shared/ is a sibling, or further up for worktrees
			for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
				cand := filepath.Join(d, "shared")
				if st, err := os.Stat(filepath.Join(cand, "oracle")); err == nil && st.IsDir() {
					return cand
				}
				if filepath.Dir(d) == d {
					return ""
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns the path of rel (e.g. "oracle/sass-real/sm_10.tsv") inside the
// shared directory, or skips the test when the shared data is absent.
func Path(t testing.TB, rel string) string {
	t.Helper()
	d := SharedDir()
	if d == "" {
		t.Skip("shared oracle data not present (../shared); skipping")
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present: %v", rel, err)
	}
	return p
}
