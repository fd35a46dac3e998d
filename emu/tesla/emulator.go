package tesla

import (
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// Emulator is sm_1x's entry in the registry of runnable architectures
// (emu/all).
func Emulator() emu.Emulator {
	return emu.Emulator{Family: "tesla", Archs: archNames(), Load: load}
}

func archNames() []string { return []string{"sm_10", "sm_11", "sm_12", "sm_13"} }

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool { return slices.Contains(archNames(), arch) }

// loaded is a program read for a Device: its code and constant banks.
type loaded struct{ img *Image }

func load(p *emu.Program, arch string) (emu.Loaded, error) {
	img, err := ProgramImage(p.Name, p.Data, p.Kernel, arch)
	if err != nil {
		return nil, err
	}
	return &loaded{img}, nil
}

// Run implements emu.Loaded.
func (l *loaded) Run(s *emu.Setup) (emu.Stats, error) {
	_, st, err := runImage(s, l.img, s.ApplyOptions)
	return st, err
}

// runImage lowers a program image for a setup and runs it; adjust, when not
// nil, may change the engine configuration.
func runImage(s *emu.Setup, img *Image, adjust func(*emu.Config)) (*Kernel, emu.Stats, error) {
	k, err := NewKernelImage(s, img)
	if err != nil {
		return nil, emu.Stats{}, err
	}
	cfg := k.Config(s)
	if adjust != nil {
		adjust(&cfg)
	}
	st, err := emu.Run(cfg, k)
	return k, st, err
}
