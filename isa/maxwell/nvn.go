package maxwell

import (
	"bytes"
	"strconv"
)

// NVN annotations (`gpuisa dis -nvn`): what seed 004 says constant banks and
// attribute addresses mean in shaders built for NVN (Tegra X1).
//
// Every listing line with a c[...] or a[...] operand gets one comment at its
// end, after the hex column, one clause per operand, separated by "; ":
//
//	/*0008*/ MOV R4, c[0x3][0x10] ;   /* 0x... */ // c[0x3][0x10]: UBO 0 +0x10
//	/*0010*/ IPA R5, a[0x84], R4 ;    /* 0x... */ // a[0x84]: GENERIC_ATTRIBUTE_00_Y
//
// Constant banks: c[0x0] driver constants, c[0x1] immediate constants,
// c[0x2] bound resources (texture/sampler, image, texture-only and
// sampler-only bindings by offset, 8 bytes each), c[0x3]..c[0x10] user
// uniform buffers (UBO 0..13) and c[0x11] reserved by the driver.
// Attributes: generic vectors 0..31 at 0x80..0x27f
// (GENERIC_ATTRIBUTE_NN_X..W) and the fixed-function names below. Operands
// nothing is known about get no clause; lines without clauses are unchanged.

// AnnotateNVN appends listing with NVN comments added to its lines.
func AnnotateNVN(dst, listing []byte) []byte {
	for len(listing) > 0 {
		line := listing
		rest := []byte(nil)
		if i := bytes.IndexByte(listing, '\n'); i >= 0 {
			line, rest = listing[:i], listing[i+1:]
		}
		dst = append(dst, line...)
		dst = appendNVNComment(dst, line)
		if rest != nil || len(line) < len(listing) {
			dst = append(dst, '\n')
		}
		listing = rest
	}
	return dst
}

// appendNVNComment appends " // ..." for the operands of one listing line.
func appendNVNComment(dst, line []byte) []byte {
	// only the instruction text: before the hex comment, after the address
	text := line
	if i := bytes.Index(text, []byte("/* 0x")); i >= 0 {
		text = text[:i]
	}
	if i := bytes.Index(text, []byte("*/")); i >= 0 && bytes.HasPrefix(bytes.TrimLeft(text, " \t"), []byte("/*")) {
		text = text[i+2:]
	}
	n := 0
	for k := 0; k+2 < len(text); k++ {
		if (text[k] != 'c' && text[k] != 'a') || text[k+1] != '[' || k > 0 && isIdent(text[k-1]) {
			continue
		}
		end := operandEnd(text, k)
		if end < 0 {
			continue
		}
		op := text[k:end]
		var clause []byte
		if text[k] == 'c' {
			clause = nvnConst(op)
		} else {
			clause = nvnAttr(op)
		}
		if clause == nil {
			continue
		}
		if n == 0 {
			dst = append(dst, " // "...)
		} else {
			dst = append(dst, "; "...)
		}
		dst = append(dst, op...)
		dst = append(dst, ": "...)
		dst = append(dst, clause...)
		n++
		k = end - 1
	}
	return dst
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// operandEnd returns the index after the operand c[..][..] or a[..] at k.
func operandEnd(text []byte, k int) int {
	i := k + 1
	brackets := 1
	if text[k] == 'c' {
		brackets = 2
	}
	for b := 0; b < brackets; b++ {
		if i >= len(text) || text[i] != '[' {
			return -1
		}
		j := bytes.IndexByte(text[i:], ']')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	return i
}

// hexIn parses the "0x..." ending s (the offset part of an index), with ok
// false when there is none.
func hexIn(s []byte) (uint64, bool) {
	i := bytes.LastIndex(s, []byte("0x"))
	if i < 0 {
		return 0, false
	}
	if i > 0 && s[i-1] == '-' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[i+2:]), 16, 64)
	return v, err == nil
}

// nvnConst describes c[bank][offset].
func nvnConst(op []byte) []byte {
	j := bytes.IndexByte(op, ']')
	bankText, offText := op[2:j], op[j+2:len(op)-1]
	bank, ok := hexIn(bankText)
	if !ok || !bytes.HasPrefix(bankText, []byte("0x")) {
		return nil
	}
	off, ok := hexIn(offText)
	plain := ok && bytes.HasPrefix(offText, []byte("0x")) // no register index
	switch {
	case bank == 0:
		return []byte("driver constants")
	case bank == 1:
		return []byte("immediate constants")
	case bank == 2:
		if !plain {
			return []byte("bound resources")
		}
		return boundResource(off)
	case bank >= 3 && bank <= 0x10:
		b := strconv.AppendUint([]byte("UBO "), bank-3, 10)
		return append(append(b, " +"...), offText...)
	case bank == 0x11:
		return []byte("reserved by the driver")
	}
	return nil
}

// boundResource names an offset of c[0x2].
func boundResource(off uint64) []byte {
	binding := func(what string, base uint64) []byte {
		b := append([]byte(what), ' ')
		b = strconv.AppendUint(b, (off-base)/8, 10)
		if r := (off - base) % 8; r != 0 {
			b = append(b, " +"...)
			b = strconv.AppendUint(b, r, 10)
		}
		return b
	}
	switch {
	case off >= 0x20 && off < 0x120:
		return binding("texture/sampler binding", 0x20)
	case off >= 0x120 && off < 0x160:
		return binding("image binding", 0x120)
	case off >= 0x168 && off < 0x568:
		return binding("texture binding", 0x168)
	case off >= 0x568 && off < 0x668:
		return binding("sampler binding", 0x568)
	}
	return []byte("bound resources (reserved)")
}

// fixedAttrs names the fixed-function attribute words, by address/4 (an
// array, set up with no code at start-up; "" where a word has no name).
var fixedAttrs = [0x400 >> 2]string{
	0x000 >> 2: "TESS_LOD_LEFT", 0x004 >> 2: "TESS_LOD_RIGHT", 0x008 >> 2: "TESS_LOD_TOP", 0x00c >> 2: "TESS_LOD_BOTTOM",
	0x010 >> 2: "TESS_INTERIOR_U", 0x014 >> 2: "TESS_INTERIOR_V",
	0x060 >> 2: "PRIMITIVE_ID", 0x064 >> 2: "LAYER", 0x068 >> 2: "VIEWPORT_INDEX", 0x06c >> 2: "POINT_SIZE",
	0x070 >> 2: "POSITION_X", 0x074 >> 2: "POSITION_Y", 0x078 >> 2: "POSITION_Z", 0x07c >> 2: "POSITION_W",
	0x2e0 >> 2: "POINT_SPRITE_S", 0x2e4 >> 2: "POINT_SPRITE_T", 0x2e8 >> 2: "FOG_COORDINATE",
	0x2f0 >> 2: "TESS_COORD_U", 0x2f4 >> 2: "TESS_COORD_V", 0x2f8 >> 2: "INSTANCE_ID", 0x2fc >> 2: "VERTEX_ID",
	0x3a0 >> 2: "VIEWPORT_MASK", 0x3fc >> 2: "FRONT_FACE",
}

// nvnAttr describes a[address] (a[Rn+address] names the attribute at address).
func nvnAttr(op []byte) []byte {
	a, ok := hexIn(op[2 : len(op)-1])
	if !ok {
		return nil
	}
	comp := "XYZW"[a>>2&3]
	switch {
	case a >= 0x80 && a < 0x280:
		b := []byte("GENERIC_ATTRIBUTE_")
		n := (a - 0x80) / 16
		b = append(b, byte('0'+n/10), byte('0'+n%10), '_', comp)
		return b
	case a >= 0x280 && a < 0x2c0:
		names := [4]string{"COLOR_FRONT_DIFFUSE", "COLOR_FRONT_SPECULAR", "COLOR_BACK_DIFFUSE", "COLOR_BACK_SPECULAR"}
		return append([]byte(names[(a-0x280)/16]+"_"), "RGBA"[a>>2&3])
	case a >= 0x2c0 && a < 0x2e0:
		return append([]byte("CLIP_DISTANCE_"), byte('0'+(a-0x2c0)/4))
	case a >= 0x300 && a < 0x3a0:
		b := strconv.AppendUint([]byte("FIXED_FNC_TEXTURE_"), (a-0x300)/16, 10)
		return append(b, '_', "STRQ"[a>>2&3])
	}
	if a < 0x400 && fixedAttrs[a>>2] != "" {
		return []byte(fixedAttrs[a>>2])
	}
	return nil
}
