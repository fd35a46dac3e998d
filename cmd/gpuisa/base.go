package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/internal/safeio"
	"github.com/gpuisa/gpuisa/isa"
)

// maxCodeEnd bounds where raw code may end with dis -base: the listings'
// branch targets and the assemblers' addresses are 32-bit.
const maxCodeEnd = 1 << 32

// baseAlign is the alignment -base must have for an ISA: where its
// instructions (Maxwell: bundles of a control word and three instructions)
// may start, so that every address dis prints is one as accepts. It is also
// the smallest piece of raw code dis lists: a shorter tail is reported as
// truncated.
func baseAlign(a isa.Arch) uint64 {
	switch a.ISA {
	case "maxwell":
		return 32
	case "usse":
		return 8
	}
	return 4 // Tesla and Fermi have 4-byte forms
}

// checkBase checks -base for raw code of n bytes.
func checkBase(a isa.Arch, base uint64, n int) error {
	if al := baseAlign(a); base%al != 0 {
		return fmt.Errorf("-base %#x is not a multiple of %d (where %s code may start)", base, al, a.Name)
	}
	if base >= maxCodeEnd {
		return fmt.Errorf("-base %#x is past %#x (addresses are 32-bit)", base, uint64(maxCodeEnd))
	}
	if uint64(n) > maxCodeEnd-base {
		return fmt.Errorf("-base %#x: %d bytes of code would end past %#x (addresses are 32-bit)", base, n, uint64(maxCodeEnd))
	}
	return nil
}

// displayName is how messages name an input file ("-" is standard input).
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return safeio.Quoted(name) // a newline in a name must not start a line
}

// checkCubinFlags checks as -cubin's flags before anything is read: what
// is wrong with them is a usage error (exit 2), not the listing's.
func checkCubinFlags(a isa.Arch, kernel, params string, regs int) error {
	if a.SMVersion == 0 {
		return fmt.Errorf("-cubin needs an NVIDIA architecture, not %s", a.Name)
	}
	if regs < 0 || regs > 255 {
		return fmt.Errorf("-regs %d: registers per thread are 0..255", regs)
	}
	if strings.ContainsRune(kernel, 0) {
		return fmt.Errorf("-kernel %q: a name cannot hold a NUL byte", kernel)
	}
	if params != "" {
		for _, p := range strings.Split(params, ",") {
			if n, err := strconv.ParseUint(strings.TrimSpace(p), 0, 32); err != nil || n == 0 || n > 256 {
				return fmt.Errorf("bad -params size %q: want 1..256 bytes", p)
			}
		}
	}
	return nil
}
