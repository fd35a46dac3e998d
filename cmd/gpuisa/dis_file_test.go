package main

import (
	"path/filepath"
	"testing"
)

// dis writing raw sm_5x listings to a regular file (from every core, at
// the file's offset) prints what it prints to a buffer, also with several
// files (a cubin between raw ones) and -base, after bytes already in the
// file.
func TestDisToRegularFile(t *testing.T) {
	dir := t.TempDir()
	var raws []string
	x := uint64(11)
	for k := range 2 {
		// several blocks on both workers
		raws = append(raws, writeRandomCode(t, dir, "raw"+string(rune('a'+k))+".bin", &x, (6000+1000*k)*32))
	}
	cubin := "../../binfmt/cubin/testdata/small.sm_52.rel.cubin"
	for _, args := range [][]string{
		{"dis", "-arch", "sm_52", raws[0], cubin, raws[1]},
		{"dis", "-arch", "sm_52", "-base", "0x1000", raws[0], raws[1]},
	} {
		disToFile(t, filepath.Join(dir, "out.s"), args, nil)
	}
}
