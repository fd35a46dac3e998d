package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
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
		var code []byte
		for len(code) < (6000+1000*k)*32 { // several blocks on both workers
			x = x*6364136223846793005 + 1442695040888963407
			code = binary.LittleEndian.AppendUint64(code, x^x>>29)
		}
		name := filepath.Join(dir, "raw"+string(rune('a'+k))+".bin")
		if err := os.WriteFile(name, code, 0o644); err != nil {
			t.Fatal(err)
		}
		raws = append(raws, name)
	}
	cubin := "../../binfmt/cubin/testdata/small.sm_52.rel.cubin"
	for _, args := range [][]string{
		{"dis", "-arch", "sm_52", raws[0], cubin, raws[1]},
		{"dis", "-arch", "sm_52", "-base", "0x1000", raws[0], raws[1]},
	} {
		code, want, wantErr := runCLI(t, "", args...)
		if !strings.Contains(want, "/* 0x") || wantErr == "" {
			t.Fatalf("%v: no listing or no decode errors", args)
		}
		path := filepath.Join(dir, "out.s")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("prefix\n")
		var errb bytes.Buffer
		gotCode := run(args, strings.NewReader(""), f, &errb)
		f.WriteString("suffix\n")
		f.Close()
		got, _ := os.ReadFile(path)
		if gotCode != code || errb.String() != wantErr {
			t.Fatalf("%v: status %d, want %d; stderr differs: %v", args, gotCode, code, errb.String() != wantErr)
		}
		if string(got) != "prefix\n"+want+"suffix\n" {
			t.Fatalf("%v: the file's listing differs (%d vs %d bytes)", args, len(got), len(want)+14)
		}
	}
}
