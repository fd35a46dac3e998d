//go:build !(386 || amd64 || arm64 || loong64 || ppc64le || riscv64 || wasm) || purego

package fermi

import "encoding/binary"

// st64 stores the 8 bytes of w at b[p:], least significant first (into
// withRoom's slack past len(b) when p is near the end).
func st64(b []byte, p int, w uint64) {
	binary.LittleEndian.PutUint64(b[p:p+8], w)
}

// ld64 loads the 8 bytes at b[p:] (p+8 <= len(b)), least significant
// first.
func ld64(b []byte, p int) uint64 {
	return binary.LittleEndian.Uint64(b[p : p+8])
}
