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
func disContainer(w io.Writer, data []byte, arch isa.Arch, mx cubinListOptions) []error {
	cubins, errs := containerCubins(data, arch)
	for _, cf := range cubins {
		errs = append(errs, disCubin(w, cf, arch, mx)...)
	}
	return errs
}

// containerCubins returns the cubins of an ELF cubin, or those for arch
// (any when arch is empty) of a fatbin or a host ELF file carrying one.
func containerCubins(data []byte, arch isa.Arch) ([]*cubin.File, []error) {
	f, err := cubin.Parse(data)
	if err == nil {
		return []*cubin.File{f}, nil
	}
	entries, ferr := fatbin.Extract(data)
	if ferr != nil {
		if errors.Is(ferr, fatbin.ErrNoFatbin) {
			return nil, []error{err} // not a fatbin either: the cubin error says why
		}
		return nil, []error{ferr}
	}
	var out []*cubin.File
	var errs []error
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
		out = append(out, cf)
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("fatbin at offset 0x0: no cubin for %s among its %d entries", archOrAny(arch), len(entries)))
	}
	return out, errs
}

func archOrAny(a isa.Arch) string {
	if a.Name == "" {
		return "any architecture"
	}
	return a.Name
}

// cubinListOptions are dis's options for cubins: nvdisasm's for sm_5x, and
// Facts: the sm_1x/sm_2x facts a rebuild needs (isa/all.ListCubinFacts).
type cubinListOptions struct {
	maxwell.ListOptions
	Facts bool
}

// disCubin lists every function of a cubin in cuobjdump -sass form, or for
// sm_5x as nvdisasm does with the options mx (isa/all.ListCubin).
func disCubin(w io.Writer, f *cubin.File, arch isa.Arch, mx cubinListOptions) []error {
	if a, err := all.LookupSM(f.SM()); err == nil && arch.Name != "" && arch.Name != a.Name {
		return []error{fmt.Errorf("the cubin is for %s, not %s", a.Name, arch.Name)}
	}
	if mx.Facts {
		return all.WriteCubinFacts(w, f, mx.ListOptions)
	}
	return all.WriteCubin(w, f, mx.ListOptions)
}
