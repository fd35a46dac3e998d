package tesla

import (
	"slices"

	"github.com/gpuisa/gpuisa/emu"
)

// Emulator is sm_1x's entry in the registry of runnable architectures
// (emu/all).
func Emulator() emu.Emulator {
	read := func(p *emu.Program, arch string) (*Image, error) { return ProgramImage(p.Name, p.Data, p.Kernel, arch) }
	kernel := func(s *emu.Setup, img *Image) (emu.Exec, emu.Config, error) { return prepare(s, img) }
	return emu.Emulator{Family: "tesla", Archs: archNames(), Load: emu.Loader(read, kernel)}
}

func archNames() []string { return []string{"sm_10", "sm_11", "sm_12", "sm_13"} }

// IsArch reports whether arch is one this package runs.
func IsArch(arch string) bool { return slices.Contains(archNames(), arch) }

// prepare lowers a program image for a setup and makes the engine
// configuration.
func prepare(s *emu.Setup, img *Image) (*Kernel, emu.Config, error) {
	k, err := NewKernelImage(s, img)
	if err != nil {
		return nil, emu.Config{}, err
	}
	return k, k.Config(s), nil
}
