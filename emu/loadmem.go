package emu

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

// region is a memory image or buffer on its way into memory: its size is
// known (declared, or the file's) before anything is allocated, and its
// bytes are read straight into place, so a launch's memory exists once.
type region struct {
	addr uint64
	n    uint64 // bytes
	path string // file to read the first bytes from ("": none)
	data []byte // the file's bytes, when it had to be read early (a pipe)
	fill byte   // for what the file does not cover
}

// maxSharedImageEnd bounds shared memory images before the architecture is
// known: no architecture has more shared memory per block.
const maxSharedImageEnd = 64 << 10

// regionOf sizes a memory image or buffer: bytes when given (a longer file
// is cut, a shorter one filled), else the file's size, which must be at most
// limit. Nothing is read from a regular file yet.
func (l *Launch) regionOf(dir, file string, size, fill Num, limit uint64) (region, error) {
	var r region
	if fill.Set() {
		f, _ := fill.Uint(256)
		r.fill = byte(f)
	}
	if size.Set() {
		n, err := size.Uint(MaxMemory + 1)
		if err != nil {
			return r, err
		}
		if n > limit {
			return r, &overLimit{n}
		}
		r.n = n
	}
	if file == "" {
		return r, nil
	}
	r.path = file
	if !filepath.IsAbs(r.path) {
		r.path = filepath.Join(dir, file)
	}
	fsz, err := safeio.Size(r.path)
	if err != nil {
		return r, err
	}
	switch {
	case size.Set():
		// read when placed: the first n bytes
	case fsz >= 0:
		if uint64(fsz) > limit {
			return r, &overLimit{uint64(fsz)}
		}
		r.n = uint64(fsz)
	default: // a pipe or device: its size is what it holds
		if r.data, err = safeio.ReadFile(r.path, int64(limit)); err != nil {
			return r, err
		}
		r.n = uint64(len(r.data))
	}
	return r, nil
}

// overLimit is a region larger than where it goes allows.
type overLimit struct{ n uint64 }

func (e *overLimit) Error() string { return fmt.Sprintf("%#x bytes is too large", e.n) }

// writeTo fills dst (len(dst) == r.n) with the region's bytes: the file's
// first bytes, then the fill.
func (r *region) writeTo(dst []byte) error {
	got := 0
	switch {
	case r.data != nil:
		got = copy(dst, r.data)
	case r.path != "":
		var err error
		if got, err = safeio.ReadPrefix(r.path, dst); err != nil {
			return err
		}
	}
	tail := dst[got:]
	if r.fill == 0 {
		clear(tail)
		return nil
	}
	for i := range tail {
		tail[i] = r.fill
	}
	return nil
}

// bytes reads the region into a new slice (shared and constant images,
// which are small).
func (r *region) bytes() ([]byte, error) {
	b := make([]byte, r.n)
	return b, r.writeTo(b)
}

// farSegments lays out images at or above MaxMemory: each spans its image
// rounded out to SegmentAlign, images whose spans touch share one, later
// images overwrite earlier ones. Sizes are checked before anything is
// allocated.
func farSegments(far []region) ([]Segment, error) {
	if len(far) == 0 {
		return nil, nil
	}
	type span struct{ lo, hi uint64 }
	spans := make([]span, len(far))
	for i, f := range far {
		hi := f.addr + f.n
		spans[i] = span{f.addr &^ (SegmentAlign - 1), (hi + SegmentAlign - 1) &^ (SegmentAlign - 1)}
		if spans[i].hi < hi || hi < f.addr { // rounding wrapped: the image reaches the top of the address space
			spans[i].hi = 0
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var merged []span
	for _, sp := range spans {
		if n := len(merged); n > 0 && (merged[n-1].hi == 0 || sp.lo <= merged[n-1].hi) {
			if merged[n-1].hi != 0 && (sp.hi == 0 || sp.hi > merged[n-1].hi) {
				merged[n-1].hi = sp.hi
			}
			continue
		}
		merged = append(merged, sp)
	}
	var total uint64
	for _, sp := range merged {
		n := sp.hi - sp.lo // 2^64 - lo when hi wrapped to 0
		if total += n; n > MaxMemory || total > MaxMemory {
			return nil, fmt.Errorf("global memory images above %#x need more than %#x bytes", uint64(MaxMemory), uint64(MaxMemory))
		}
	}
	segs := make([]Segment, len(merged))
	for i, sp := range merged {
		segs[i] = Segment{Addr: sp.lo, Data: make([]byte, sp.hi-sp.lo)}
	}
	for _, f := range far {
		// the last segment starting at or below the image holds it
		j := sort.Search(len(segs), func(j int) bool { return segs[j].Addr > f.addr }) - 1
		off := f.addr - segs[j].Addr
		if err := f.writeTo(segs[j].Data[off : off+f.n]); err != nil {
			return nil, err
		}
	}
	return segs, nil
}

// imageRoom is the global memory the launch's textures and surfaces will
// take after the dense region (their texels, alignment and descriptor
// tables), reserved as capacity so that placing them copies nothing.
func (l *Launch) imageRoom() uint64 {
	var room uint64
	for _, m := range []map[string]Image{l.Textures, l.Surfaces} {
		for _, im := range m {
			if im.Buffer != "" {
				continue
			}
			if n, err := ImageBytes(im); err == nil {
				room += n + 256
			}
		}
	}
	if room == 0 {
		return 0
	}
	n := uint64(len(l.Textures) + len(l.Surfaces) + 1)
	return min(room+n*0x60+512, MaxMemory)
}

// placeGlobal allocates the dense region of end bytes (with room for the
// textures) and reads the images and buffers into it in order.
func (s *Setup) placeGlobal(end uint64, globals []region) error {
	size := (end + 255) &^ 255
	s.Global = make([]byte, size, size+s.Launch.imageRoom())
	for _, g := range globals {
		if err := g.writeTo(s.Global[g.addr : g.addr+g.n]); err != nil {
			return err
		}
	}
	return nil
}
