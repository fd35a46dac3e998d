package maxwell

import (
	"strings"
	"testing"
)

// TestEncodeTextSameAsReference: the fast encoder (filters, packed literals,
// loop matching) answers exactly as the reference one (encode_ref_test.go)
// — same word, same control field, same error — for nvdisasm's texts of
// the golden data (control-field variants included), texts of random valid
// words under random control fields, and mutations of them that mostly fail.
func TestEncodeTextSameAsReference(t *testing.T) {
	var texts []string
	for _, path := range []string{"testdata/nvdisasm_sm52.tsv.gz", "testdata/nvdisasm_sm52_ctrl.tsv.gz"} {
		for i, r := range readGolden(t, path) {
			if r.text != "INVALID" && (i%3 == 0 || testing.Short() == false && i%3 == 1) {
				texts = append(texts, r.text)
			}
		}
	}
	x := uint64(7)
	next := func() uint64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for _, w := range randomValidWords(20000) {
		ctrl := Ctrl(next()) & 0x1fffff
		inst, err := Decode(w, ctrl, 52, 0x100)
		if err != nil {
			inst, _ = Decode(w, NeutralCtrl, 52, 0x100)
		}
		texts = append(texts, Print(inst, 0x100))
	}
	const alphabet = " \t.,;-|!@[]{}()+R0159PTxZc?aeLN"
	n := len(texts)
	for i := 0; i < n; i++ {
		s := texts[i]
		if len(s) < 2 {
			continue
		}
		p := int(next() % uint64(len(s)))
		c := alphabet[next()%uint64(len(alphabet))]
		switch next() % 6 {
		case 0:
			texts = append(texts, s[:p]+s[p+1:])
		case 1:
			texts = append(texts, s[:p]+string(c)+s[p:])
		case 2:
			texts = append(texts, s[:p]+string(c)+s[p+1:])
		case 3:
			texts = append(texts, s[:p]+".reuse"+s[p:])
		case 4:
			texts = append(texts, strings.ReplaceAll(s, " ", "\t"))
		default:
			texts = append(texts, strings.TrimSuffix(strings.TrimSuffix(s, " ;"), ";")+";")
		}
	}
	labels := map[string]uint64{"L": 0x40, "start": 0x8, "a.reuse": 0x10}
	resolve := func(name string) (uint64, bool) { a, ok := labels[name]; return a, ok }
	texts = append(texts, "BRA L ;", "@P0 BRA start ;", "BRA `(start) ;", "SSY L;", "CAL a.reuse ;", "BRA a.reuse ;", "BRA nowhere ;",
		"@P9 MOV R1, R2 ;", "@!PT NOP ;", "", ";", "MOV", "R1", "MOVR1,R2;", "MOV R1, R2.reuse ;", "TEX.T R1, R2, R3, 0x1, 2D, 0x1 ;")
	differ := 0
	for _, s := range texts {
		for _, sm := range []int{50, 52} {
			w, c, err := EncodeText(s, 0x100, sm, resolve)
			rw, rc, rerr := refEncodeText(s, 0x100, sm, refResolver(resolve))
			if w != rw || c != rc || (err == nil) != (rerr == nil) || err != nil && err.Error() != rerr.Error() {
				differ++
				if differ <= 10 {
					t.Errorf("sm_%d %q: got %#x %#x %v, reference %#x %#x %v", sm, s, w, c, err, rw, rc, rerr)
				}
			}
		}
	}
	t.Logf("%d texts, %d differ", len(texts), differ)
}
