package maxwell

import (
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// instRun runs instruction texts once per test vector: thread i loads
// in[i] into R4..R11 (in: whole blocks of 256 vectors) (predicates P0..P6 from R11's low bits when setPreds,
// the carry flag clear), runs body, and stores R12..R15 (R15 gets the
// predicates P0..P6 and the carry in bit 7 when keepPreds). The emulator
// reads the body as our assembler encodes it, so this checks the decoded
// operands and the semantics together.
type instRun struct {
	body      string
	setPreds  bool
	keepPreds bool
	params    []uint32 // after the two buffers: c[0x0][0x150], ...
}

func (ir instRun) exec(t testing.TB, in [][8]uint32) [][4]uint32 {
	t.Helper()
	var src strings.Builder
	src.WriteString(`S2R R0, SR_CTAID.X ;
S2R R1, SR_TID.X ;
ISCADD R0, R0, R1, 0x8 ;
SHL R1, R0, 0x5 ;
IADD R2.CC, R1, c[0x0][0x140] ;
IADD.X R3, RZ, c[0x0][0x144] ;
LDG.E.128 R4, [R2] ;
LDG.E.128 R8, [R2+0x10] ;
SHL R1, R0, 0x4 ;
MOV R12, RZ ;
MOV R13, RZ ;
MOV R14, RZ ;
MOV R15, RZ ;
`)
	if ir.setPreds {
		src.WriteString("R2P PR, R11, 0x7f ;\n")
	}
	src.WriteString("IADD RZ.CC, RZ, RZ ;\n") // carry clear
	src.WriteString(ir.body + "\n")
	if ir.keepPreds {
		src.WriteString("P2R R15, PR, RZ, 0x7f ;\nIADD.X R2, RZ, RZ ;\nISCADD R15, R2, R15, 0x7 ;\n")
	}
	src.WriteString(`IADD R2.CC, R1, c[0x0][0x148] ;
IADD.X R3, RZ, c[0x0][0x14c] ;
STG.E.128 [R2], R12 ;
EXIT ;
`)
	n := len(in)
	buf := make([]byte, 32*n)
	for i, v := range in {
		copy(buf[32*i:], fromU32(v[:]))
	}
	const block = 256 // the thread index is ctaid.x*256 + tid.x
	grid := n / block
	if grid*block != n || n == 0 {
		t.Fatalf("%d vectors: not a multiple of %d", n, block)
	}
	r := run{program: []byte(src.String()), arch: "sm_52", grid: emu.Dim3{uint32(grid), 1, 1}, block: emu.Dim3{uint32(block), 1, 1},
		args: []arg{buf, make([]byte, 16*n)}}
	for _, p := range ir.params {
		r.args = append(r.args, p)
	}
	res, err := r.exec(t)
	if err != nil {
		t.Fatalf("%s: %v", ir.body, err)
	}
	w := u32s(res.bufs[1])
	out := make([][4]uint32, n)
	for i := range out {
		copy(out[i][:], w[4*i:])
	}
	return out
}

// pad256 repeats vectors up to a multiple of 256 (whole blocks).
func pad256(v [][8]uint32) [][8]uint32 {
	n := len(v)
	for i := 0; len(v)%256 != 0 || len(v) < 256; i++ {
		v = append(v, v[i%n])
	}
	return v
}

// TestIADD3Forms runs every IADD3 form (registers with .H0/.H1 and
// negation, .RS/.LS, .X/.CC; constants; immediates, negative ones that
// nvdisasm prints as their raw field, and .NEG ones) against Go
// arithmetic.
func TestIADD3Forms(t *testing.T) {
	vals := []uint32{0, 1, 2, 0x10, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff0, 0x12345678, 0xdeadbeef, 0xffff, 0x10000}
	var in [][8]uint32
	for _, a := range vals {
		for _, b := range vals {
			in = append(in, [8]uint32{a, b, a ^ b})
		}
	}
	in = pad256(in)
	h := func(v uint32, sel int) uint32 { // .H0/.H1: a half, zero-extended
		switch sel {
		case 1:
			return v & 0xffff
		case 2:
			return v >> 16
		}
		return v
	}
	cases := []struct {
		body string
		ref  func(a, b, c uint32) (uint32, uint32) // result, carry
	}{
		{"IADD3 R12, R4, R5, R6 ;", func(a, b, c uint32) (uint32, uint32) { return a + b + c, 0 }},
		{"IADD3 R12, -R4, R5, -R6 ;", func(a, b, c uint32) (uint32, uint32) { return -a + b - c, 0 }},
		{"IADD3 R12, R4.H1, R5.H0, R6 ;", func(a, b, c uint32) (uint32, uint32) { return h(a, 2) + h(b, 1) + c, 0 }},
		{"IADD3.RS R12, R4, R5, R6 ;", func(a, b, c uint32) (uint32, uint32) {
			s := uint64(a) + uint64(b)
			return uint32(s>>16) + c, 0
		}},
		{"IADD3.LS R12, R4, R5, R6 ;", func(a, b, c uint32) (uint32, uint32) { return (a+b)<<16 + c, 0 }},
		{"IADD3 R12, R4, 0xffff0, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a - 16 + b, 0 }},
		{"IADD3 R12, R4, 0xfffeb, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a - 21 + b, 0 }},
		{"IADD3 R12, R4, 0x7ffff, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a + 0x7ffff + b, 0 }},
		{"IADD3 R12, R4, 0x80000, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a - 0x80000 + b, 0 }},
		{"IADD3 R12, R4, 0x10.NEG, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a - 16 + b, 0 }},
		{"IADD3 R12, R4, 0xffff0.NEG, R5 ;", func(a, b, c uint32) (uint32, uint32) { return a + 16 + b, 0 }},
		{"IADD3 R12, -R4, 0x3, -R5 ;", func(a, b, c uint32) (uint32, uint32) { return -a + 3 - b, 0 }},
		{"IADD3 R12, R4, c[0x0][0x150], R5 ;", func(a, b, c uint32) (uint32, uint32) { return a + 0xfffffffd + b, 0 }},
		{"IADD3 R12, R4, -c[0x0][0x150], R5 ;", func(a, b, c uint32) (uint32, uint32) { return a + 3 + b, 0 }},
		// the carry out of a.CC and into .X
		{"IADD3 R12.CC, R4, R5, R6 ;\nIADD3.X R13, RZ, RZ, RZ ;", func(a, b, c uint32) (uint32, uint32) {
			s := uint64(a) + uint64(b) + uint64(c)
			return uint32(s), uint32(s >> 32)
		}},
		{"IADD3 R12.CC, R4, 0xffff0, R5 ;\nIADD3.X R13, RZ, RZ, RZ ;", func(a, b, c uint32) (uint32, uint32) {
			s := uint64(a) + uint64(0xfffffff0) + uint64(b)
			return uint32(s), uint32(s >> 32)
		}},
	}
	for _, c := range cases {
		// c[0x0][0x150] is the third parameter word: -3
		out := instRun{body: c.body, params: []uint32{0xfffffffd}}.exec(t, in)
		for i, v := range in {
			want, carry := c.ref(v[0], v[1], v[2])
			if out[i][0] != want || strings.Contains(c.body, ".X") && out[i][1] != carry {
				t.Errorf("%s with a=%#x b=%#x c=%#x: got %#x (carry %d), want %#x (carry %d)", c.body, v[0], v[1], v[2],
					out[i][0], out[i][1], want, carry)
				break
			}
		}
	}
}
