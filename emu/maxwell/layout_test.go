package maxwell

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// sharedKernel stores three words at 0x80..0x88 of shared memory, loads
// them back with ptxas's vectorised LDS.U.128 [0x80] (16 bytes: past a
// 0x8c-byte allocation, inside its 256-byte granule) and stores the four
// words it read; then it reads shared memory at c[0x0][0x148].
const sharedKernel = `S2R R0, SR_TID.X ;
MOV32I R1, 0x11 ;
MOV32I R2, 0x22 ;
MOV32I R3, 0x33 ;
STS [0x80], R1 ;
STS [0x84], R2 ;
STS [0x88], R3 ;
LDS.U.128 R4, [0x80] ;
MOV R8, c[0x0][0x148] ;
LDS R9, [R8] ;
SHL R10, R0, 0x4 ;
IADD R2.CC, R10, c[0x0][0x140] ;
IADD.X R3, RZ, c[0x0][0x144] ;
STG.E.128 [R2], R4 ;
EXIT ;
`

// TestSharedGranule: a block's shared memory is allocated in 256-byte
// granules, so the 16-byte load at the end of a 0x8c-byte allocation
// returns the three stored words (and zero past them), while an access past
// the granule faults.
func TestSharedGranule(t *testing.T) {
	r := run{program: []byte(sharedKernel), arch: "sm_52", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
		shared: 0x8c, args: []arg{make([]byte, 16*32), uint32(0xfc)}}
	res, err := r.exec(t)
	if err != nil {
		t.Fatal(err)
	}
	got := u32s(res.bufs[0])
	for l := range 32 {
		if w := got[4*l : 4*l+4]; w[0] != 0x11 || w[1] != 0x22 || w[2] != 0x33 || w[3] != 0 {
			t.Fatalf("thread %d read %#x", l, w)
		}
	}
	r.args[1] = uint32(0x100) // the first byte past the granule
	_, err = r.exec(t)
	var mf *emu.MemFault
	if !errors.As(err, &mf) || mf.Space != emu.Shared || mf.Addr != 0x100 || mf.Limit != 0x100 {
		t.Fatalf("got %v, want a shared fault at 0x100 (size 0x100)", err)
	}
}

// TestLocalRounded: the per-thread local memory is a whole number of
// 16-byte units.
func TestLocalRounded(t *testing.T) {
	s := &emu.Setup{Arch: "sm_52", Grid: emu.Dim3{1, 1, 1}, Block: emu.Dim3{32, 1, 1}, Buffers: map[string]emu.BufferPlace{}, LocalBytes: 0x8c}
	img, err := ProgramImage("k", []byte("STL [R1], RZ ;\nEXIT ;\n"), "k", "sm_52")
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKernel(s, img)
	if err != nil {
		t.Fatal(err)
	}
	if k.LocalBytes != 0x90 {
		t.Errorf("local bytes %#x, want 0x90", k.LocalBytes)
	}
}

// TestFaultNamesBuffer: a global fault names the device address the kernel
// computed, the buffer it falls in or next to, and the offset.
func TestFaultNamesBuffer(t *testing.T) {
	prog := ownCubin(t, "sm_52")
	for _, c := range []struct {
		index uint32
		want  []string
	}{
		{1 << 20, []string{"device address 0x1_00", `bytes past the end of buffer "b1" (4 bytes`, "LDG.E"}},
		{15, []string{"device address 0x1_0000010f", `offset 0xf of buffer "b0" (64 bytes)`, "misaligned"}},
	} {
		r := run{program: prog, arch: "sm_52", kernel: "loadat", grid: emu.Dim3{1, 1, 1}, block: emu.Dim3{32, 1, 1},
			args: []arg{make([]byte, 64), make([]byte, 4), c.index}}
		_, err := r.exec(t)
		var mf *emu.MemFault
		if !errors.As(err, &mf) || !mf.HasDevice || mf.Buffer == "" {
			t.Fatalf("index %#x: got %v, want a located global fault", c.index, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("index %#x: %q does not mention %q", c.index, err, w)
			}
		}
	}
}

func TestNearestBuffer(t *testing.T) {
	l := placeList(map[string]emu.BufferPlace{"a": {Addr: 0x100, Bytes: 0x10}, "b": {Addr: 0x200, Bytes: 0x100}, "z": {Addr: 0x400}})
	for _, c := range []struct {
		addr uint64
		name string
	}{{0, "a"}, {0x100, "a"}, {0x10f, "a"}, {0x110, "a"}, {0x187, "a"}, {0x189, "b"}, {0x2ff, "b"}, {0x300, "b"}, {0x3ff, "z"}, {0x400, "z"}, {1 << 40, "z"}} {
		if b, _ := nearest(l, c.addr); b.name != c.name {
			t.Errorf("%#x: %s, want %s", c.addr, b.name, c.name)
		}
	}
}
