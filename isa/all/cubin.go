package all

import (
	"bytes"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// ListCubin appends the listing of every function of a cubin as NVIDIA's
// tools print it: `cuobjdump -sass` for sm_1x and sm_2x (the "code for" and
// "Function :" frame), `nvdisasm -hex -novliw` for sm_5x (maxwell.ListCubin,
// with mx's options). It returns the encodings that did not decode (listed
// as .word lines), each naming its function (for sm_5x, those past
// isa.MaxListedErrors counted in the last: isa.DecodeError.Count).
func ListCubin(dst []byte, f *cubin.File, mx maxwell.ListOptions) ([]byte, []error) {
	b := bytes.NewBuffer(dst)
	errs := writeCubin(b, f, mx, false)
	return b.Bytes(), errs
}

// ListCubinFacts is ListCubin that also prints, for sm_1x and sm_2x, what
// cuobjdump does not show and a rebuild needs (the ELF class and flags,
// registers, barriers, parameters, constant banks, shared and local
// sizes): cubin.AppendFacts's .cubin lines after each .headerflags line.
// An sm_5x listing shows all of it already and is the same as ListCubin's.
func ListCubinFacts(dst []byte, f *cubin.File, mx maxwell.ListOptions) ([]byte, []error) {
	b := bytes.NewBuffer(dst)
	errs := writeCubin(b, f, mx, true)
	return b.Bytes(), errs
}

// WriteCubin writes what ListCubin appends to w a piece at a time (the
// listings are 25 to 30 times the code), so that a large function does not
// cost its whole listing: sm_5x through maxwell.WriteCubin, the sm_1x and
// sm_2x functions one after the other. Decode errors past
// isa.MaxListedErrors are counted in the last one (isa.DecodeError.Count).
func WriteCubin(w io.Writer, f *cubin.File, mx maxwell.ListOptions) []error {
	return writeCubin(w, f, mx, false)
}

// WriteCubinFacts writes what ListCubinFacts appends to w, as WriteCubin.
func WriteCubinFacts(w io.Writer, f *cubin.File, mx maxwell.ListOptions) []error {
	return writeCubin(w, f, mx, true)
}

func writeCubin(w io.Writer, f *cubin.File, mx maxwell.ListOptions, facts bool) []error {
	a, err := LookupSM(f.SM())
	if err != nil {
		return []error{fmt.Errorf("e_flags at %#x: cubin for sm_%d: %w", eFlagsOffset(f), f.SM(), err)}
	}
	var errs []error
	if a.ISA == "maxwell" {
		if !mx.NoDataflow && mx.NoDataflowSections == nil {
			// as nvdisasm lists them: no dataflow annotations in a function
			// with an indirect branch that no jump table lists
			mx.NoDataflowSections = maxwell.UnresolvedSections(f, mx.Sections)
		}
		// streamed: the listing is many times the code; the errors past
		// isa.MaxListedErrors are counted in the last one
		var derrs []*isa.DecodeError
		maxwell.WriteCubin(w, f, mx, func(e *isa.DecodeError) { derrs = isa.ErrorsCapped(derrs, e) })
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("%s: %w", a.Name, e))
		}
		return errs
	}
	dots := "\t\t.........."
	if a.ISA == "tesla" {
		dots = "\t\t....................................."
	}
	fmt.Fprintf(w, "\n\tcode for %s\n", a.Name)
	var m *cubin.Module
	if facts {
		m = cubin.ModuleOf(f)
	}
	for i, fn := range f.Functions {
		fmt.Fprintf(w, "\t\tFunction : %s\n\t.headerflags    @\"%s\"\n", fn.Name, cubin.CuobjdumpHeaderFlags(f.Flags))
		if facts && i < len(m.Kernels) {
			w.Write(cubin.AppendFacts(nil, m, &m.Kernels[i]))
		}
		var derrs []*isa.DecodeError
		if a.WriteListing != nil {
			derrs, _ = a.WriteListing(w, fn.Code, 0)
		} else {
			var out []byte
			out, derrs = a.Disassemble(nil, fn.Code, 0)
			w.Write(out)
		}
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
		fmt.Fprintf(w, "%s\n\n\n", dots)
	}
	return errs
}

// eFlagsOffset is where e_flags (which holds the SM version) is in a cubin.
func eFlagsOffset(f *cubin.File) int {
	if f.Class == 32 {
		return 0x24
	}
	return 0x30
}
