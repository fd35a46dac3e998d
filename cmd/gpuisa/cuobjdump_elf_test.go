package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Damaged cubins that still parse dump without a panic or hang.
func FuzzDumpELF(f *testing.F) {
	for _, name := range []string{"saxpy.li.cubin", "reduce.g.cubin"} {
		if data, err := os.ReadFile(filepath.Join(lineinfoDir, "cubin", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := cubin.Parse(data)
		if err != nil {
			return
		}
		w := bufio.NewWriter(io.Discard)
		dumpELF(w, cf)
		w.Flush()
	})
}
