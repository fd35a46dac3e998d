package usse

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/emu"
)

// FuzzLaunch: any launch file text either fails to parse or load with an
// error, or runs (the example's GXP and inputs are beside it); no panic,
// no hang (the instance step limit is small).
func FuzzLaunch(f *testing.F) {
	dir, err := filepath.Abs("../../examples/usse")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"scale_v.json", "sky_f.json", "sum_v.json"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"program": "scale_v.gxp", "arch": "sgx543", "count": 3, "registers": {"pa0": "0x3f800000"}, "outputs": [{"reg": "o0", "components": 8, "format": "f16", "file": "x"}]}`))
	f.Add([]byte(`{"program": "scale_v.gxp", "arch": "sgx543", "uniforms": {"uScale": {"values": [1, 2, 3, 4]}}, "attributes": {"aColor": {"values": [1], "components": 1}}}`))
	// expectations of every kind (an unknown type used to divide by zero)
	f.Add([]byte(`{"program": "scale_v.gxp", "arch": "sgx543", "outputs": [{"name": "POSITION", "file": "p"}], "expect": [{"output": "p", "file": "scale_v_pos.expected", "type": "f32"}, {"space": "global", "words": "sky_f_color8.tsv", "type": "u8", "alt": true, "max_rel": 0.5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLaunch(data)
		if err != nil {
			return
		}
		if filepath.IsAbs(l.Program) || filepath.Base(l.Program) != l.Program {
			return // only files beside the example
		}
		if n, err := l.Count.Uint(0); err == nil && n > 1000 {
			return // large draws are legal and slow: not what fuzzing looks for
		}
		out, err := Run(l, dir, Config{MaxSteps: 1000})
		if err == nil && out == nil {
			t.Fatal("no outcome and no error")
		}
		if err == nil {
			out.Setup.Check(out.Result) // mismatches are errors, never panics
		}
	})
}

// FuzzRunMutated runs the benchmark shader with fuzzed instruction words
// spliced in: every word decodes or faults, every run ends (step limit) or
// faults naming an instruction; nothing panics.
func FuzzRunMutated(f *testing.F) {
	base := benchProgram(f).GXP
	f.Add(0, uint64(0xf800014000000000))
	f.Add(3, uint64(0xf900004000000003)) // a predicated branch
	f.Add(5, uint64(0x18b18181c0091104)) // a mad
	f.Add(7, uint64(0x288f60128065a086)) // dual issue
	f.Add(2, uint64(0xe887b000a5c28000)) // a load
	f.Fuzz(func(t *testing.T, at int, w uint64) {
		g := *base
		g.Primary = append([]uint64(nil), base.Primary...)
		if at < 0 {
			at = -at
		}
		g.Primary[at%len(g.Primary)] = w
		g.Secondary = []uint64{w, 0xf804014000000000}
		p := New(&g, nil)
		var sa SA
		for i := range sa {
			sa[i] = uint32(i) * 0x01010101
		}
		_, err := p.Draw(Config{MaxSteps: 200}, &sa, 5, func(i int, t *Instance) error {
			for k := 0; k < 16; k++ {
				t.File[basePA+k] = uint32(i*k) * 0x9e3779b9
			}
			return nil
		}, nil)
		var fault *Fault
		if err != nil && !errors.As(err, &fault) {
			t.Fatalf("error without a fault: %v", err)
		}
		if fault != nil && fault.Err == nil {
			t.Fatal("fault without a reason")
		}
	})
}

// FuzzLoadGXP: Load never panics on damaged GXPs.
func FuzzLoadGXP(f *testing.F) {
	if b, err := os.ReadFile("../../examples/usse/scale_v.gxp"); err == nil {
		f.Add(b)
	}
	f.Add(gxp.Write(&gxp.Program{Kind: gxp.Fragment, Primary: []uint64{0xfa44070000000000}}, &gxp.Resources{Inputs: []gxp.FragmentInput{{Info: 0xf900, SizeWord: 0x40, CompInfo: 0x20}}}))
	dir := f.TempDir() // one per fuzzing process: the file is rewritten each execution
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(data)
		if err != nil {
			return
		}
		if len(p.Primary.Insts) != len(p.GXP.Primary) {
			t.Fatal("instructions lost")
		}
		// a launch giving a value to every parameter the table names
		if err := os.WriteFile(filepath.Join(dir, "p.gxp"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		l := &Launch{Program: "p.gxp", Arch: Arch, Count: emu.Num{Text: "3"},
			Uniforms: map[string]Values{}, Attributes: map[string]Values{}, Inputs: map[string]Values{}}
		one := Values{Nums: []emu.Num{{Text: "1"}}, Components: emu.Num{Text: "1"}}
		for _, par := range p.GXP.Params {
			switch par.Category {
			case gxp.Uniform:
				l.Uniforms[par.Name] = Values{Nums: []emu.Num{{Text: "1"}}}
			case gxp.Attribute:
				l.Attributes[par.Name] = one
			}
		}
		for i := range p.Res.Inputs {
			if name := inputName(&p.Res.Inputs[i]); name != "" {
				l.Inputs[name] = one
			}
		}
		if p.GXP.Kind == gxp.Vertex {
			l.Inputs = nil
		} else {
			l.Attributes = nil
		}
		Run(l, dir, Config{MaxSteps: 500}) // errors are fine; panics and hangs are not
	})
}
