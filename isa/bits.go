package isa

// Field is a bit field of an instruction word: Width bits starting at bit Pos
// (bit 0 is the least significant bit of the little-endian instruction value).
type Field struct {
	Pos, Width uint8
}

// Get extracts the field from v.
func (f Field) Get(v uint64) uint64 {
	return (v >> f.Pos) & (1<<f.Width - 1)
}

// Set returns v with the field replaced by x (excess bits of x are dropped).
func (f Field) Set(v, x uint64) uint64 {
	m := uint64(1<<f.Width-1) << f.Pos
	return v&^m | (x<<f.Pos)&m
}

// Mask is the field's bits in place.
func (f Field) Mask() uint64 { return uint64(1<<f.Width-1) << f.Pos }

// Max is the largest value the field holds.
func (f Field) Max() uint64 { return 1<<f.Width - 1 }

// SplitField is a value stored in several fields, least significant part first.
type SplitField []Field

// Get assembles the value from its parts.
func (s SplitField) Get(v uint64) uint64 {
	var x uint64
	var sh uint8
	for _, f := range s {
		x |= f.Get(v) << sh
		sh += f.Width
	}
	return x
}

// Set scatters x into the parts.
func (s SplitField) Set(v, x uint64) uint64 {
	for _, f := range s {
		v = f.Set(v, x)
		x >>= f.Width
	}
	return v
}

// Width is the total number of bits.
func (s SplitField) Width() uint8 {
	var w uint8
	for _, f := range s {
		w += f.Width
	}
	return w
}

// SignExtend interprets the low width bits of x as a two's complement number.
func SignExtend(x uint64, width uint8) int64 {
	sh := 64 - width
	return int64(x<<sh) >> sh
}
