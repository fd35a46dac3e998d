package maxwell

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// ReadVLIW against what nvdisasm 11.8 -b SM52 rejected in crafted files:
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
		code := craftBundles(tc.marks, tc.words, words, nil)
		var got []int
		for _, e := range ReadVLIW(code, 0, 52).Errors {
			if errors.Is(e, isa.ErrTruncated) {
				continue // a pair left open at the end: TestVLIWReported
			}
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

// TestVLIWReported: the errors nvdisasm 11.8 -b SM52 reports (decoding
// errors and VLIW rejections together) for crafted files holding a word that
// decodes as nothing (X), LOP32I (L, fixed latency), MEMBAR.CTA (M) and IADD
// (I), under the fields of TestVLIWErrors or the ones given for one bundle.
// It pins what a bundle read shifted hides, and that an undecodable second
// or third word of the marking bundle (or an undecodable first one, for
// the neighbour after) undoes the shift.
func TestVLIWReported(t *testing.T) {
	words := map[byte]uint64{'M': 0xef98000000070000, 'I': 0x5c10000000070000, 'X': 0xfff0000000000000, 'L': 0x060200340b000008, 'Z': 0}
	for _, tc := range []struct {
		marks, words string
		fieldsOf     int       // this bundle takes fields (when set)
		fields       [3]uint64 //
		want         []int     // reported instructions, numbered from 0
	}{
		{marks: "000 011 000", words: "MMM MMM XMM", want: []int{6, 7}},
		{marks: "000 011 000", words: "MMM MMM MXM", want: []int{6, 8}},
		{marks: "000 011 000", words: "MMM MMM MMX", want: []int{6}},
		{marks: "000 111 000", words: "MMM MMM XMM", want: []int{8}},
		{marks: "000 111 000", words: "MMM MMM MXM", want: []int{6, 8}},
		{marks: "000 111 000", words: "MMM MMM MMX", want: []int{7, 8}},
		{marks: "000 011 000", words: "MMM MMM XXM", want: []int{6, 7, 8}},
		{marks: "000 011 000 000", words: "MMM MMM MMM XMM", want: []int{6, 9}},
		{marks: "000 000 000", words: "MMM MMM XMM", want: []int{6}},
		{marks: "000 011 000", words: "MMM MXM III", want: []int{4}},
		{marks: "000 011 000", words: "MMM MMX III", want: []int{5}},
		{marks: "000 011 000", words: "MMM XMM III", want: []int{3, 6, 7, 8}},
		{marks: "000 111 000", words: "MMM MXM MMM", want: []int{4}},
		{marks: "000 111 000", words: "MMM XMM MMM", want: []int{3, 6}},
		// LOP32I under a field with barriers does not decode, and undoes the shift
		{marks: "000 011 000", words: "MMM MLM III", fieldsOf: 1, fields: [3]uint64{0x7f1, 0x890, 0x7f0}, want: []int{4}},
		{marks: "000 011 000", words: "MMM MML III", fieldsOf: 1, fields: [3]uint64{0x7f1, 0x7f0, 0x1c290}, want: []int{5}},
		{marks: "000 011 000", words: "MMM MMM III", fieldsOf: 1, fields: [3]uint64{0x7f1, 0x890, 0x1c290}, want: []int{6, 7, 8}},
		// in the bundle read shifted, its own word's field is not looked at
		{marks: "000 011 000", words: "MMM MMM MLM", fieldsOf: 2, fields: [3]uint64{0x7f1, 0x13490b, 0x7f1}, want: []int{6, 8}},
		// an all-zero first word does not make the neighbour the one after
		{marks: "000 111 000", words: "MMM ZMM IMM", want: []int{6, 7}},
		{marks: "000 111 000", words: "MMM IMM IMM", want: []int{8}},
		// a pair opened by the last instruction (-1: "Unaligned instruction
		// found"); a last bundle marking all three fields reads past the end
		{marks: "000 011", words: "MMM MMM", want: []int{-1}},
		{marks: "000 001", words: "MMM MMI", want: []int{-1}},
		{marks: "000 001", words: "MMM MMZ", want: nil},
		{marks: "111", words: "MMM", want: []int{3}},
		{marks: "000 111", words: "MMM MMM", want: nil},
	} {
		var fields map[int][3]uint64
		if tc.fieldsOf > 0 {
			fields = map[int][3]uint64{tc.fieldsOf: tc.fields}
		}
		code := craftBundles(tc.marks, tc.words, words, fields)
		_, decodeErrs := Disassemble(nil, code, 0, 52)
		r := ReadVLIW(code, 0, 52)
		var got []int
		for _, e := range r.Merge(decodeErrs) {
			if errors.Is(e, isa.ErrTruncated) {
				got = append(got, -1)
				continue
			}
			got = append(got, int(e.Addr/BundleSize*3+e.Addr%BundleSize/8-1))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("marks %s words %s fields %x: reported %v, nvdisasm %v", tc.marks, tc.words, tc.fields, got, tc.want)
		}
	}
}

// craftBundles builds code from per-bundle dual-issue marks ("011": fields
// 0x7f1, 0x7f0, 0x7f0) and instruction letters looked up in words; fields
// replaces the fields of the bundles it names.
func craftBundles(marks, letters string, words map[byte]uint64, fields map[int][3]uint64) []byte {
	var code []byte
	ms, ws := splitBundles(marks), splitBundles(letters)
	for b := range ms {
		var ctrl uint64
		for k := 0; k < 3; k++ {
			f := uint64(0x7f1)
			if ms[b][k] == '1' {
				f = 0x7f0
			}
			if fs, ok := fields[b]; ok {
				f = fs[k]
			}
			ctrl |= f << (21 * k)
		}
		code = binary.LittleEndian.AppendUint64(code, ctrl)
		for k := 0; k < 3; k++ {
			code = binary.LittleEndian.AppendUint64(code, words[ws[b][k]])
		}
	}
	return code
}
