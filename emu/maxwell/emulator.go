package maxwell

import (
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// Emulator is sm_5x's entry in the registry of runnable architectures
// (emu/all).
func Emulator() emu.Emulator {
	kernel := func(s *emu.Setup, img *Image) (emu.Exec, emu.Config, error) { return prepare(s, img) }
	return emu.Emulator{Family: "maxwell", Archs: archNames(), Load: emu.Loader(readProgram, kernel)}
}

func archNames() []string { return []string{"sm_50", "sm_52", "sm_53"} }

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool { return slices.Contains(archNames(), arch) }

// prepare builds the kernel of a program image for a setup and makes the
// engine configuration.
func prepare(s *emu.Setup, img *Image) (*Kernel, emu.Config, error) {
	k, err := NewKernel(s, img)
	if err != nil {
		return nil, emu.Config{}, err
	}
	return k, k.Config(s, img), nil
}
