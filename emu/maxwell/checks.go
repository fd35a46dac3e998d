package maxwell

import (
	"github.com/gpuisa/gpuisa/emu"
)

// checkLaunch checks a launch against the sm_5x limits before anything is
// built: grid and block shape, local memory per thread, and shared memory
// per block (the cubin's static part and the launch's shared_bytes).
func checkLaunch(s *emu.Setup, img *Image) error {
	lim, _ := emu.LimitsOf(s.Arch)
	if err := lim.CheckShape(s); err != nil {
		return err
	}
	return lim.CheckProgram(s, img.LocalBytes, img.SharedSize)
}

// blockBytes is the local memory the engine's workers allocate per block.
func (k *Kernel) blockBytes() int64 {
	warps := (int64(k.Block.Count()) + emu.WarpSize - 1) / emu.WarpSize
	return int64(k.LocalBytes) * emu.WarpSize * warps
}
