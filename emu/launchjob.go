package emu

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

// Job reads the files a launch file names (relative to dir) into the Go
// value it describes: the program, the memory images, the buffers (in name
// order), the parameters and the images (textures and surfaces in name
// order, so a handle is the same as the launch file's).
func (l *Launch) Job(dir string) (*Job, error) {
	if err := l.checkFarBytes(); err != nil {
		return nil, err
	}
	j := &Job{Grid: l.GridDim(), Block: l.BlockDim()}
	prog, err := l.program(dir)
	if err != nil {
		return nil, err
	}
	j.Program = prog
	for i, m := range l.Memory {
		addr, _ := m.Addr.Uint(0)
		sp, _ := spaceOf(m.Space, true)
		data, err := imageBytes(l, dir, m.File, m.Bytes, m.Fill, imageLimit(sp, addr))
		if err != nil {
			return nil, fmt.Errorf("memory[%d]: %v", i, err)
		}
		bank, _ := m.Bank.Uint(16)
		j.Memory = append(j.Memory, Placement{Space: sp, Bank: int(bank), Addr: addr, Data: data})
	}
	names := make([]string, 0, len(l.Buffers))
	for n := range l.Buffers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b := l.Buffers[n]
		data, err := imageBytes(l, dir, b.File, b.Bytes, b.Fill, MaxMemory)
		if err != nil {
			return nil, fmt.Errorf("buffer %q: %v", n, err)
		}
		if data == nil {
			data = []byte{} // an empty buffer is still a buffer
		}
		j.Buffers = append(j.Buffers, Alloc{Name: n, Data: data})
	}
	for i, p := range l.Params {
		a, err := p.arg()
		if err != nil {
			return nil, fmt.Errorf("params[%d]: %v", i, err)
		}
		j.Args = append(j.Args, a)
	}
	tex, surf := l.ImageNames()
	for _, group := range []struct {
		what  string
		names []string
		m     map[string]Image
		out   *[]TexImage
	}{{"texture", tex, l.Textures, &j.Textures}, {"surface", surf, l.Surfaces, &j.Surfaces}} {
		for _, n := range group.names {
			im, err := l.texImage(dir, n, group.m[n])
			if err != nil {
				return nil, fmt.Errorf("%s %q: %v", group.what, n, err)
			}
			*group.out = append(*group.out, im)
		}
	}
	for _, o := range l.Outputs {
		if sp, _ := spaceOf(o.Space, false); o.Buffer == "" && sp == Global {
			a, _ := o.Addr.Uint(0)
			n, _ := o.Bytes.Uint(MaxMemory + 1)
			if a < MaxMemory { // the far ones read segments
				j.reach = max(j.reach, a+n)
			}
		}
	}
	n, _ := l.SharedBytes.Uint(MaxMemory + 1)
	j.SharedBytes = int(n)
	n, _ = l.LocalBytes.Uint(MaxMemory + 1)
	j.LocalBytes = int(n)
	j.GlobalBytes, _ = l.GlobalBytes.Uint(MaxMemory + 1)
	n, _ = l.MaxSteps.Uint(0)
	j.MaxSteps = maxSteps(n)
	return j, nil
}

// checkFarBytes bounds what the images at or above MaxMemory ask for
// before any file is read.
func (l *Launch) checkFarBytes() error {
	var farBytes uint64
	for _, m := range l.Memory {
		if a, _ := m.Addr.Uint(0); a >= MaxMemory && (m.Space == "global" || m.Space == "") && m.Bytes.Set() {
			n, _ := m.Bytes.Uint(MaxMemory + 1)
			if farBytes += n; farBytes > MaxMemory {
				return fmt.Errorf("global memory images above %#x need more than %#x bytes", uint64(MaxMemory), uint64(MaxMemory))
			}
		}
	}
	return nil
}

// program reads the program and the cubins to link with it; a launch
// without a program (only built in Go, never parsed) gets a program with
// no code.
func (l *Launch) program(dir string) (*Program, error) {
	if l.Program == "" {
		return &Program{Arch: l.Arch, Kernel: l.Kernel}, nil
	}
	path := l.Program
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := l.readFile(dir, l.Program, MaxProgramBytes)
	if err != nil {
		return nil, err
	}
	p := &Program{Name: path, Data: data, Arch: l.Arch, Kernel: l.Kernel}
	for _, name := range l.Link {
		lp := name
		if !filepath.IsAbs(lp) {
			lp = filepath.Join(dir, lp)
		}
		ld, err := l.readFile(dir, name, MaxProgramBytes)
		if err != nil {
			return nil, fmt.Errorf("link: %v", err)
		}
		p.Link = append(p.Link, Object{Name: lp, Data: ld})
	}
	return p, nil
}

// texImage reads a texture or surface of the launch file.
func (l *Launch) texImage(dir, name string, li Image) (TexImage, error) {
	im := TexImage{Name: name, Buffer: li.Buffer, Format: li.Format, Filter: li.Filter, MipFilter: li.MipFilter,
		Address: li.Address, Normalized: li.Normalized, Compare: li.Compare, Cube: li.Cube}
	for _, n := range li.Size {
		v, _ := n.Uint(1 << 16)
		im.Size = append(im.Size, int(v))
	}
	layers, _ := li.Layers.Uint(1 << 16)
	levels, _ := li.Levels.Uint(1 << 16)
	im.Layers, im.Levels = int(layers), int(levels)
	if li.Fill.Set() {
		f, _ := li.Fill.Uint(256)
		im.Fill, im.Pad = byte(f), true
	}
	if li.File != "" {
		// only the bytes the image needs, its size checked first
		n, err := ImageBytes(li)
		if err != nil {
			return im, err
		}
		p := li.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b := make([]byte, n)
		got, err := safeio.ReadPrefix(p, b)
		if err != nil {
			return im, err
		}
		im.Data = b[:got]
	}
	// integer formats take integer border values, the others floats
	integer := strings.HasSuffix(li.Format, "i")
	for c, n := range li.Border {
		if integer {
			v, err := n.Int()
			if err != nil {
				return im, fmt.Errorf("border[%d]: %v", c, err)
			}
			im.Border = append(im.Border, uint32(v))
			continue
		}
		v, err := n.Float()
		if err != nil {
			return im, fmt.Errorf("border[%d]: %v", c, err)
		}
		im.Border = append(im.Border, math.Float32bits(float32(v)))
	}
	return im, nil
}

// arg converts a parameter: exactly one field is set, and values are in
// their type's range.
func (p Param) arg() (Arg, error) {
	set := 0
	for _, x := range []bool{p.U32 != nil, p.S32 != nil, p.U64 != nil, p.F32 != nil, p.F64 != nil, p.Ptr != nil, p.Tex != nil, p.Surf != nil} {
		if x {
			set++
		}
	}
	if set != 1 {
		return Arg{}, fmt.Errorf("a parameter needs exactly one of u32, s32, u64, f32, f64, ptr, tex, surf")
	}
	switch {
	case p.U32 != nil:
		// "0xffffffffffffffff" is 2^64-1, not -1 (intIn)
		v, err := p.U32.intIn(-(1 << 31), 1<<32-1)
		if err != nil {
			return Arg{}, fmt.Errorf("u32 %q out of range", p.U32.Text)
		}
		return U32(uint32(v)), nil
	case p.S32 != nil:
		v, err := p.S32.intIn(-(1 << 31), 1<<31-1)
		if err != nil {
			return Arg{}, fmt.Errorf("s32 %q out of range", p.S32.Text)
		}
		return S32(int32(v)), nil
	case p.U64 != nil:
		v, err := p.U64.intIn(math.MinInt64, math.MaxUint64)
		if err != nil {
			return Arg{}, fmt.Errorf("u64 %q out of range", p.U64.Text)
		}
		return U64(v), nil
	case p.F32 != nil:
		f, err := p.F32.Float()
		if err != nil {
			return Arg{}, err
		}
		return F32(float32(f)), nil
	case p.F64 != nil:
		f, err := p.F64.Float()
		if err != nil {
			return Arg{}, err
		}
		return F64(f), nil
	case p.Tex != nil:
		return Tex(*p.Tex), nil
	case p.Surf != nil:
		return Surf(*p.Surf), nil
	}
	return Ptr(*p.Ptr), nil
}

// Check checks the launch file's expectations on a run's result (whose
// Buffers say where the buffers went); dir is the launch file's directory.
func (l *Launch) Check(dir string, r *Result) (int, error) {
	return (&Setup{Launch: l, Dir: dir, Buffers: r.Buffers}).Check(r)
}

// OutputBytes returns the bytes one of the launch file's outputs asks for.
func (l *Launch) OutputBytes(o Output, r *Result) ([]byte, error) {
	return (&Setup{Launch: l, Buffers: r.Buffers}).OutputBytes(o, r)
}
