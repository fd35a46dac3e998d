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
	for _, fn := range f.Functions {
		dst = fmt.Appendf(dst, "\t\tFunction : %s\n\t.headerflags    @\"%s\"\n", fn.Name, cubin.CuobjdumpHeaderFlags(f.Flags))
		var derrs []*isa.DecodeError
		dst, derrs = a.Disassemble(dst, fn.Code, 0)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
		dst = fmt.Appendf(dst, "%s\n\n\n", dots)
	}
	return dst, errs
}
