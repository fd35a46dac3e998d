package usse

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
)

// outputPlan says where each output's values come from and where they go
// in the result blob (one buffer per output, instance-major).
type outputPlan struct {
	size   int
	items  []outputItem
	emu    []emu.Output
	places map[string]emu.BufferPlace
}

type outputItem struct {
	off    int // first byte in the blob
	per    int // bytes per instance
	chans  []chanSrc
	uchar4 bool
	raw    bool // raw words, not values
}

// UChar4 is the byte a UCHAR4 colour target stores for a value: clamped
// to [0, 1], times 255, rounded to nearest; NaN gives 0 (the console:
// vita3k-shader-tests, where a NaN at one vertex turns the interpolated
// colour of its pixels to 0).
func UChar4(x float32) byte {
	if x != x {
		return 0
	}
	return byte(satRound(float64(x)*255, 0, 255))
}

func (p *Program) outputPlan(l *Launch, count int) (*outputPlan, error) {
	plan := &outputPlan{places: map[string]emu.BufferPlace{}}
	for i, o := range l.Outputs {
		var chans []chanSrc
		raw := false
		switch {
		case o.Name == "POSITION" && p.GXP.Kind == gxp.Vertex:
			for c := 0; c < 4; c++ {
				chans = append(chans, chanSrc{reg: uint16(baseO + c), fmt: fF32})
			}
		case o.Name == "COLOR" && p.GXP.Kind == gxp.Fragment:
			out := p.Res.Output
			f, err := typeFmt(out.Type)
			if err != nil {
				return nil, fmt.Errorf("outputs[%d]: the colour: %v", i, err)
			}
			base := basePA + int(out.StartPA)
			if out.Type != gxp.F16 {
				base = basePA
			}
			if out.NativeColor {
				base = baseO
			}
			n := int(out.Components)
			if n == 0 {
				n = 4
			}
			for c := 0; c < n; c++ {
				off, pt := chanPlace(f, c)
				chans = append(chans, chanSrc{reg: uint16(base + off), part: pt, fmt: f})
			}
		case o.Name == "DEPTH" && p.GXP.Kind == gxp.Fragment:
			chans = []chanSrc{{reg: wordDepth, fmt: fF32}} // what depthf wrote
		case o.Reg != "":
			w, err := regWord(o.Reg)
			if err != nil {
				return nil, fmt.Errorf("outputs[%d]: %v", i, err)
			}
			n := uint64(4)
			if o.Components.Set() {
				if n, err = o.Components.Uint(65); err != nil || n == 0 {
					return nil, fmt.Errorf("outputs[%d].components: 1..64", i)
				}
			}
			f := fF32
			switch o.Format {
			case "", "f32":
			case "f16":
				f = fF16
			case "u8":
				f = fU8
			case "raw":
				raw = true
			default:
				return nil, fmt.Errorf("outputs[%d]: format %q (f32, f16, u8 or raw)", i, o.Format)
			}
			bank := (w / bankWords) * bankWords
			for c := 0; c < int(n); c++ {
				off, pt := chanPlace(f, c)
				if w+off >= bank+bankWords {
					return nil, fmt.Errorf("outputs[%d]: %d channels from %s run past its bank", i, n, o.Reg)
				}
				chans = append(chans, chanSrc{reg: uint16(w + off), part: pt, fmt: f})
			}
		default:
			return nil, fmt.Errorf("outputs[%d]: name %q is not an output of a %s program (POSITION for vertex programs, COLOR and DEPTH for fragment ones; or give reg)", i, o.Name, p.kindName())
		}
		it := outputItem{off: plan.size, chans: chans, raw: raw, uchar4: o.As == "uchar4"}
		if it.uchar4 && raw {
			return nil, fmt.Errorf("outputs[%d]: raw words have no uchar4 form", i)
		}
		it.per = 4 * len(chans)
		if it.uchar4 {
			it.per = len(chans)
		}
		if _, dup := plan.places[o.File]; dup {
			return nil, fmt.Errorf("outputs[%d]: file %s named twice", i, o.File)
		}
		total := it.per * count
		if plan.size+total > emu.MaxMemory {
			return nil, fmt.Errorf("outputs: more than %d bytes", emu.MaxMemory)
		}
		plan.places[o.File] = emu.BufferPlace{Addr: uint64(plan.size), Bytes: uint64(total)}
		plan.emu = append(plan.emu, emu.Output{Buffer: o.File, File: o.File})
		plan.items = append(plan.items, it)
		plan.size += total
	}
	return plan, nil
}

// collect copies instance i's outputs into the blob.
func (plan *outputPlan) collect(i int, t *Instance, blob []byte) error {
	for _, it := range plan.items {
		at := it.off + i*it.per
		for c := range it.chans {
			s := &it.chans[c]
			switch {
			case it.raw:
				binary.LittleEndian.PutUint32(blob[at+4*c:], t.File[s.reg])
			case it.uchar4:
				blob[at+c] = UChar4(t.readF(s))
			default:
				x := t.readF(s)
				if s.fmt == fU8 {
					x /= 255
				}
				binary.LittleEndian.PutUint32(blob[at+4*c:], bits(x))
			}
		}
	}
	return nil
}
