package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// isContainer reports input that holds cubins: an ELF file or a fatbin.
func isContainer(b []byte) bool {
	return isELF(b) || len(b) >= 4 && binary.LittleEndian.Uint32(b) == fatbin.Magic
}

// disContainer lists every cubin in an ELF cubin, a fatbin or a host ELF
// file carrying a fatbin.
func disContainer(w io.Writer, data []byte, arch isa.Arch, mx maxwell.ListOptions) []error {
	f, err := cubin.Parse(data)
	if err == nil {
		return disCubin(w, f, arch, mx)
	}
	entries, ferr := fatbin.Extract(data)
	if ferr != nil {
		if errors.Is(ferr, fatbin.ErrNoFatbin) {
			return []error{err} // not a fatbin either: the cubin error says why
		}
		return []error{ferr}
	}
	var errs []error
	listed := 0
	for _, e := range entries {
		if e.Kind != fatbin.KindELF {
			continue
		}
		cf, err := cubin.Parse(e.Payload)
		if err != nil {
			errs = append(errs, fmt.Errorf("fatbin entry at %#x: %w", e.Offset, err))
			continue
		}
		if arch.Name != "" && arch.SMVersion != cf.SM() {
			continue // -arch picks one architecture out of a fatbin
		}
		for _, err := range disCubin(w, cf, isa.Arch{}, mx) {
			errs = append(errs, fmt.Errorf("fatbin entry at %#x: %w", e.Offset, err))
		}
		listed++
	}
	if listed == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no cubin for %s in the fatbin", archOrAny(arch)))
	}
	return errs
}

func archOrAny(a isa.Arch) string {
	if a.Name == "" {
		return "any architecture"
	}
	return a.Name
}

// disCubin lists every function of a cubin in cuobjdump -sass form, or for
// sm_5x as nvdisasm does with the options mx.
func disCubin(w io.Writer, f *cubin.File, arch isa.Arch, mx maxwell.ListOptions) []error {
	a, err := all.LookupSM(f.SM())
	if err != nil {
		return []error{fmt.Errorf("e_flags at %#x: cubin for sm_%d: %w", eFlagsOffset(f), f.SM(), err)}
	}
	if arch.Name != "" && arch.Name != a.Name {
		return []error{fmt.Errorf("the cubin is for %s, not %s", a.Name, arch.Name)}
	}
	dots := "\t\t.........."
	if a.ISA == "tesla" {
		dots = "\t\t....................................."
	}
	if a.ISA == "maxwell" {
		return disMaxwellCubin(w, f, a, mx)
	}
	fmt.Fprintf(w, "\n\tcode for %s\n", a.Name)
	var errs []error
	for _, fn := range f.Functions {
		fmt.Fprintf(w, "\t\tFunction : %s\n\t.headerflags    @\"%s\"\n", fn.Name, cubin.CuobjdumpHeaderFlags(f.Flags))
		for _, e := range disRaw(w, fn.Code, 0, a) { // streamed: a function may be large
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
