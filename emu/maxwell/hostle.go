//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package maxwell

// hostLE: device memory (little-endian bytes) may be read and written in
// place as host words.
const hostLE = true
