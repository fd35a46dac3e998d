package maxwell

import (
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// Emulator is sm_5x's entry in the registry of runnable architectures
// (emu/all).
func Emulator() emu.Emulator {
	return emu.Emulator{Family: "maxwell", Archs: archNames(), Load: load}
}

func archNames() []string { return []string{"sm_50", "sm_52", "sm_53"} }

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool { return slices.Contains(archNames(), arch) }

// loaded is a program read for a Device: the linked image of its kernel.
type loaded struct{ img *Image }

func load(p *emu.Program, arch string) (emu.Loaded, error) {
	img, err := readProgram(p, arch)
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

// runImage builds the kernel of a program image for a setup and runs it;
// adjust, when not nil, may change the engine configuration.
func runImage(s *emu.Setup, img *Image, adjust func(*emu.Config)) (*Kernel, emu.Stats, error) {
	k, err := NewKernel(s, img)
	if err != nil {
		return nil, emu.Stats{}, err
	}
	cfg := k.Config(s, img)
	if adjust != nil {
		adjust(&cfg)
	}
	st, err := emu.Run(cfg, k)
	return k, st, err
}
