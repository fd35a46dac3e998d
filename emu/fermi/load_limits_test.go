package fermi

import (
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestConfigBlockBytes: the engine learns the local memory a block's warps
// hold, so that parallel workers stay within emu.MaxWorkerBytes (it was 0
// for sm_2x: 512 KiB of local memory per thread were not counted).
func TestConfigBlockBytes(t *testing.T) {
	k := &Kernel{LocalBytes: 512 << 10}
	s := &emu.Setup{Block: emu.Dim3{256, 1, 1}, Grid: emu.Dim3{1, 1, 1}}
	if got, want := k.Config(s, &Image{}).BlockBytes, int64(512<<10)*256; got != want {
		t.Errorf("BlockBytes %d, want %d", got, want)
	}
}
