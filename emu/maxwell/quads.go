package maxwell

import "unsafe"

// The hottest lane loops (fused 64-bit adds, memory address checks) run
// over a row seen as 8 groups of 4 lanes, unrolled by hand: the compiler
// neither unrolls nor vectorizes, and constant indices need no bounds
// checks.

type quads = [8][4]uint32

func qd(x *lanes) *quads { return (*quads)(unsafe.Pointer(x)) }

// lanePairs is a row seen as 4 groups of 4 words of two lanes each: a word's low half is
// its even lane on a little-endian host (hostLE); the address checks
// compare two lanes at a time.
type lanePairs = [4][4]uint64

func pr(x *lanes) *lanePairs { return (*lanePairs)(unsafe.Pointer(x)) }

// rowBytes is the 128 bytes at the start of b (len(b) >= 128) as a row:
// the in-place copy of a coalesced 32-bit access, on a little-endian host.
func rowBytes(b []byte) *lanes { return (*lanes)(unsafe.Pointer(unsafe.SliceData(b[:128]))) }

// gather reads lane l's word at data[addrs[l]:] in place (every offset
// checked: aligned, in bounds).
func gather(r *lanes, data []byte, addrs *[32]uint64) {
	p := unsafe.Pointer(unsafe.SliceData(data))
	for l := 0; l <= 28; l += 4 {
		r[l] = *(*uint32)(unsafe.Add(p, addrs[l]))
		r[l+1] = *(*uint32)(unsafe.Add(p, addrs[l+1]))
		r[l+2] = *(*uint32)(unsafe.Add(p, addrs[l+2]))
		r[l+3] = *(*uint32)(unsafe.Add(p, addrs[l+3]))
	}
}

// scatter writes lane l's word v[l] at data[addrs[l]:] in lane order (the
// last lane's value stays where lanes meet), in place (offsets checked).
func scatter(data []byte, addrs *[32]uint64, v *lanes) {
	p := unsafe.Pointer(unsafe.SliceData(data))
	for l := 0; l <= 28; l += 4 { // 4 lanes at a time, in lane order
		*(*uint32)(unsafe.Add(p, addrs[l])) = v[l]
		*(*uint32)(unsafe.Add(p, addrs[l+1])) = v[l+1]
		*(*uint32)(unsafe.Add(p, addrs[l+2])) = v[l+2]
		*(*uint32)(unsafe.Add(p, addrs[l+3])) = v[l+3]
	}
}

// equalWords reports whether a and b (of the same length, a multiple of 8)
// hold the same words.
func equalWords(a, b []uint32) bool {
	if len(a) != len(b) || len(a)%8 != 0 {
		return false
	}
	return len(a) == 0 || !wordsDiffer(&a[0], &b[0], len(a))
}
