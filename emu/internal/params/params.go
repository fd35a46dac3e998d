// Package params lays out a launch's arguments as the parameter block of
// an sm_2x or sm_5x kernel (the part of constant bank 0 they read).
package params

import (
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

// Pack packs the job's arguments: each at the offset the cubin's parameter
// table gives (its size must be the argument's), or, without a table (raw
// code, listings), at the next offset aligned to its size. value gives the
// bits of argument i that is not a plain value (a buffer's address, an
// image's handle: what the ISA passes for it); ptrSize is a pointer's size
// in bytes.
func Pack(s *emu.Setup, table []cubin.Param, ptrSize int, value func(i int, a emu.Arg) (uint64, error)) ([]byte, error) {
	var args []emu.Arg
	if s.Job != nil {
		args = s.Job.Args
	}
	if table != nil && len(args) != len(table) {
		return nil, fmt.Errorf("the launch gives %d parameters, the kernel takes %d", len(args), len(table))
	}
	var out []byte
	off := 0
	for i, a := range args {
		v := a.Bits
		switch a.Kind {
		case emu.ArgPtr, emu.ArgTex, emu.ArgSurf:
			var err error
			if v, err = value(i, a); err != nil {
				return nil, fmt.Errorf("params[%d]: %v", i, err)
			}
		}
		n := a.Size(ptrSize)
		if table != nil {
			cp := table[i]
			if int(cp.Size) != n {
				return nil, fmt.Errorf("params[%d]: %d bytes, the kernel's parameter %d has %d", i, n, i, cp.Size)
			}
			off = int(cp.Offset)
		} else {
			off = (off + n - 1) &^ (n - 1)
		}
		if need := off + n; len(out) < need {
			out = append(out, make([]byte, need-len(out))...)
		}
		for k := range n {
			out[off+k] = byte(v >> (8 * k))
		}
		off += n
	}
	return out, nil
}

// BufferAddr is the address of a pointer argument's buffer.
func BufferAddr(s *emu.Setup, a emu.Arg) (uint64, error) {
	place, ok := s.Buffers[a.Name]
	if !ok {
		return 0, fmt.Errorf("unknown buffer %q", a.Name)
	}
	return place.Addr, nil
}
