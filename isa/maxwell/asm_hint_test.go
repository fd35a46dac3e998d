package maxwell

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestListedWordTaken: a listing line's hex-column word is taken when it
// prints as the line's text (bits no field covers included, which the
// matcher would leave zero), and an edited text with its old hex column is
// encoded from the text.
func TestListedWordTaken(t *testing.T) {
	// a random valid word whose text the matcher encodes differently
	var word uint64
	for _, w := range randomValidWords(2000) {
		inst, err := Decode(w, NeutralCtrl, 52, 8)
		if err != nil {
			continue
		}
		if e, _, err := EncodeText(Print(inst, 8), 8, 52, nil); err == nil && e != w {
			word = w
			break
		}
	}
	if word == 0 {
		t.Fatal("no random word with bits the matcher leaves zero")
	}
	code := benchCode([]uint64{word}, 3)
	listing, errs := Disassemble(nil, code, 0, 52)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	got, err := Assemble("l.s", listing, 52)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, code) {
		t.Errorf("with hex: got %x, want the listed code %x", got, code)
	}
	text, err := Assemble("l.s", withoutHex(listing), 52)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(text, code) {
		t.Error("without hex the matcher gave the listed words: the test shows nothing")
	}

	// edit the first instruction's text, keep its hex column
	lines := strings.Split(string(listing), "\n")
	edited := false
	for i, l := range lines {
		if j := strings.Index(l, "*/"); j > 0 && strings.Contains(l[j:], "/* 0x") && strings.TrimSpace(l[j+2:])[0] != '/' {
			lines[i] = l[:j+2] + "   MOV R1, R2 ;" + l[strings.LastIndex(l, "   /* 0x"):]
			edited = true
			break
		}
	}
	if !edited {
		t.Fatal("no instruction line in the listing")
	}
	got, err = Assemble("l.s", []byte(strings.Join(lines, "\n")), 52)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := EncodeText("MOV R1, R2 ;", 8, 52, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := binary.LittleEndian.Uint64(got[8:]); w != want {
		t.Errorf("edited line: got %#x, want MOV R1, R2's %#x", w, want)
	}
}
