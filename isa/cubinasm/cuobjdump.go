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
// the code and the function names, nothing else. AssembleCuobjdump rebuilds
// a cubin from such a listing with cubin.Write: each function's code comes
// back exactly; its registers, parameters, constant banks and memory sizes
// are not in the listing, so they take Write's defaults (Rebuilt says
// which).

// IsCuobjdumpListing reports whether src is a cuobjdump -sass style listing
// of an sm_1x or sm_2x cubin.
func IsCuobjdumpListing(src []byte) bool {
	return bytes.Contains(src, []byte("\tcode for sm_")) && bytes.Contains(src, []byte("Function : "))
}

// Defaulted lists what a cubin rebuilt from a cuobjdump-style listing takes
// from defaults rather than from the listing.
const Defaulted = "registers (16), barriers, parameters, constant banks, shared and local sizes: a cuobjdump-style listing shows only the code"

// AssembleCuobjdump rebuilds a cubin from a cuobjdump-style listing.
func AssembleCuobjdump(filename string, src []byte) ([]byte, error) {
	var errs asm.ErrorList
	sm := 0
	type fn struct {
		name  string
		line  int
		lines []string
	}
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
			sm = v
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
		return nil, err
	}
	arch, err := all.LookupSM(sm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	m := &cubin.Module{SM: sm, VirtualSM: sm}
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
			return nil, err
		}
		m.Kernels = append(m.Kernels, cubin.Kernel{Name: f.name, Code: code, Registers: 16})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return cubin.Write(m)
}
