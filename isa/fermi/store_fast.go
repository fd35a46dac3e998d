//go:build (386 || amd64 || arm64 || loong64 || ppc64le || riscv64 || wasm) && !purego

package fermi

import "unsafe"

// st64 stores the 8 bytes of w at b[p:], least significant first: a
// slice store (binary.LittleEndian.PutUint64(b[p:], w)) costs about ten
// instructions of checks, this one bounds check (p < len(b); withRoom's
// slack holds the rest).
func st64(b []byte, p int, w uint64) {
	*(*uint64)(unsafe.Pointer(&b[p])) = w
}

// ld64 loads the 8 bytes at b[p:] (p+8 <= len(b)), least significant
// first.
func ld64(b []byte, p int) uint64 {
	_ = b[p+7]
	return *(*uint64)(unsafe.Pointer(&b[p]))
}
