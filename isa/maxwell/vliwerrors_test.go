package maxwell

import (
	"encoding/binary"
	"slices"
	"testing"
)

// VLIWErrors against what nvdisasm 11.8 -b SM52 rejected in crafted files:
// bundles of MEMBAR.CTA (variable latency), IADD and NOP (fixed latency)
// under control fields 0x7f1 (no dual issue) and 0x7f0 (dual issue).
func TestVLIWErrors(t *testing.T) {
	const (
		membar = 0xef98000000070000
		iadd   = 0x5c10000000070000
		nop    = 0x50b0000000070f00
	)
	words := map[byte]uint64{'M': membar, 'I': iadd, 'N': nop}
	for _, tc := range []struct {
		marks, words string // per bundle: dual-issue marks, instructions
		want         []int  // rejected instructions, numbered from 0
	}{
		{"000 011 000 000", "MMM MMM MMM III", []int{6}},
		{"000 011 000", "MMM MMM NMM", []int{6, 7}},
		{"000 011 000", "MMM MMM MNM", []int{6, 8}},
		{"000 011 000", "MMM MMM NNI", []int{6, 7, 8}},
		{"000 111 000", "MMM MMM MMM", []int{8}},
		{"000 111 000", "MMM MMM MMN", []int{7, 8}},
		{"000 111 000", "MMM MMM NIM", []int{6, 8}},
		{"000 011 011 011 000", "MMM MMM MMM MMM III", []int{6, 12, 13, 14}},
		{"000 111 111 111 000", "MMM MMM MMM MMM III", []int{8, 12, 13, 14}},
		{"001 011 000", "MMM MMM III", []int{6, 7, 8}},
		{"000 110 011 000", "MMM MMM MMM MMM", []int{9}},
		{"000 101 000", "MMM MMM III", nil},
		{"000 011", "MMM MMM", nil}, // at the end: nothing to reject
	} {
		var code []byte
		marks, ws := splitBundles(tc.marks), splitBundles(tc.words)
		for b := range marks {
			var ctrl uint64
			for k := 0; k < 3; k++ {
				f := uint64(0x7f1)
				if marks[b][k] == '1' {
					f = 0x7f0
				}
				ctrl |= f << (21 * k)
			}
			code = binary.LittleEndian.AppendUint64(code, ctrl)
			for k := 0; k < 3; k++ {
				code = binary.LittleEndian.AppendUint64(code, words[ws[b][k]])
			}
		}
		var got []int
		for _, e := range VLIWErrors(code, 0, 52) {
			got = append(got, int(e.Addr/BundleSize*3+e.Addr%BundleSize/8-1))
			if e.Detail != unitErrorText {
				t.Errorf("%s: message %q", tc.marks, e.Detail)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("marks %s words %s: rejected %v, nvdisasm %v", tc.marks, tc.words, got, tc.want)
		}
	}
}

func splitBundles(s string) []string {
	var out []string
	for _, f := range []byte(s) {
		if f == ' ' {
			continue
		}
		if len(out) == 0 || len(out[len(out)-1]) == 3 {
			out = append(out, "")
		}
		out[len(out)-1] += string(f)
	}
	return out
}
