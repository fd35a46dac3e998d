package oracle

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSharedDirFromEnv(t *testing.T) {
	d := t.TempDir()
	os.MkdirAll(filepath.Join(d, "oracle"), 0o755)
	t.Setenv("GPUISA_SHARED", d)
	if got := SharedDir(); got != d {
		t.Fatalf("SharedDir() = %q, want %q", got, d)
	}
}
