// Package fatbin extracts the images of NVIDIA fat binaries: the containers
// (magic 0xBA55ED50) that `fatbinary` writes and nvcc embeds in host
// executables, holding cubins (ELF) and PTX for several architectures.
//
// Usage:
//
//	entries, err := fatbin.Extract(data) // a .fatbin, or a host ELF with .nv_fatbin
//	for _, e := range entries {
//		if e.Kind == fatbin.KindELF {
//			f, err := cubin.Parse(e.Payload)
//			...
//		}
//	}
//
// The layout facts below were established by building fatbins with CUDA 11.8
// fatbinary and reading them back with cuobjdump.
package fatbin

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/safeio"
)

// Magic starts every fatbin container (little-endian u32).
const Magic = 0xBA55ED50

// Kind says what an entry holds.
type Kind uint16

const (
	KindPTX Kind = 1 // PTX text
	KindELF Kind = 2 // a cubin
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "PTX"
	case KindELF:
		return "ELF"
	}
	return fmt.Sprintf("kind%d", uint16(k))
}

// Entry flags (Entry.Flags), as fatbinary sets them.
const (
	Flag64Bit      = 0x1    // 64-bit host code (fatbinary --64)
	FlagDebug      = 0x2    // debug compile (fatbinary -g)
	FlagLinux      = 0x10   // host is Linux
	FlagCompressed = 0x2000 // payload is LZ4-compressed
)

// Entry is one image of a fatbin.
type Entry struct {
	Offset       int64  // byte offset of the entry header in the input
	Kind         Kind   // KindELF or KindPTX
	SM           int    // architecture: 52 for sm_52 (ELF) or compute_52 (PTX)
	Major, Minor uint16 // format version: 1.7 for ELF images, the PTX ISA version (7.8) for PTX
	Flags        uint64 // Flag64Bit, FlagDebug, FlagLinux, FlagCompressed, ...
	Name         string // identifier (fatbinary --ident), often empty
	Options      string // compiler options recorded for the image (fatbinary --cmdline)
	Compressed   bool   // the stored payload was LZ4-compressed; Payload is decompressed
	// Payload is the image: a cubin, or PTX text without its NUL padding.
	// It aliases the input unless the entry was compressed.
	Payload []byte
}

// ErrFormat is wrapped by every *FormatError.
var ErrFormat = errors.New("malformed fatbin")

// ErrNoFatbin: the input is neither a fatbin container nor an ELF file
// carrying one (.nv_fatbin / __nv_fatbin section).
var ErrNoFatbin = errors.New("no fatbin found")

// FormatError reports malformed input at a byte offset.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string { return fmt.Sprintf("fatbin: offset 0x%x: %s", e.Off, e.Msg) }

// Unwrap makes errors.Is(err, ErrFormat) true.
func (e *FormatError) Unwrap() error { return ErrFormat }

// errAt is the FormatError at off; names read from the file may hold any
// bytes, so the message is made printable on one line.
func errAt(off uint64, format string, args ...any) error {
	return &FormatError{Off: int64(off), Msg: safeio.Printable(fmt.Sprintf(format, args...))}
}

const (
	containerHeaderSize = 16
	entryHeaderSize     = 64
)

// Extract returns the entries of a fatbin container, of several containers
// laid one after the other, or of the containers in the .nv_fatbin or
// __nv_fatbin sections of a host ELF file. Compressed payloads are
// decompressed. Every size field is checked against the input, so a
// malformed file gives a *FormatError naming the byte offset.
func Extract(data []byte) ([]Entry, error) {
	le := binary.LittleEndian
	room := decompressRoom(len(data))
	if len(data) >= 4 && le.Uint32(data) == Magic {
		return extractContainers(data, 0, &room)
	}
	if len(data) >= 4 && string(data[:4]) == "\x7fELF" {
		f, err := cubin.ParseELF(data)
		if err != nil {
			return nil, err
		}
		if f.Machine == cubin.EMCUDA {
			return nil, fmt.Errorf("%w: the input is a cubin (EM_CUDA ELF), not a fatbin", ErrNoFatbin)
		}
		var out []Entry
		found := false
		for _, s := range f.Sections {
			if (s.Name != ".nv_fatbin" && s.Name != "__nv_fatbin") || s.Data == nil {
				continue
			}
			found = true
			es, err := extractContainers(s.Data, s.Offset, &room)
			if err != nil {
				return nil, err
			}
			out = append(out, es...)
		}
		if !found {
			return nil, fmt.Errorf("%w: ELF file has no .nv_fatbin or __nv_fatbin section", ErrNoFatbin)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: input starts with neither the fatbin magic 0x%08x nor an ELF header", ErrNoFatbin, uint32(Magic))
}

// extractContainers reads consecutive containers from b, which sits at file
// offset base. Zero padding between containers is skipped.
func extractContainers(b []byte, base uint64, room *uint64) ([]Entry, error) {
	le := binary.LittleEndian
	var out []Entry
	n := uint64(len(b))
	for off := uint64(0); off < n; {
		if b[off] == 0 { // padding up to the next container
			off++
			continue
		}
		if n-off < containerHeaderSize {
			return nil, errAt(base+off, "fatbin header truncated: %d bytes left, need %d", n-off, containerHeaderSize)
		}
		if m := le.Uint32(b[off:]); m != Magic {
			return nil, errAt(base+off, "bad fatbin magic 0x%08x (want 0x%08x)", m, uint32(Magic))
		}
		hsize := uint64(le.Uint16(b[off+6:]))
		fatSize := le.Uint64(b[off+8:])
		if hsize < containerHeaderSize || hsize > n-off {
			return nil, errAt(base+off+6, "fatbin header size %d out of range [%d, %d]", hsize, containerHeaderSize, n-off)
		}
		if fatSize > n-off-hsize {
			return nil, errAt(base+off+8, "fatbin size 0x%x runs past the end of the data (0x%x bytes left)", fatSize, n-off-hsize)
		}
		body := b[off+hsize : off+hsize+fatSize]
		for e := uint64(0); e < fatSize; {
			ent, next, err := parseEntry(body, e, base+off+hsize, room)
			if err != nil {
				return nil, err
			}
			out = append(out, ent)
			e = next
		}
		off += hsize + fatSize
	}
	return out, nil
}

// parseEntry reads the entry at e in body (which sits at file offset base)
// and returns it with the offset of the next entry.
//
// Entry header (little-endian): u16 kind, u16 (0x0101), u32 header size,
// u64 payload size (padded), u32 compressed size, u32 offset of an options
// descriptor (u32 offset, u32 size, relative to the entry), u16 minor,
// u16 major, u32 arch, u32 name offset, u32 name size, u64 flags, u64 0,
// u64 decompressed size.
func parseEntry(body []byte, e, base uint64, room *uint64) (Entry, uint64, error) {
	le := binary.LittleEndian
	n := uint64(len(body))
	at := base + e
	if n-e < entryHeaderSize {
		return Entry{}, 0, errAt(at, "fatbin entry header truncated: %d bytes left, need %d", n-e, entryHeaderSize)
	}
	h := body[e:]
	hsize := uint64(le.Uint32(h[4:]))
	psize := le.Uint64(h[8:])
	if hsize < entryHeaderSize || hsize > n-e {
		return Entry{}, 0, errAt(at+4, "entry header size %d out of range [%d, %d]", hsize, entryHeaderSize, n-e)
	}
	if psize > n-e-hsize {
		return Entry{}, 0, errAt(at+8, "entry payload size 0x%x runs past the end of the fatbin (0x%x bytes left)", psize, n-e-hsize)
	}
	ent := Entry{
		Offset: int64(at),
		Kind:   Kind(le.Uint16(h)),
		Minor:  le.Uint16(h[0x18:]),
		Major:  le.Uint16(h[0x1a:]),
		SM:     int(le.Uint32(h[0x1c:])),
		Flags:  le.Uint64(h[0x28:]),
	}
	hdr := h[:hsize]
	// a string inside the entry header, given by offset and size
	str := func(fieldAt, off, size uint64) (string, error) {
		if off == 0 && size == 0 {
			return "", nil
		}
		if off > hsize || size > hsize-off {
			return "", errAt(at+fieldAt, "string [0x%x, +%d) outside the entry header (%d bytes)", off, size, hsize)
		}
		s := hdr[off : off+size]
		for len(s) > 0 && s[len(s)-1] == 0 {
			s = s[:len(s)-1]
		}
		return string(s), nil
	}
	var err error
	if ent.Name, err = str(0x20, uint64(le.Uint32(h[0x20:])), uint64(le.Uint32(h[0x24:]))); err != nil {
		return Entry{}, 0, err
	}
	if od := uint64(le.Uint32(h[0x14:])); od != 0 {
		if od > hsize || hsize-od < 8 {
			return Entry{}, 0, errAt(at+0x14, "options descriptor at 0x%x outside the entry header (%d bytes)", od, hsize)
		}
		if ent.Options, err = str(od, uint64(le.Uint32(hdr[od:])), uint64(le.Uint32(hdr[od+4:]))); err != nil {
			return Entry{}, 0, err
		}
	}
	payload := body[e+hsize : e+hsize+psize]
	if ent.Flags&FlagCompressed != 0 {
		csize := uint64(le.Uint32(h[0x10:]))
		dsize := le.Uint64(h[0x38:])
		if csize == 0 || csize > psize {
			return Entry{}, 0, errAt(at+0x10, "compressed size 0x%x out of range (payload 0x%x bytes)", csize, psize)
		}
		if err := checkRatio(csize, dsize, room); err != nil {
			return Entry{}, 0, errAt(at+0x38, "%v", err)
		}
		out, err := decompressLZ4(payload[:csize], dsize)
		if err != nil {
			var de *lz4Error
			if errors.As(err, &de) {
				return Entry{}, 0, errAt(base+e+hsize+uint64(de.off), "compressed payload: %s", de.msg)
			}
			return Entry{}, 0, err
		}
		ent.Compressed, payload = true, out
	}
	if ent.Kind == KindPTX {
		for len(payload) > 0 && payload[len(payload)-1] == 0 {
			payload = payload[:len(payload)-1]
		}
	}
	ent.Payload = payload
	return ent, e + hsize + psize, nil
}
