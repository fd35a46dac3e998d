// Package all is the registry of every architecture gpuisa supports. It is
// built from each ISA package's Archs function on every call, so there is no
// mutable global state.
package all

import (
	"fmt"
	"strings"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/tesla"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// Archs lists every supported architecture.
func Archs() []isa.Arch {
	var out []isa.Arch
	out = append(out, tesla.Archs()...)
	out = append(out, fermi.Archs()...)
	out = append(out, maxwell.Archs()...)
	out = append(out, usse.Archs()...)
	return out
}

// Lookup finds an architecture by name ("sm_10", "SM52", "sgx543").
func Lookup(name string) (isa.Arch, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if strings.HasPrefix(n, "sm") && !strings.HasPrefix(n, "sm_") {
		n = "sm_" + n[2:]
	}
	for _, a := range Archs() {
		if a.Name == n {
			return a, nil
		}
	}
	return isa.Arch{}, fmt.Errorf("%w %q (known: %s)", isa.ErrUnknownArch, name, Names())
}

// LookupSM finds an NVIDIA architecture by its EF_CUDA_SM number.
func LookupSM(sm int) (isa.Arch, error) {
	for _, a := range Archs() {
		if a.SMVersion == sm {
			return a, nil
		}
	}
	return isa.Arch{}, fmt.Errorf("%w sm_%d", isa.ErrUnknownArch, sm)
}

// Names lists the architecture names, comma separated.
func Names() string {
	var names []string
	for _, a := range Archs() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}
