package maxwell

import (
	"encoding/binary"
	"fmt"

	"gpuisa/isa"
)

// BundleSize is the size of a control word and its three instructions.
const BundleSize = 32

// Disassemble appends the listing `nvdisasm -b SMxx -hex -novliw` prints for
// raw code loaded at base: a .headerflags line, each control word as a bare
// /* 0x... */ line and each instruction as "/*addr*/ TEXT ; /* 0xHEX */".
// Words nvdisasm rejects are listed as ".word 0x..." and reported in errs
// (nvdisasm itself prints no listing then). A tail shorter than a bundle is
// reported as truncated.
func Disassemble(dst []byte, code []byte, base uint64, sm int) ([]byte, []*isa.DecodeError) {
	var errs []*isa.DecodeError
	n := len(code) / BundleSize
	// Pass 1: the texts, so every line can be padded to the widest one.
	texts := make([]byte, 0, n*3*40)
	ends := make([]uint32, 0, n*3)
	lead := make([]uint8, 0, n*3) // guard length ("@!P0 " is 5)
	maxw := 0
	for b := 0; b < n; b++ {
		bundle := code[b*BundleSize:]
		ctrl := binary.LittleEndian.Uint64(bundle)
		for s := 0; s < 3; s++ {
			addr := base + uint64(b*BundleSize+8+8*s)
			w := binary.LittleEndian.Uint64(bundle[8+8*s:])
			inst, err := Decode(w, CtrlField(ctrl, s), sm)
			start := len(texts)
			var g int
			if err != nil {
				errs = append(errs, decodeError(err, addr))
				texts = append(texts, ".word "...)
				texts = isa.AppendHexNum(texts, w)
			} else {
				texts = appendGuard(texts, inst)
				g = len(texts) - start
				texts = appendBody(texts, inst, addr)
			}
			// nvdisasm pads every line to the widest guard+text, though the guard
			// itself hangs left of the mnemonic column
			if l := len(texts) - start; l > maxw {
				maxw = l
			}
			ends = append(ends, uint32(len(texts)))
			lead = append(lead, uint8(g))
		}
	}
	dst = fmt.Appendf(dst, "\t.headerflags    @\"EF_CUDA_SM%d EF_CUDA_PTX_SM(EF_CUDA_SM%d)\"\n", sm, sm)
	width := maxw + 2
	start := 0
	for b := 0; b < n; b++ {
		bundle := code[b*BundleSize:]
		// as wide as the bundle's first instruction line
		addrLen := 8
		for a := (base + uint64(b*BundleSize+8)) >> 16; a != 0; a >>= 4 {
			addrLen++
		}
		dst = blanks(dst, 8+addrLen+19+width)
		dst = append(dst, "/* 0x"...)
		dst = isa.AppendHex(dst, binary.LittleEndian.Uint64(bundle), 16)
		dst = append(dst, " */\n"...)
		for s := 0; s < 3; s++ {
			i := b*3 + s
			addr := base + uint64(b*BundleSize+8+8*s)
			text := texts[start:ends[i]]
			start = int(ends[i])
			g := int(lead[i])
			dst = blanks(dst, 8)
			dst = isa.AppendAddr(dst, addr)
			dst = blanks(dst, 19-g)
			dst = append(dst, text...)
			dst = blanks(dst, width-(len(text)-g))
			dst = append(dst, "/* 0x"...)
			dst = isa.AppendHex(dst, binary.LittleEndian.Uint64(bundle[8+8*s:]), 16)
			dst = append(dst, " */\n"...)
		}
	}
	if rest := len(code) % BundleSize; rest != 0 {
		errs = append(errs, &isa.DecodeError{Addr: base + uint64(n*BundleSize), Len: rest, Err: isa.ErrTruncated,
			Detail: "Unaligned instruction found"})
	}
	return dst, errs
}

func blanks(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// Archs returns the registry entries for sm_50, sm_52 and sm_53.
func Archs() []isa.Arch {
	var out []isa.Arch
	for _, sm := range []int{50, 52, 53} {
		sm := sm
		out = append(out, isa.Arch{
			Name:      fmt.Sprintf("sm_%d", sm),
			ISA:       "maxwell",
			SMVersion: sm,
			Disassemble: func(dst, code []byte, base uint64) ([]byte, []*isa.DecodeError) {
				return Disassemble(dst, code, base, sm)
			},
			Assemble: func(filename string, src []byte) ([]byte, error) {
				return Assemble(filename, src, sm)
			},
		})
	}
	return out
}
