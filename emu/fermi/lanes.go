package fermi

import (
	"math"
	"unsafe"
)

// Lane loops of the instructions real kernels run most, unrolled by eight
// over the lanes seen as 4 groups of 8 (so that no index needs a bounds
// check, and the loop's own cost is paid 4 times, not 32): the compiler
// neither unrolls nor vectorizes. Each writes every lane of r; r may be
// one of the sources (lane l reads its sources before it writes). Shift
// amounts are masked to 5 bits where the caller guarantees the range, so
// that each shift is one instruction.

type quads = [8][4]uint32

func qd(x *lanes) *quads { return (*quads)(unsafe.Pointer(x)) }

type octs = [4][8]uint32

func od(x *lanes) *octs { return (*octs)(unsafe.Pointer(x)) }

// copyLanes is *dst = *src (the same row or rows that do not overlap) in
// eight 16-byte moves: the compiler calls memmove for a 128-byte copy.
func copyLanes(dst, src *lanes) {
	d, s := qd(dst), qd(src)
	d[0] = s[0]
	d[1] = s[1]
	d[2] = s[2]
	d[3] = s[3]
	d[4] = s[4]
	d[5] = s[5]
	d[6] = s[6]
	d[7] = s[7]
}

func addLanes(r, a, b *lanes) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = qa[g][0] + qb[g][0]
		qr[g][1] = qa[g][1] + qb[g][1]
		qr[g][2] = qa[g][2] + qb[g][2]
		qr[g][3] = qa[g][3] + qb[g][3]
		qr[g][4] = qa[g][4] + qb[g][4]
		qr[g][5] = qa[g][5] + qb[g][5]
		qr[g][6] = qa[g][6] + qb[g][6]
		qr[g][7] = qa[g][7] + qb[g][7]
	}
}

// subLanes is a - b.
func subLanes(r, a, b *lanes) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = qa[g][0] - qb[g][0]
		qr[g][1] = qa[g][1] - qb[g][1]
		qr[g][2] = qa[g][2] - qb[g][2]
		qr[g][3] = qa[g][3] - qb[g][3]
		qr[g][4] = qa[g][4] - qb[g][4]
		qr[g][5] = qa[g][5] - qb[g][5]
		qr[g][6] = qa[g][6] - qb[g][6]
		qr[g][7] = qa[g][7] - qb[g][7]
	}
}

func add3Lanes(r, a, b, c *lanes) {
	qr, qa, qb, qc := od(r), od(a), od(b), od(c)
	for g := range qr {
		qr[g][0] = qa[g][0] + qb[g][0] + qc[g][0]
		qr[g][1] = qa[g][1] + qb[g][1] + qc[g][1]
		qr[g][2] = qa[g][2] + qb[g][2] + qc[g][2]
		qr[g][3] = qa[g][3] + qb[g][3] + qc[g][3]
		qr[g][4] = qa[g][4] + qb[g][4] + qc[g][4]
		qr[g][5] = qa[g][5] + qb[g][5] + qc[g][5]
		qr[g][6] = qa[g][6] + qb[g][6] + qc[g][6]
		qr[g][7] = qa[g][7] + qb[g][7] + qc[g][7]
	}
}

// scaddLanes is a<<sh + b.
func scaddLanes(r, a, b *lanes, sh uint8) {
	qr, qa, qb := od(r), od(a), od(b)
	sh &= 31
	for g := range qr {
		qr[g][0] = qa[g][0]<<sh + qb[g][0]
		qr[g][1] = qa[g][1]<<sh + qb[g][1]
		qr[g][2] = qa[g][2]<<sh + qb[g][2]
		qr[g][3] = qa[g][3]<<sh + qb[g][3]
		qr[g][4] = qa[g][4]<<sh + qb[g][4]
		qr[g][5] = qa[g][5]<<sh + qb[g][5]
		qr[g][6] = qa[g][6]<<sh + qb[g][6]
		qr[g][7] = qa[g][7]<<sh + qb[g][7]
	}
}

// addImmLanes is a + v.
func addImmLanes(r, a *lanes, v uint32) {
	qr, qa := od(r), od(a)
	for g := range qr {
		qr[g][0] = qa[g][0] + v
		qr[g][1] = qa[g][1] + v
		qr[g][2] = qa[g][2] + v
		qr[g][3] = qa[g][3] + v
		qr[g][4] = qa[g][4] + v
		qr[g][5] = qa[g][5] + v
		qr[g][6] = qa[g][6] + v
		qr[g][7] = qa[g][7] + v
	}
}

// rsubImmLanes is v - a.
func rsubImmLanes(r, a *lanes, v uint32) {
	qr, qa := od(r), od(a)
	for g := range qr {
		qr[g][0] = v - qa[g][0]
		qr[g][1] = v - qa[g][1]
		qr[g][2] = v - qa[g][2]
		qr[g][3] = v - qa[g][3]
		qr[g][4] = v - qa[g][4]
		qr[g][5] = v - qa[g][5]
		qr[g][6] = v - qa[g][6]
		qr[g][7] = v - qa[g][7]
	}
}

// scaddImmLanes is a<<sh + v.
func scaddImmLanes(r, a *lanes, v uint32, sh uint8) {
	qr, qa := od(r), od(a)
	sh &= 31
	for g := range qr {
		qr[g][0] = qa[g][0]<<sh + v
		qr[g][1] = qa[g][1]<<sh + v
		qr[g][2] = qa[g][2]<<sh + v
		qr[g][3] = qa[g][3]<<sh + v
		qr[g][4] = qa[g][4]<<sh + v
		qr[g][5] = qa[g][5]<<sh + v
		qr[g][6] = qa[g][6]<<sh + v
		qr[g][7] = qa[g][7]<<sh + v
	}
}

// andImmLanes, orImmLanes and xorImmLanes combine a^na and v.
func andImmLanes(r, a *lanes, na, v uint32) {
	qr, qa := od(r), od(a)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) & v
		qr[g][1] = (qa[g][1] ^ na) & v
		qr[g][2] = (qa[g][2] ^ na) & v
		qr[g][3] = (qa[g][3] ^ na) & v
		qr[g][4] = (qa[g][4] ^ na) & v
		qr[g][5] = (qa[g][5] ^ na) & v
		qr[g][6] = (qa[g][6] ^ na) & v
		qr[g][7] = (qa[g][7] ^ na) & v
	}
}

func orImmLanes(r, a *lanes, na, v uint32) {
	qr, qa := od(r), od(a)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) | v
		qr[g][1] = (qa[g][1] ^ na) | v
		qr[g][2] = (qa[g][2] ^ na) | v
		qr[g][3] = (qa[g][3] ^ na) | v
		qr[g][4] = (qa[g][4] ^ na) | v
		qr[g][5] = (qa[g][5] ^ na) | v
		qr[g][6] = (qa[g][6] ^ na) | v
		qr[g][7] = (qa[g][7] ^ na) | v
	}
}

func xorImmLanes(r, a *lanes, na, v uint32) {
	qr, qa := od(r), od(a)
	v ^= na
	for g := range qr {
		qr[g][0] = qa[g][0] ^ v
		qr[g][1] = qa[g][1] ^ v
		qr[g][2] = qa[g][2] ^ v
		qr[g][3] = qa[g][3] ^ v
		qr[g][4] = qa[g][4] ^ v
		qr[g][5] = qa[g][5] ^ v
		qr[g][6] = qa[g][6] ^ v
		qr[g][7] = qa[g][7] ^ v
	}
}

// fillLanes is v in every lane.
func fillLanes(r *lanes, v uint32) {
	qr := od(r)
	for g := range qr {
		qr[g][0] = v
		qr[g][1] = v
		qr[g][2] = v
		qr[g][3] = v
		qr[g][4] = v
		qr[g][5] = v
		qr[g][6] = v
		qr[g][7] = v
	}
}

func shlLanes(r, a *lanes, n uint32) {
	qr, qa := od(r), od(a)
	n &= 31
	for g := range qr {
		qr[g][0] = qa[g][0] << n
		qr[g][1] = qa[g][1] << n
		qr[g][2] = qa[g][2] << n
		qr[g][3] = qa[g][3] << n
		qr[g][4] = qa[g][4] << n
		qr[g][5] = qa[g][5] << n
		qr[g][6] = qa[g][6] << n
		qr[g][7] = qa[g][7] << n
	}
}

func shrLanes(r, a *lanes, n uint32) {
	qr, qa := od(r), od(a)
	n &= 31
	for g := range qr {
		qr[g][0] = qa[g][0] >> n
		qr[g][1] = qa[g][1] >> n
		qr[g][2] = qa[g][2] >> n
		qr[g][3] = qa[g][3] >> n
		qr[g][4] = qa[g][4] >> n
		qr[g][5] = qa[g][5] >> n
		qr[g][6] = qa[g][6] >> n
		qr[g][7] = qa[g][7] >> n
	}
}

func sarLanes(r, a *lanes, n uint32) {
	qr, qa := od(r), od(a)
	n &= 31
	for g := range qr {
		qr[g][0] = uint32(int32(qa[g][0]) >> n)
		qr[g][1] = uint32(int32(qa[g][1]) >> n)
		qr[g][2] = uint32(int32(qa[g][2]) >> n)
		qr[g][3] = uint32(int32(qa[g][3]) >> n)
		qr[g][4] = uint32(int32(qa[g][4]) >> n)
		qr[g][5] = uint32(int32(qa[g][5]) >> n)
		qr[g][6] = uint32(int32(qa[g][6]) >> n)
		qr[g][7] = uint32(int32(qa[g][7]) >> n)
	}
}

// andLanes, orLanes and xorLanes combine a^na and b^nb (na, nb: 0, or all
// ones for an inverted source).
func andLanes(r, a, b *lanes, na, nb uint32) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) & (qb[g][0] ^ nb)
		qr[g][1] = (qa[g][1] ^ na) & (qb[g][1] ^ nb)
		qr[g][2] = (qa[g][2] ^ na) & (qb[g][2] ^ nb)
		qr[g][3] = (qa[g][3] ^ na) & (qb[g][3] ^ nb)
		qr[g][4] = (qa[g][4] ^ na) & (qb[g][4] ^ nb)
		qr[g][5] = (qa[g][5] ^ na) & (qb[g][5] ^ nb)
		qr[g][6] = (qa[g][6] ^ na) & (qb[g][6] ^ nb)
		qr[g][7] = (qa[g][7] ^ na) & (qb[g][7] ^ nb)
	}
}

func orLanes(r, a, b *lanes, na, nb uint32) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) | (qb[g][0] ^ nb)
		qr[g][1] = (qa[g][1] ^ na) | (qb[g][1] ^ nb)
		qr[g][2] = (qa[g][2] ^ na) | (qb[g][2] ^ nb)
		qr[g][3] = (qa[g][3] ^ na) | (qb[g][3] ^ nb)
		qr[g][4] = (qa[g][4] ^ na) | (qb[g][4] ^ nb)
		qr[g][5] = (qa[g][5] ^ na) | (qb[g][5] ^ nb)
		qr[g][6] = (qa[g][6] ^ na) | (qb[g][6] ^ nb)
		qr[g][7] = (qa[g][7] ^ na) | (qb[g][7] ^ nb)
	}
}

func xorLanes(r, a, b *lanes, na, nb uint32) {
	qr, qa, qb := od(r), od(a), od(b)
	n := na ^ nb
	for g := range qr {
		qr[g][0] = qa[g][0] ^ qb[g][0] ^ n
		qr[g][1] = qa[g][1] ^ qb[g][1] ^ n
		qr[g][2] = qa[g][2] ^ qb[g][2] ^ n
		qr[g][3] = qa[g][3] ^ qb[g][3] ^ n
		qr[g][4] = qa[g][4] ^ qb[g][4] ^ n
		qr[g][5] = qa[g][5] ^ qb[g][5] ^ n
		qr[g][6] = qa[g][6] ^ qb[g][6] ^ n
		qr[g][7] = qa[g][7] ^ qb[g][7] ^ n
	}
}

// madLanes is a*b + c (the low word).
func madLanes(r, a, b, c *lanes) {
	qr, qa, qb, qc := od(r), od(a), od(b), od(c)
	for g := range qr {
		qr[g][0] = qa[g][0]*qb[g][0] + qc[g][0]
		qr[g][1] = qa[g][1]*qb[g][1] + qc[g][1]
		qr[g][2] = qa[g][2]*qb[g][2] + qc[g][2]
		qr[g][3] = qa[g][3]*qb[g][3] + qc[g][3]
		qr[g][4] = qa[g][4]*qb[g][4] + qc[g][4]
		qr[g][5] = qa[g][5]*qb[g][5] + qc[g][5]
		qr[g][6] = qa[g][6]*qb[g][6] + qc[g][6]
		qr[g][7] = qa[g][7]*qb[g][7] + qc[g][7]
	}
}

func mulLanes(r, a, b *lanes) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = qa[g][0] * qb[g][0]
		qr[g][1] = qa[g][1] * qb[g][1]
		qr[g][2] = qa[g][2] * qb[g][2]
		qr[g][3] = qa[g][3] * qb[g][3]
		qr[g][4] = qa[g][4] * qb[g][4]
		qr[g][5] = qa[g][5] * qb[g][5]
		qr[g][6] = qa[g][6] * qb[g][6]
		qr[g][7] = qa[g][7] * qb[g][7]
	}
}

// selLanes is a where bit l of p is set, else b.
func selLanes(r, a, b *lanes, p uint32) {
	qr, qa, qb := od(r), od(a), od(b)
	for g := range qr {
		qr[g][0] = qb[g][0] ^ (qa[g][0]^qb[g][0])&-(p&1)
		qr[g][1] = qb[g][1] ^ (qa[g][1]^qb[g][1])&-(p>>1&1)
		qr[g][2] = qb[g][2] ^ (qa[g][2]^qb[g][2])&-(p>>2&1)
		qr[g][3] = qb[g][3] ^ (qa[g][3]^qb[g][3])&-(p>>3&1)
		qr[g][4] = qb[g][4] ^ (qa[g][4]^qb[g][4])&-(p>>4&1)
		qr[g][5] = qb[g][5] ^ (qa[g][5]^qb[g][5])&-(p>>5&1)
		qr[g][6] = qb[g][6] ^ (qa[g][6]^qb[g][6])&-(p>>6&1)
		qr[g][7] = qb[g][7] ^ (qa[g][7]^qb[g][7])&-(p>>7&1)
		p >>= 8
	}
}

// blendLanes writes the lanes of mask of r into row.
func blendLanes(row, r *lanes, mask uint32) {
	qw, qr := od(row), od(r)
	for g := range qw {
		qw[g][0] ^= (qw[g][0] ^ qr[g][0]) & -(mask & 1)
		qw[g][1] ^= (qw[g][1] ^ qr[g][1]) & -(mask >> 1 & 1)
		qw[g][2] ^= (qw[g][2] ^ qr[g][2]) & -(mask >> 2 & 1)
		qw[g][3] ^= (qw[g][3] ^ qr[g][3]) & -(mask >> 3 & 1)
		qw[g][4] ^= (qw[g][4] ^ qr[g][4]) & -(mask >> 4 & 1)
		qw[g][5] ^= (qw[g][5] ^ qr[g][5]) & -(mask >> 5 & 1)
		qw[g][6] ^= (qw[g][6] ^ qr[g][6]) & -(mask >> 6 & 1)
		qw[g][7] ^= (qw[g][7] ^ qr[g][7]) & -(mask >> 7 & 1)
		mask >>= 8
	}
}

// ltLanes is the lanes where a < b after flipping the sign bits by flip
// (0x80000000 orders signed words as unsigned ones): where the 64-bit
// difference is negative. Each lane's bit enters at the top and moves
// down, to bit l at the end.
func ltLanes(a, b *lanes, flip uint32) uint32 {
	if flip == 0 {
		return ltLanesU(a, b)
	}
	qa, qb := od(a), od(b)
	f := uint64(flip)
	var t uint64
	for g := range qa {
		d0 := (uint64(qa[g][0]) ^ f) - (uint64(qb[g][0]) ^ f)
		d1 := (uint64(qa[g][1]) ^ f) - (uint64(qb[g][1]) ^ f)
		d2 := (uint64(qa[g][2]) ^ f) - (uint64(qb[g][2]) ^ f)
		d3 := (uint64(qa[g][3]) ^ f) - (uint64(qb[g][3]) ^ f)
		d4 := (uint64(qa[g][4]) ^ f) - (uint64(qb[g][4]) ^ f)
		d5 := (uint64(qa[g][5]) ^ f) - (uint64(qb[g][5]) ^ f)
		d6 := (uint64(qa[g][6]) ^ f) - (uint64(qb[g][6]) ^ f)
		d7 := (uint64(qa[g][7]) ^ f) - (uint64(qb[g][7]) ^ f)
		t = t>>8 | d0>>63<<24 | d1>>63<<25 | d2>>63<<26 | d3>>63<<27 | d4>>63<<28 | d5>>63<<29 | d6>>63<<30 | d7>>63<<31
	}
	return uint32(t)
}

// ltLanesU is ltLanes of unsigned words (no sign to flip).
func ltLanesU(a, b *lanes) uint32 {
	qa, qb := od(a), od(b)
	var t uint64
	for g := range qa {
		d0 := uint64(qa[g][0]) - uint64(qb[g][0])
		d1 := uint64(qa[g][1]) - uint64(qb[g][1])
		d2 := uint64(qa[g][2]) - uint64(qb[g][2])
		d3 := uint64(qa[g][3]) - uint64(qb[g][3])
		d4 := uint64(qa[g][4]) - uint64(qb[g][4])
		d5 := uint64(qa[g][5]) - uint64(qb[g][5])
		d6 := uint64(qa[g][6]) - uint64(qb[g][6])
		d7 := uint64(qa[g][7]) - uint64(qb[g][7])
		t = t>>8 | d0>>63<<24 | d1>>63<<25 | d2>>63<<26 | d3>>63<<27 | d4>>63<<28 | d5>>63<<29 | d6>>63<<30 | d7>>63<<31
	}
	return uint32(t)
}

// eqLanes is the lanes where a == b: where a^b minus one, in 64 bits, is
// negative.
func eqLanes(a, b *lanes) uint32 {
	qa, qb := od(a), od(b)
	var t uint64
	for g := range qa {
		d0 := uint64(qa[g][0]^qb[g][0]) - 1
		d1 := uint64(qa[g][1]^qb[g][1]) - 1
		d2 := uint64(qa[g][2]^qb[g][2]) - 1
		d3 := uint64(qa[g][3]^qb[g][3]) - 1
		d4 := uint64(qa[g][4]^qb[g][4]) - 1
		d5 := uint64(qa[g][5]^qb[g][5]) - 1
		d6 := uint64(qa[g][6]^qb[g][6]) - 1
		d7 := uint64(qa[g][7]^qb[g][7]) - 1
		t = t>>8 | d0>>63<<24 | d1>>63<<25 | d2>>63<<26 | d3>>63<<27 | d4>>63<<28 | d5>>63<<29 | d6>>63<<30 | d7>>63<<31
	}
	return uint32(t)
}

// cmpLanes is the lanes where a cmp b holds (the icmp table: F LT EQ LE GT
// NE GE T), each comparison in one pass.
func cmpLanes(c uint8, a, b *lanes, flip uint32) uint32 {
	switch c & 7 {
	case 1:
		return ltLanes(a, b, flip)
	case 2:
		return eqLanes(a, b)
	case 3:
		return ^ltLanes(b, a, flip)
	case 4:
		return ltLanes(b, a, flip)
	case 5:
		return ^eqLanes(a, b)
	case 6:
		return ^ltLanes(a, b, flip)
	case 7:
		return ^uint32(0)
	}
	return 0
}

// fcmpLanes is the lanes where the relation of a and b as floats (fcmpRel's
// bits: 1 less, 2 equal, 4 greater, 8 unordered) is one of sel's. With
// the unordered bit, the answer is the complement of the ordered test of
// the other relations; each ordered test is one comparison per lane.
func fcmpLanes(a, b *lanes, sel uint8) uint32 {
	if sel&8 != 0 {
		return ^fcmpOrdered(a, b, 7&^sel)
	}
	return fcmpOrdered(a, b, sel)
}

func fcmpOrdered(a, b *lanes, sel uint8) uint32 {
	qa, qb := od(a), od(b)
	f := math.Float32frombits
	var t uint32
	switch sel {
	case 0:
	case 1:
		for g := range qa {
			x, y := &qa[g], &qb[g]
			t = t>>8 | b2u(f(x[0]) < f(y[0]))<<24 | b2u(f(x[1]) < f(y[1]))<<25 | b2u(f(x[2]) < f(y[2]))<<26 | b2u(f(x[3]) < f(y[3]))<<27 | b2u(f(x[4]) < f(y[4]))<<28 | b2u(f(x[5]) < f(y[5]))<<29 | b2u(f(x[6]) < f(y[6]))<<30 | b2u(f(x[7]) < f(y[7]))<<31
		}
	case 2:
		for g := range qa {
			x, y := &qa[g], &qb[g]
			t = t>>8 | b2u(f(x[0]) == f(y[0]))<<24 | b2u(f(x[1]) == f(y[1]))<<25 | b2u(f(x[2]) == f(y[2]))<<26 | b2u(f(x[3]) == f(y[3]))<<27 | b2u(f(x[4]) == f(y[4]))<<28 | b2u(f(x[5]) == f(y[5]))<<29 | b2u(f(x[6]) == f(y[6]))<<30 | b2u(f(x[7]) == f(y[7]))<<31
		}
	case 3:
		for g := range qa {
			x, y := &qa[g], &qb[g]
			t = t>>8 | b2u(f(x[0]) <= f(y[0]))<<24 | b2u(f(x[1]) <= f(y[1]))<<25 | b2u(f(x[2]) <= f(y[2]))<<26 | b2u(f(x[3]) <= f(y[3]))<<27 | b2u(f(x[4]) <= f(y[4]))<<28 | b2u(f(x[5]) <= f(y[5]))<<29 | b2u(f(x[6]) <= f(y[6]))<<30 | b2u(f(x[7]) <= f(y[7]))<<31
		}
	case 4:
		for g := range qa {
			x, y := &qa[g], &qb[g]
			t = t>>8 | b2u(f(x[0]) > f(y[0]))<<24 | b2u(f(x[1]) > f(y[1]))<<25 | b2u(f(x[2]) > f(y[2]))<<26 | b2u(f(x[3]) > f(y[3]))<<27 | b2u(f(x[4]) > f(y[4]))<<28 | b2u(f(x[5]) > f(y[5]))<<29 | b2u(f(x[6]) > f(y[6]))<<30 | b2u(f(x[7]) > f(y[7]))<<31
		}
	case 6:
		for g := range qa {
			x, y := &qa[g], &qb[g]
			t = t>>8 | b2u(f(x[0]) >= f(y[0]))<<24 | b2u(f(x[1]) >= f(y[1]))<<25 | b2u(f(x[2]) >= f(y[2]))<<26 | b2u(f(x[3]) >= f(y[3]))<<27 | b2u(f(x[4]) >= f(y[4]))<<28 | b2u(f(x[5]) >= f(y[5]))<<29 | b2u(f(x[6]) >= f(y[6]))<<30 | b2u(f(x[7]) >= f(y[7]))<<31
		}
	default: // 5 (less or greater), 7 (ordered)
		for l := range a {
			x, y := f(a[l]), f(b[l])
			rel := b2u(x < y) | b2u(x == y)<<1 | b2u(x > y)<<2
			t = t>>1 | b2u(rel&uint32(sel) != 0)<<31
		}
	}
	return t
}
