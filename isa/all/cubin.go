package all

import (
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// ListCubin appends the listing of every function of a cubin as NVIDIA's
// tools print it: `cuobjdump -sass` for sm_1x and sm_2x (the "code for" and
// "Function :" frame), `nvdisasm -hex -novliw` for sm_5x (maxwell.ListCubin,
// with mx's options). It returns the encodings that did not decode (listed
// as .word lines), each naming its function.
func ListCubin(dst []byte, f *cubin.File, mx maxwell.ListOptions) ([]byte, []error) {
	return listCubin(dst, f, mx, false)
}

// ListCubinFacts is ListCubin that also prints, for sm_1x and sm_2x, what
// cuobjdump does not show and a rebuild needs (the ELF class and flags,
// registers, barriers, parameters, constant banks, shared and local
// sizes): cubin.AppendFacts's .cubin lines after each .headerflags line.
// An sm_5x listing shows all of it already and is the same as ListCubin's.
func ListCubinFacts(dst []byte, f *cubin.File, mx maxwell.ListOptions) ([]byte, []error) {
	return listCubin(dst, f, mx, true)
}

func listCubin(dst []byte, f *cubin.File, mx maxwell.ListOptions, facts bool) ([]byte, []error) {
	a, err := LookupSM(f.SM())
	if err != nil {
		return dst, []error{fmt.Errorf("cubin for sm_%d: %w", f.SM(), err)}
	}
	var errs []error
	if a.ISA == "maxwell" {
		var derrs []*isa.DecodeError
		dst, derrs = maxwell.ListCubin(dst, f, mx)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("%s: %w", a.Name, e))
		}
		return dst, errs
	}
	dots := "\t\t.........."
	if a.ISA == "tesla" {
		dots = "\t\t....................................."
	}
	dst = fmt.Appendf(dst, "\n\tcode for %s\n", a.Name)
	var m *cubin.Module
	if facts {
		m = cubin.ModuleOf(f)
	}
	for i, fn := range f.Functions {
		dst = fmt.Appendf(dst, "\t\tFunction : %s\n\t.headerflags    @\"%s\"\n", fn.Name, cubin.CuobjdumpHeaderFlags(f.Flags))
		if facts {
			dst = cubin.AppendFacts(dst, m, &m.Kernels[i])
		}
		var derrs []*isa.DecodeError
		dst, derrs = a.Disassemble(dst, fn.Code, 0)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
		dst = fmt.Appendf(dst, "%s\n\n\n", dots)
	}
	return dst, errs
}
