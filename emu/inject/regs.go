package inject

import (
	"encoding/binary"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// allocatedRegs is the general registers a thread of a program holds, as
// SASSIFI's register-file mode and derating count them: what ptxas
// allocated, from the cubin (EIATTR_REGCOUNT in .nv.info, else the
// register count in the .text section's sh_info), when the program is a
// cubin that says; else one more than the highest register its code names
// (raw code, listings, cubins without the count). fromCubin says which.
func allocatedRegs(p *emu.Program, arch string, sites []emu.Site) (n int, fromCubin bool) {
	if p != nil {
		if f, fn, err := emu.OpenKernel(p.Name, p.Data, p.Kernel, arch); err == nil {
			if n := regCount(f, fn); n > 0 {
				return n, true
			}
		}
	}
	return namedRegs(sites), false
}

// regCount is a function's register count in a cubin (0: none given).
func regCount(f *cubin.File, fn *cubin.Function) int {
	for _, list := range [][]cubin.Attr{f.Info, fn.Info} {
		for _, a := range list {
			// SVAL: the function's symbol index, then the count
			if a.ID == cubin.AttrRegCount && len(a.Data) == 8 && int(binary.LittleEndian.Uint32(a.Data)) == fn.Symbol {
				return int(binary.LittleEndian.Uint32(a.Data[4:]))
			}
		}
	}
	return fn.Registers
}

// namedRegs is one more than the highest general register the code names.
func namedRegs(sites []emu.Site) int {
	n := 0
	for i := range sites {
		s := &sites[i]
		for _, rs := range [][]emu.Reg{s.Dst, s.Partial, s.Src} {
			for _, r := range rs {
				if r.File == emu.RegGPR {
					n = max(n, int(r.N)+1)
				}
			}
		}
	}
	return n
}
