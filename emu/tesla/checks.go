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
	j := s.Job
	if j != nil {
		switch {
		case j.Program != nil && len(j.Program.Link) > 0:
			return fmt.Errorf("\"link\" is an sm_5x extension; %s code cannot be linked", s.Arch)
		case len(j.Textures) > 0 || len(j.Surfaces) > 0:
			return fmt.Errorf("\"textures\" and \"surfaces\" are sm_5x extensions; the %s runner has no texture unit", s.Arch)
		}
		for i, a := range j.Args {
			if a.Kind == emu.ArgTex || a.Kind == emu.ArgSurf {
				return fmt.Errorf("params[%d]: tex and surf parameters are sm_5x extensions", i)
			}
		}
		if params != nil {
			if len(params) != len(j.Args) {
				return fmt.Errorf("the launch gives %d parameters, the kernel takes %d", len(j.Args), len(params))
			}
			for i, a := range j.Args {
				if n := a.Size(4); uint32(n) != params[i].Size {
					return fmt.Errorf("params[%d]: %d bytes, the kernel's parameter %d has %d", i, n, i, params[i].Size)
				}
			}
		}
	}
	lim, ok := emu.LimitsOf(s.Arch)
	if !ok {
		return nil
	}
	if err := lim.CheckShape(s); err != nil {
		return err
	}
	// the launch words and the parameters share the block's memory
	return lim.CheckShared(s, 0x10+len(s.Params)+s.SharedBytes)
}
