package main

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestNvdisasmVLIWRaw: raw sm_52 code of mixed valid, all-zero and
// undecodable words under random control fields (dual-issue marks, barriers)
// lists, with braces, as nvdisasm 11.8 listed it: the same errors in the
// same order (maxwell.ReadVLIW). The 90 files are the smallest of 600 where
// the drop-in differed before the VLIW reading was modelled
// (testdata/vliwraw; made with nvdisasm -b SM52 FILE 2>&1).
func TestNvdisasmVLIWRaw(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "isa", "maxwell", "testdata", "vliwraw", "raw_sm52.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sc := bufio.NewScanner(gz)
	sc.Buffer(nil, 1<<20)
	n, ok := 0, 0
	for sc.Scan() {
		var row struct{ Name, Code, Nvdisasm string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		code, err := hex.DecodeString(row.Code)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, row.Name)
		if err := os.WriteFile(path, code, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
		_, stdout, stderr := runCLI(t, "", "nvdisasm", "-b", "SM52", path)
		if got := stdout + stderr; got != row.Nvdisasm {
			t.Errorf("%s:\n%s", row.Name, firstDiff(row.Nvdisasm, got))
			continue
		}
		ok++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 90 {
		t.Errorf("%d files, want 90", n)
	}
	t.Logf("%d/%d raw files list as nvdisasm listed them", ok, n)
}
