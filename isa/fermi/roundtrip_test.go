package fermi

import (
	"math/rand/v2"
	"testing"
)

// randomWords returns, for every form, n words with its fixed bits and random
// values everywhere else that decode (the rest are skipped).
func randomWords(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []uint64
	for i := range forms {
		f := &forms[i]
		for k, tries := 0, 0; k < n && tries < 50*n; tries++ {
			raw := f.value | r.Uint64()&^f.mask
			if _, err := DecodeWord(raw); err == nil {
				out = append(out, raw)
				k++
			}
		}
	}
	return out
}

// TestRoundTripAllForms: for random decodable words of every form, the
// printed text (both dialects) assembles back to the same word.
func TestRoundTripAllForms(t *testing.T) {
	words := randomWords(300, 7)
	perForm := map[string]int{}
	for _, raw := range words {
		inst, _ := DecodeWord(raw)
		pc := uint64(0x10000)
		for d := New; d <= Old; d++ {
			text := string(AppendTextDialect(nil, inst, pc, d))
			back, err := AssembleLineDialect(text, pc, d)
			if err != nil || back.Raw != raw {
				if perForm[forms[inst.form].name]++; perForm[forms[inst.form].name] <= 2 {
					t.Errorf("%s %#016x: %q -> %#016x, %v", d.String(), raw, text, back.Raw, err)
				}
			}
		}
	}
	if len(words) < len(forms)*100 {
		t.Errorf("only %d random words decode for %d forms", len(words), len(forms))
	}
}

// TestEveryFormDecodes makes sure no form is shadowed by another one.
func TestEveryFormDecodes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range forms {
		f := &forms[i]
		if f.newOnly {
			linked := false
			for j := range forms {
				linked = linked || int(forms[j].alias) == i
			}
			if !linked {
				t.Errorf("new-dialect form %d (%s) is nobody's spelling", i, f.name)
			}
			continue
		}
		found := false
		for tries := 0; tries < 2000 && !found; tries++ {
			raw := f.value | r.Uint64()&^f.mask
			if inst, err := DecodeWord(raw); err == nil && int(inst.form) == i {
				found = true
			}
		}
		if !found {
			t.Errorf("form %d (%s) never decodes", i, f.name)
		}
	}
}

func TestClass(t *testing.T) {
	for _, c := range []struct {
		raw  uint64
		want Class
	}{
		{0x4800000004109c03, ClassInt}, {0x5000000004105c00, ClassFloat}, {0x8000000000601c85, ClassMemory},
		{0x6000000140000007, ClassControl}, {0x50ee0000ffffdc04, ClassSync}, {0x100000000020dc05, ClassAtomic},
	} {
		inst, err := DecodeWord(c.raw)
		if err != nil || inst.Class() != c.want {
			t.Errorf("%#x: class %v, %v; want %v", c.raw, inst.Class(), err, c.want)
		}
	}
	if s := Class(200).String(); s != "Class(200)" {
		t.Errorf("String = %q", s)
	}
}
