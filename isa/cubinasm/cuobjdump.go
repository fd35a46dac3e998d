package cubinasm

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/asm"
)

// Tesla (sm_1x) and Fermi (sm_2x) cubins list as cuobjdump -sass lists them
// ("code for sm_XX", then "Function : NAME" and the code of each function):
// the code and the function names. With gpuisa dis -facts each function
// also carries .cubin lines (cubin.AppendFacts): the ELF class and flags,
// registers, barriers, parameters, constant banks and memory sizes.
// AssembleCuobjdump rebuilds a cubin from such a listing with cubin.Write:
// each function's code comes back exactly, its facts from its .cubin lines;
// a function without them takes Write's defaults (Defaulted says which).

// IsCuobjdumpListing reports whether src is a cuobjdump -sass style listing
// of an sm_1x or sm_2x cubin.
func IsCuobjdumpListing(src []byte) bool {
	return bytes.Contains(src, []byte("\tcode for sm_")) && bytes.Contains(src, []byte("Function : "))
}

// Defaulted lists what a cubin rebuilt from a cuobjdump-style listing takes
// from defaults rather than from the listing.
const Defaulted = "registers (16), barriers, parameters, constant banks, shared and local sizes: a cuobjdump-style listing shows only the code (gpuisa dis -facts lists them too)"

// AssembleCuobjdump rebuilds a cubin from a cuobjdump-style listing.
func AssembleCuobjdump(filename string, src []byte) ([]byte, error) {
	b, _, err := RebuildCuobjdump(filename, src)
	return b, err
}

// DefaultedFunc is a function of a cuobjdump-style listing that had no
// .cubin facts and so took Write's defaults (Defaulted): its name, and
// where its "Function :" line is.
type DefaultedFunc struct {
	Name string
	Pos  asm.Pos
}

// RebuildCuobjdump is AssembleCuobjdump that also names the functions that
// had no .cubin facts and so took Write's defaults.
func RebuildCuobjdump(filename string, src []byte) (out []byte, defaulted []DefaultedFunc, err error) {
	var errs asm.ErrorList
	sm := 0
	type fn struct {
		name   string
		line   int
		lines  []string
		kernel cubin.Kernel
		facts  bool
	}
	m := &cubin.Module{}
	moduleSeen := false
	var fns []*fn
	var cur *fn
	asm.Lines(src, func(line string, n int) {
		s := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(s, "code for sm_"):
			v, err := strconv.Atoi(strings.TrimPrefix(s, "code for sm_"))
			if err != nil || v >= 50 {
				errs.Add(asm.Pos{File: filename, Line: n, Col: 1}, "bad %q: cuobjdump-style listings are for sm_1x and sm_2x", s)
				return
			}
			if _, err := all.LookupSM(v); err != nil {
				// e.g. sm_1: named at its line, not as the whole file's problem
				errs.Add(asm.Pos{File: filename, Line: n, Col: 1}, "bad %q: %v", s, err)
				return
			}
			sm = v
			m.SM, m.VirtualSM = sm, sm
		case strings.HasPrefix(s, cubin.FactsDirective+" ") && cur != nil && sm != 0:
			isModule := strings.Contains(s, " class=")
			if err := cubin.ReadFact(s[len(cubin.FactsDirective):], m, &cur.kernel, moduleSeen); err != nil {
				errs.Add(asm.Pos{File: filename, Line: n, Col: strings.Index(line, cubin.FactsDirective) + 1}, "%v", err)
			}
			moduleSeen = moduleSeen || isModule
			cur.facts = cur.facts || !isModule
		case strings.HasPrefix(s, "Function : "):
			cur = &fn{name: strings.TrimSpace(strings.TrimPrefix(s, "Function : ")), line: n}
			fns = append(fns, cur)
		case strings.HasPrefix(s, "...."):
			cur = nil
		case strings.HasPrefix(s, ".headerflags"), s == "":
		case cur != nil:
			for len(cur.lines) < n-cur.line-1 {
				cur.lines = append(cur.lines, "") // keep line numbers for errors
			}
			cur.lines = append(cur.lines, line)
		default:
			errs.Add(asm.Pos{File: filename, Line: n, Col: 1}, "text outside a function: %s", s)
		}
	})
	if sm == 0 {
		errs.Add(asm.Pos{File: filename, Line: 1, Col: 1}, "no \"code for sm_XX\" line")
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	arch, err := all.LookupSM(sm)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filename, err)
	}
	for _, f := range fns {
		// a function's lines start after its header: pad so errors name
		// the listing's line numbers
		text := strings.Repeat("\n", f.line) + strings.Join(f.lines, "\n") + "\n"
		code, err := arch.Assemble(filename, []byte(text))
		if err != nil {
			var el asm.ErrorList
			if errors.As(err, &el) {
				errs = append(errs, el...)
				continue
			}
			return nil, nil, err
		}
		k := f.kernel
		if !f.facts {
			k.Registers = 16
			defaulted = append(defaulted, DefaultedFunc{Name: f.name, Pos: asm.Pos{File: filename, Line: f.line, Col: 1}})
		}
		k.Name, k.Code = f.name, code
		m.Kernels = append(m.Kernels, k)
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	out, err = cubin.Write(m)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filename, err)
	}
	return out, defaulted, nil
}
