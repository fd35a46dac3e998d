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

// zeroBank backs the constant banks nothing initialises or writes: a
// launch allocates only the banks it uses (bank 0 always), not 16 x 64 KiB.
var zeroBank [ConstBankBytes]byte

// constBanksWritten marks the banks NewKernel and bindImages write besides
// their initial data: pointers to global variables, and texture and
// surface handles.
func constBanksWritten(img *Image) (w [16]bool) {
	for _, r := range img.DataRelocs {
		if r.Bank >= 0 && r.Bank < len(w) {
			w[r.Bank] = true
		}
	}
	for _, sl := range img.TexSlots {
		if sl.Bank >= 0 && sl.Bank < len(w) {
			w[sl.Bank] = true
		}
	}
	return w
}
