package usse

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// rswConstSlow is rswConst by search (firstConst over the swizzle table).
func rswConstSlow(f *form, e *elem, in *Inst, vals *[4]uint32) (int, bool) {
	if bankTables[e.table][bankIndex(f, e, in)] != "special" {
		return 0, false
	}
	_, sw, hasSw := rswParts(e)
	n := in.Args[e.f[2]]
	if n >= 64 {
		return 0, false
	}
	k := maskLen(arg(in, e.f[5]))
	chans := "xyzw"
	var t []string
	idx := 0
	if hasSw {
		ent, _ := swizzleEntry(f, &sw, in)
		if len(ent) < k {
			return 0, false
		}
		chans = ent
		t = swizzleTable(f, &sw, in)
		idx = int(arg(in, sw.f[1]))<<f.fields[sw.f[0]].width | int(in.Args[sw.f[0]])
	}
	for i := 0; i < k; i++ {
		vals[i] = constValue(n, chans[i], rswHalf(e, in))
		if !finite(vals[i]) {
			return 0, false
		}
	}
	n2, idx2, ok := firstConst(t, vals[:k], rswHalf(e, in))
	return k, ok && n2 == n && idx2 == idx
}

// swizzlePrefixSlow is swizzlePrefix by search.
func swizzlePrefixSlow(f *form, e *elem, in *Inst) string {
	ent, _ := swizzleEntry(f, e, in)
	n := len(ent)
	if e.f[2] >= 0 {
		n = min(maskLen(in.Args[e.f[2]]), len(ent))
	}
	t := swizzleTable(f, e, in)
	for ; n < len(ent); n++ {
		if firstWithPrefix(t, ent[:n]) == ent {
			break
		}
	}
	return ent[:n]
}

// TestPrintTables: the looked-up swizzle prefixes and constant operands are
// what the searches give, on random words of every form with a swizzle or
// constant operand (bank bits biased towards the constant bank).
func TestPrintTables(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	consts, swz := 0, 0
	for fi := range forms {
		f := &forms[fi]
		for n := 0; n < 20000; n++ {
			w := r.Uint64()&^f.mask | f.value
			in, err := DecodeWord(w, 0)
			if err != nil || int(in.Form) != fi {
				continue
			}
			v := f.variant(&in)
			for i := range v.elems {
				e := &v.elems[i]
				var sws []elem
				switch e.kind {
				case kSwz:
					sws = append(sws, *e)
				case kGsw:
					sws = append(sws, gswSwizzle(e))
				case kRsw, kRswh:
					// force the constant bank on half of the tries
					if n%2 == 0 {
						for b, name := range bankTables[e.table] {
							if name == "special" {
								bw := f.fields[e.f[0]].width
								in.Args[e.f[0]] = uint32(b) & (1<<bw - 1)
								if e.f[1] >= 0 {
									in.Args[e.f[1]] = uint32(b) >> bw
								}
								in.Args[e.f[2]] &= 63
							}
						}
					}
					var a, b [4]uint32
					k1, ok1 := rswConst(f, e, &in, &a)
					k2, ok2 := rswConstSlow(f, e, &in, &b)
					if ok1 != ok2 || ok1 && (k1 != k2 || a != b) {
						t.Fatalf("%s %016x elem %d: rswConst %d %v %x, search %d %v %x", f.name, w, i, k1, ok1, a, k2, ok2, b)
					}
					if ok1 {
						consts++
					}
					if _, sw, has := rswParts(e); has {
						sws = append(sws, sw)
					}
				}
				for j := range sws {
					if got, want := swizzlePrefix(f, &sws[j], &in), swizzlePrefixSlow(f, &sws[j], &in); got != want {
						t.Fatalf("%s %016x elem %d: swizzle %q, search %q", f.name, w, i, got, want)
					}
					swz++
				}
			}
		}
	}
	if consts < 1000 || swz < 10000 {
		t.Fatalf("only %d constant operands and %d swizzles checked", consts, swz)
	}
	t.Logf("%d constant operands, %d swizzles", consts, swz)
}

// TestDisassembleMatchesPrint: Disassemble, which reuses one instruction
// without clearing it, writes for every word the text Print gives for a
// fresh decode (random words of every form, in random order).
func TestDisassembleMatchesPrint(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var code []byte
	var want []string
	for n := 0; n < 20000; n++ {
		f := &forms[r.IntN(len(forms))]
		w := r.Uint64()&^f.mask | f.value
		if n%7 == 0 {
			w = r.Uint64()
		}
		code = binary.LittleEndian.AppendUint64(code, w)
		in, _ := DecodeWord(w, 0)
		want = append(want, Print(in, 0))
	}
	listing, _ := Disassemble(nil, code, 0)
	lines := strings.Split(strings.TrimSuffix(string(listing), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		if !strings.Contains(l, " "+want[i]+" ;") {
			t.Fatalf("line %d: %q, want text %q", i, l, want[i])
		}
	}
}

// TestShortTexts: the 16-byte texts the printer stores are the enum
// names and flag prefixes they stand for.
func TestShortTexts(t *testing.T) {
	for ti, names := range enumTables {
		for i, s := range names {
			if got := string(appendShort(nil, &enumTexts[ti][i])); got != s {
				t.Fatalf("enum table %d entry %d: %q, want %q", ti, i, got, s)
			}
		}
	}
	for fi := range forms {
		for vi, ops := range flagOps()[fi] {
			for _, op := range ops {
				if got, want := string(appendShort([]byte("x"), &op.prefix)), "x"+buildFlagPrefixes()[fi][op.arg]; got != want {
					t.Fatalf("%s syntax %d: flag %q, want %q", forms[fi].name, vi, got, want)
				}
				if op.valued != (op.digits == -1) || op.digits != 0 && op.digits != -1 {
					t.Fatalf("%s syntax %d: flag %s: valued %v, digits %d", forms[fi].name, vi, buildFlagPrefixes()[fi][op.arg], op.valued, op.digits)
				}
			}
		}
	}
	for v := range decWords {
		d := decWords[v]
		got := string([]byte{byte(d), byte(d >> 8), byte(d >> 16)}[:d>>24])
		if want := string(isa.AppendDec(nil, uint64(v))); got != want {
			t.Fatalf("decWords[%d] = %q, want %q", v, got, want)
		}
	}
}

// TestConstFirst checks buildConstFirst against the plain search it
// replaces (a map of value tuples).
func TestConstFirst(t *testing.T) {
	if got, want := buildConstFirst(), constFirstByMap(); *got != *want {
		t.Fatal("buildConstFirst differs from constFirstByMap")
	}
}

// constFirstByMap is constFirst's definition as a plain search: the first
// (register, entry) of each tuple of values, found with a map.
func constFirstByMap() (c *[len(swizzleTables) + 1][2][4][64]uint32) {
	c = new([len(swizzleTables) + 1][2][4][64]uint32)
	for ti := range c {
		var t []string
		if ti < len(swizzleTables) {
			t = swizzleTables[ti]
		}
		for h := 0; h < 2; h++ {
			half := h == 1
			for k := 1; k <= 4; k++ {
				// the first (register, entry) of each value tuple, in search order
				seen := make(map[[4]uint32]bool)
				for n := uint32(0); n < 64; n++ {
					ents := t
					if t == nil {
						ents = []string{"xyzw"}
					}
					for idx, ent := range ents {
						if ent == "?" || len(ent) < k {
							continue
						}
						var key [4]uint32
						fin := true
						for i := 0; i < k; i++ {
							key[i] = constValue(n, ent[i], half)
							fin = fin && finite(key[i])
						}
						if seen[key] {
							continue
						}
						seen[key] = true
						if fin {
							c[ti][h][k-1][n] |= 1 << idx
						}
					}
				}
			}
		}
	}
	return c
}
