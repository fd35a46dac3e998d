package fermi

import "unsafe"

// Lane loops of the instructions real kernels run most, unrolled by four
// over the lanes seen as 8 groups of 4 (so that no index needs a bounds
// check): the compiler neither unrolls nor vectorizes. Each writes every
// lane of r; r may be one of the sources (lane l reads its sources before
// it writes).

type quads = [8][4]uint32

func qd(x *lanes) *quads { return (*quads)(unsafe.Pointer(x)) }

func addLanes(r, a, b *lanes) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = qa[g][0] + qb[g][0]
		qr[g][1] = qa[g][1] + qb[g][1]
		qr[g][2] = qa[g][2] + qb[g][2]
		qr[g][3] = qa[g][3] + qb[g][3]
	}
}

// subLanes is a - b.
func subLanes(r, a, b *lanes) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = qa[g][0] - qb[g][0]
		qr[g][1] = qa[g][1] - qb[g][1]
		qr[g][2] = qa[g][2] - qb[g][2]
		qr[g][3] = qa[g][3] - qb[g][3]
	}
}

func add3Lanes(r, a, b, c *lanes) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	qc := qd(c)
	for g := range qr {
		qr[g][0] = qa[g][0] + qb[g][0] + qc[g][0]
		qr[g][1] = qa[g][1] + qb[g][1] + qc[g][1]
		qr[g][2] = qa[g][2] + qb[g][2] + qc[g][2]
		qr[g][3] = qa[g][3] + qb[g][3] + qc[g][3]
	}
}

// scaddLanes is a<<sh + b.
func scaddLanes(r, a, b *lanes, sh uint8) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = qa[g][0]<<sh + qb[g][0]
		qr[g][1] = qa[g][1]<<sh + qb[g][1]
		qr[g][2] = qa[g][2]<<sh + qb[g][2]
		qr[g][3] = qa[g][3]<<sh + qb[g][3]
	}
}

func shlLanes(r, a *lanes, n uint32) {
	qr := qd(r)
	qa := qd(a)
	for g := range qr {
		qr[g][0] = qa[g][0] << n
		qr[g][1] = qa[g][1] << n
		qr[g][2] = qa[g][2] << n
		qr[g][3] = qa[g][3] << n
	}
}

func shrLanes(r, a *lanes, n uint32) {
	qr := qd(r)
	qa := qd(a)
	for g := range qr {
		qr[g][0] = qa[g][0] >> n
		qr[g][1] = qa[g][1] >> n
		qr[g][2] = qa[g][2] >> n
		qr[g][3] = qa[g][3] >> n
	}
}

func sarLanes(r, a *lanes, n uint32) {
	qr := qd(r)
	qa := qd(a)
	for g := range qr {
		qr[g][0] = uint32(int32(qa[g][0]) >> n)
		qr[g][1] = uint32(int32(qa[g][1]) >> n)
		qr[g][2] = uint32(int32(qa[g][2]) >> n)
		qr[g][3] = uint32(int32(qa[g][3]) >> n)
	}
}

// andLanes, orLanes and xorLanes combine a^na and b^nb (na, nb: 0, or all
// ones for an inverted source).
func andLanes(r, a, b *lanes, na, nb uint32) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) & (qb[g][0] ^ nb)
		qr[g][1] = (qa[g][1] ^ na) & (qb[g][1] ^ nb)
		qr[g][2] = (qa[g][2] ^ na) & (qb[g][2] ^ nb)
		qr[g][3] = (qa[g][3] ^ na) & (qb[g][3] ^ nb)
	}
}

func orLanes(r, a, b *lanes, na, nb uint32) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = (qa[g][0] ^ na) | (qb[g][0] ^ nb)
		qr[g][1] = (qa[g][1] ^ na) | (qb[g][1] ^ nb)
		qr[g][2] = (qa[g][2] ^ na) | (qb[g][2] ^ nb)
		qr[g][3] = (qa[g][3] ^ na) | (qb[g][3] ^ nb)
	}
}

func xorLanes(r, a, b *lanes, na, nb uint32) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = qa[g][0] ^ na ^ qb[g][0] ^ nb
		qr[g][1] = qa[g][1] ^ na ^ qb[g][1] ^ nb
		qr[g][2] = qa[g][2] ^ na ^ qb[g][2] ^ nb
		qr[g][3] = qa[g][3] ^ na ^ qb[g][3] ^ nb
	}
}

// madLanes is a*b + c (the low word).
func madLanes(r, a, b, c *lanes) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	qc := qd(c)
	for g := range qr {
		qr[g][0] = qa[g][0]*qb[g][0] + qc[g][0]
		qr[g][1] = qa[g][1]*qb[g][1] + qc[g][1]
		qr[g][2] = qa[g][2]*qb[g][2] + qc[g][2]
		qr[g][3] = qa[g][3]*qb[g][3] + qc[g][3]
	}
}

func mulLanes(r, a, b *lanes) {
	qr := qd(r)
	qa := qd(a)
	qb := qd(b)
	for g := range qr {
		qr[g][0] = qa[g][0] * qb[g][0]
		qr[g][1] = qa[g][1] * qb[g][1]
		qr[g][2] = qa[g][2] * qb[g][2]
		qr[g][3] = qa[g][3] * qb[g][3]
	}
}

// selLanes is a where bit l of p is set, else b.
func selLanes(r, a, b *lanes, p uint32) {
	qr, qa, qb := qd(r), qd(a), qd(b)
	for g := range qr {
		qr[g][0] = qb[g][0] ^ (qa[g][0]^qb[g][0])&-(p&1)
		qr[g][1] = qb[g][1] ^ (qa[g][1]^qb[g][1])&-(p>>1&1)
		qr[g][2] = qb[g][2] ^ (qa[g][2]^qb[g][2])&-(p>>2&1)
		qr[g][3] = qb[g][3] ^ (qa[g][3]^qb[g][3])&-(p>>3&1)
		p >>= 4
	}
}

// blendLanes writes the lanes of mask of r into row.
func blendLanes(row, r *lanes, mask uint32) {
	qw, qr := qd(row), qd(r)
	for g := range qw {
		qw[g][0] ^= (qw[g][0] ^ qr[g][0]) & -(mask & 1)
		qw[g][1] ^= (qw[g][1] ^ qr[g][1]) & -(mask >> 1 & 1)
		qw[g][2] ^= (qw[g][2] ^ qr[g][2]) & -(mask >> 2 & 1)
		qw[g][3] ^= (qw[g][3] ^ qr[g][3]) & -(mask >> 3 & 1)
		mask >>= 4
	}
}

// cmpLanes is the lanes where a < b and where a == b, after flipping the
// sign bits by flip (0x80000000 orders signed words as unsigned ones). A
// 64-bit difference is negative when a < b, and its low word minus one
// (in 64 bits) when a == b; each lane's bits enter at the top and move
// down, to bit l at the end.
func cmpLanes(a, b *lanes, flip uint32) (lt, eq uint32) {
	qa, qb := qd(a), qd(b)
	f := uint64(flip)
	var l64, e64 uint64
	for g := range qa {
		d0 := (uint64(qa[g][0]) ^ f) - (uint64(qb[g][0]) ^ f)
		d1 := (uint64(qa[g][1]) ^ f) - (uint64(qb[g][1]) ^ f)
		d2 := (uint64(qa[g][2]) ^ f) - (uint64(qb[g][2]) ^ f)
		d3 := (uint64(qa[g][3]) ^ f) - (uint64(qb[g][3]) ^ f)
		l64 = l64>>4 | d0>>63<<28 | d1>>63<<29 | d2>>63<<30 | d3>>63<<31
		e64 = e64>>4 | (uint64(uint32(d0))-1)>>63<<28 | (uint64(uint32(d1))-1)>>63<<29 |
			(uint64(uint32(d2))-1)>>63<<30 | (uint64(uint32(d3))-1)>>63<<31
	}
	return uint32(l64), uint32(e64)
}
