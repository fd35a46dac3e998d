package usse

import (
	"math/rand/v2"
	"testing"
)

// TestMayFail: for forms whose check is skipped, random words of the form
// pass check, and decodeFields gives the same fields as fieldDef.get.
func TestMayFail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	skipped := 0
	for fi := range forms {
		f := &forms[fi]
		if !decoders[fi].mayFail {
			skipped++
		}
		for n := 0; n < 2000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in := Inst{Form: int16(fi), Raw: w}
			for i := range f.fields {
				in.Args[i] = f.fields[i].get(w)
			}
			var fast Inst
			decodeFields(int16(fi), w, &fast.Args)
			if fast.Args != in.Args {
				t.Fatalf("%s: %016x: decodeFields differs from fieldDef.get", f.name, w)
			}
			if !decoders[fi].mayFail && f.check(&in) >= 0 {
				t.Fatalf("%s: %016x fails check, but mayFail is false", f.name, w)
			}
		}
	}
	t.Logf("%d of %d forms skip the check", skipped, len(forms))
}

// TestFlagDefaults: every syntax has a bit pattern for "all flags at their
// default", and words print flags exactly when they differ from it.
func TestFlagDefaults(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for fi := range forms {
		for vi := range forms[fi].variants {
			if x := flagDefaults[fi][vi]; x.mask == 0 && x.bits != 0 {
				t.Errorf("%s syntax %d: flag fields overlap", forms[fi].name, vi)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		w := r.Uint64()
		if i%2 == 0 {
			w &^= 0x00ff_0000_0000_0000 // more words at the defaults
		}
		in, err := DecodeWord(w, 0)
		if err != nil {
			continue
		}
		f := &forms[in.Form]
		vi := f.variantIndex(&in)
		printed := len(appendFlags(nil, f, vi, &in)) > 0
		x := flagDefaults[in.Form][vi]
		if printed != (w&x.mask != x.bits) {
			t.Fatalf("%016x (%s): flags printed %v, bits differ %v", w, Print(in, 0), printed, !printed)
		}
	}
}

// TestEncodeFields: the generated encoder gives the field table's word, and
// rejects exactly the values that do not fit.
func TestEncodeFields(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for fi := range forms {
		f := &forms[fi]
		for n := 0; n < 2000; n++ {
			in := Inst{Form: int16(fi)}
			for i := range f.fields {
				in.Args[i] = r.Uint32() & (1<<f.fields[i].width - 1)
				if n%10 == 0 && r.IntN(len(f.fields)) == 0 {
					in.Args[i] = r.Uint32() // may not fit
				}
			}
			w1, ok1 := encodeFields(f, &in)
			w2, ok2 := encodeFieldsSlow(f, &in)
			if ok1 != ok2 || ok1 && w1 != w2 {
				t.Fatalf("%s %v: generated %016x %v, table %016x %v", f.name, in.Args[:len(f.fields)], w1, ok1, w2, ok2)
			}
		}
	}
}

// TestCheckSwizzles: check's swizzle tests agree with swizzleEntry on the
// elements gswSwizzle and rswParts build, on random words of every form.
func TestCheckSwizzles(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	tested := 0
	for fi := range forms {
		f := &forms[fi]
		for n := 0; n < 3000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in := Inst{Form: int16(fi), Raw: w}
			decodeFields(int16(fi), w, &in.Args)
			v := f.variant(&in)
			if v == nil {
				continue
			}
			for i := range v.elems {
				e := &v.elems[i]
				var got, want bool
				switch e.kind {
				case kGsw:
					sw := gswSwizzle(e)
					_, want = swizzleEntry(f, &sw, &in)
					got = swizzleOK(f, e.table, e.f[1], e.f[2], e.f[4], &in)
				case kRsw, kRswh:
					_, sw, has := rswParts(e)
					if !has {
						continue
					}
					_, want = swizzleEntry(f, &sw, &in)
					sel := e.f[6]
					if e.kind == kRswh {
						sel = -1
					}
					got = swizzleOK(f, uint8(e.tab2), e.f[3], e.f[4], sel, &in)
				default:
					continue
				}
				tested++
				if got != want {
					t.Fatalf("%s %016x elem %d: swizzleOK %v, swizzleEntry %v", f.name, w, i, got, want)
				}
			}
		}
	}
	if tested < 10000 {
		t.Fatalf("only %d swizzles tested", tested)
	}
}

// TestCheckCompact: check's compact tests (decoders' checks) find the same
// invalid field as the element-by-element test, on random words of every
// op1 group and on every form's all-zero and all-one fields.
func TestCheckCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	try := func(w uint64) {
		for i := range groupMatches[w>>59] {
			m := &groupMatches[w>>59][i]
			if w&m.mask != m.value {
				continue
			}
			in := Inst{Form: m.form, Raw: w}
			decodeFields(m.form, w, &in.Args)
			f := &forms[m.form]
			if got, want := f.check(&in), f.checkByElems(&in); got != want {
				t.Fatalf("%s %#016x: check %d, element by element %d", f.name, w, got, want)
			}
			return
		}
	}
	for range 1 << 20 {
		try(r.Uint64())
	}
	for fi := range forms {
		f := &forms[fi]
		try(f.value)
		try(f.value | ^f.mask)
	}
}
