package tesla

import (
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// checkLaunch rejects what the sm_1x runner cannot honour instead of
// ignoring it: the sm_5x extensions (link, textures, surfaces), parameters
// that do not match the cubin's, and shapes and sizes past the G80's limits.
func checkLaunch(s *emu.Setup, params []cubin.Param) error {
	l := s.Launch
	switch {
	case len(l.Link) > 0:
		return fmt.Errorf("\"link\" is an sm_5x extension; %s code cannot be linked", l.Arch)
	case len(l.Textures) > 0 || len(l.Surfaces) > 0:
		return fmt.Errorf("\"textures\" and \"surfaces\" are sm_5x extensions; the %s runner has no texture unit", l.Arch)
	}
	for i, p := range l.Params {
		if p.Tex != nil || p.Surf != nil {
			return fmt.Errorf("params[%d]: tex and surf parameters are sm_5x extensions", i)
		}
	}
	if params != nil {
		if len(params) != len(l.Params) {
			return fmt.Errorf("the launch gives %d parameters, the kernel takes %d", len(l.Params), len(params))
		}
		for i, p := range l.Params {
			n := 4
			if p.U64 != nil || p.F64 != nil {
				n = 8
			}
			if uint32(n) != params[i].Size {
				return fmt.Errorf("params[%d]: %d bytes, the kernel's parameter %d has %d", i, n, i, params[i].Size)
			}
		}
	}
	lim, ok := emu.LimitsOf(l.Arch)
	if !ok {
		return nil
	}
	if err := lim.CheckShape(s); err != nil {
		return err
	}
	// the launch words and the parameters share the block's memory
	return lim.CheckShared(s, 0x10+len(s.Params)+s.SharedBytes)
}
