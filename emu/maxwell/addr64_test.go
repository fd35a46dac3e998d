package maxwell

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// The oracle's 14_addr64 reads 4 GiB past its buffer, so it needs global
// memory with segments far apart (emu.Memory). Its PTX stores a v2.f32 at
// out+x*64+44 and a v4 at out+x*64+16: no output pointer aligns both, so on
// the hardware every thread stops with a misaligned-address error at that
// 8-byte store (STG.E.64 [..+0x2c]), whatever the build. The tests check the
// oracle builds up to that fault (and the fault itself), and our aligned
// variant (testdata/addr64.ptx) to the end against the same reference.

// layout is global memory for a test launch: the dense region at 0 and
// segments further away, at global-memory offsets (device address minus
// GlobalBase).
type layout struct {
	dense []byte
	segs  []emu.Segment
}

// put places data at addr: in the dense region below emu.MaxMemory, else in
// a segment of its own.
func (l *layout) put(addr uint64, data []byte) {
	if addr < emu.MaxMemory {
		if need := addr + uint64(len(data)); uint64(len(l.dense)) < need {
			l.dense = append(l.dense, make([]byte, need-uint64(len(l.dense)))...)
		}
		copy(l.dense[addr:], data)
		return
	}
	l.segs = append(l.segs, emu.Segment{Addr: addr, Data: slices.Clone(data)})
	slices.SortFunc(l.segs, func(a, b emu.Segment) int { return cmp.Compare(a.Addr, b.Addr) })
}

// refMem is the reference's memory: bytes by address, independent of emu.Memory.
type refMem map[uint64]byte

func (m refMem) put(addr uint64, b []byte) {
	for i, c := range b {
		m[addr+uint64(i)] = c
	}
}

func (m refMem) get(addr uint64, n int) uint64 {
	var v uint64
	for i := range n {
		c, ok := m[addr+uint64(i)]
		if !ok {
			panic("reference reads unmapped address " + strconv.FormatUint(addr+uint64(i), 16))
		}
		v |= uint64(c) << (8 * i)
	}
	return v
}

func (m refMem) set(addr uint64, n int, v uint64) {
	for i := range n {
		m[addr+uint64(i)] = byte(v >> (8 * i))
	}
}

// addr64Launch is one launch of addr64 (the oracle's) or addr64a (ours).
type addr64Launch struct {
	base, out, stride uint64 // global-memory offsets; stride in bytes
	ci                uint32
	block             emu.Dim3
	ours              bool // addr64a: x*128, linear output slots, v2.f32 at +48
}

func (p *addr64Launch) xScale() uint64 {
	if p.ours {
		return 128
	}
	return 4
}

// addr64Thread is what one thread loads.
type addr64Thread struct {
	rd5, slot                    uint64
	r0, r1, r2, r3, r4           uint32
	r5, r6, r7, r8, r9, r10      uint32
	f0, f1                       uint32
	rd6, rd7, rd8, rd11          uint64
	r12, r13, r14, r23           uint32
	r15, r18, r19, r20, r21, r22 uint32
}

func (v *addr64Thread) sum() uint32 {
	return v.r12 + v.r13 + v.r14 + v.r15 + v.r18 + v.r19 + v.r20 + v.r21 + v.r22
}

// addr64Ref runs the kernel on m the way the emulator orders it (one of the
// orders the hardware may pick): warps one after the other; in a warp every
// load of every thread, then the generic stores, the output stores and the
// gcount update (atom.add then a store of the old value, lanes in order). It
// returns each thread's loads.
func addr64Ref(m refMem, ctab []byte, gcount uint64, p *addr64Launch) []addr64Thread {
	n := p.block.Count()
	c32 := func(off uint32) uint32 { return binary.LittleEndian.Uint32(ctab[off:]) }
	th := make([]addr64Thread, n)
	for w := 0; w < n; w += 32 {
		lanes := min(32, n-w)
		for t := w; t < w+lanes; t++ {
			x, y := uint64(t)%uint64(p.block[0]), uint64(t)/uint64(p.block[0])
			v := &th[t]
			rd5 := p.base + y*p.stride + x*p.xScale()
			v.rd5 = rd5
			u32 := func(a uint64) uint32 { return uint32(m.get(a, 4)) }
			v.r0, v.r1, v.r2, v.r3 = u32(rd5), uint32(m.get(rd5+1, 1)), uint32(m.get(rd5-2, 2)), u32(rd5+4096)
			v.r4, v.r5, v.r6, v.r7, v.r8 = u32(rd5+8), u32(rd5+12), u32(rd5+16), u32(rd5+20), u32(rd5+24)
			v.r9, v.r10, v.f0, v.f1 = u32(rd5+32), u32(rd5+36), u32(rd5+40), u32(rd5+44)
			v.rd6, v.rd7, v.rd8 = m.get(rd5+48, 8), m.get(rd5+64, 8), m.get(rd5+72, 8)
			v.rd11 = m.get(p.base+uint64(int64(int32(uint32(x)-100))*8), 8)
			v.r12, v.r13, v.r14 = u32(rd5+1<<32), u32(rd5-p.stride), uint32(m.get(p.base+(y<<12|7), 1))
			v.r15, v.r18 = c32(8), c32(p.ci&60)
			v.r19, v.r20, v.r21, v.r22 = c32(64), c32(68), c32(72), c32(76)
			v.r23 = u32(rd5)
			idx := x
			if p.ours {
				idx = uint64(t)
			}
			v.slot = p.out + idx*64
		}
		for t := w; t < w+lanes; t++ {
			m.set(th[t].rd5+4, 4, uint64(th[t].r23)) // isspacep.global holds
		}
		for t := w; t < w+lanes; t++ {
			v, o := &th[t], th[t].slot
			m.set(o, 1, uint64(v.r1))
			m.set(o+2, 2, uint64(v.r2))
			m.set(o+4, 4, uint64(v.r0))
			for i, r := range []uint32{v.r3, v.r4, v.r5, v.r6, v.r7, v.r8, v.r9, v.r10, v.sum()} {
				m.set(o+8+4*uint64(i), 4, uint64(r))
			}
			f2 := uint64(44)
			if p.ours {
				f2 = 48
			}
			m.set(o+f2, 4, uint64(v.f0))
			m.set(o+f2+4, 4, uint64(v.f1))
			m.set(o+56, 8, v.rd6+v.rd7+v.rd8+v.rd11)
		}
		g := m.get(gcount, 8)
		m.set(gcount, 8, g+uint64(lanes)-1) // lane 31's old value is stored last
	}
	return th
}

// addr64Setup builds the launch: in is the input region (base lies inside
// it), far the region 4 GiB past base's threads, out the output slots.
type addr64Setup struct {
	p                 addr64Launch
	inAt, farAt       uint64
	in, far, out, cst []byte
}

func newAddr64Setup(rng *rand.Rand, p addr64Launch, inAt uint64, inBytes, farBytes, outBytes int) *addr64Setup {
	s := &addr64Setup{p: p, inAt: inAt, farAt: p.base + 1<<32}
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	s.in, s.far, s.cst = fill(inBytes), fill(farBytes), fill(256)
	s.out = make([]byte, outBytes)
	for i := range s.out {
		s.out[i] = 0xa5
	}
	return s
}

// launch runs prog; withFar false leaves the region 4 GiB past base out.
func (s *addr64Setup) launch(t *testing.T, prog []byte, arch string, withFar bool) (*Kernel, uint64, error) {
	t.Helper()
	var l layout
	l.put(s.inAt, s.in)
	l.put(s.p.out, s.out)
	if withFar {
		l.put(s.farAt, s.far)
	}
	u64 := func(v uint64) emu.Param { return emu.Param{U64: &emu.Num{Text: strconv.FormatUint(v, 10)}} }
	ci := emu.Num{Text: strconv.FormatUint(uint64(s.p.ci), 10)}
	kernel := "addr64"
	if s.p.ours {
		kernel = "addr64a"
	}
	launch := &emu.Launch{Arch: arch, Kernel: kernel, Params: []emu.Param{
		u64(GlobalBase + s.p.base), u64(GlobalBase + s.p.out), u64(s.p.stride), {U32: &ci}}}
	st := &emu.Setup{Arch: arch, Job: jobOf(t, launch), Grid: emu.Dim3{1, 1, 1}, Block: s.p.block, Global: l.dense, GlobalSegments: l.segs}
	st.Const[3] = s.cst // ctab
	img, err := ProgramImage(kernel, prog, kernel, arch)
	if err != nil {
		t.Fatal(err)
	}
	if len(img.Relocs) == 0 {
		t.Fatal("no relocations against gcount")
	}
	k, err := NewKernel(st, img)
	if err != nil {
		t.Fatal(err)
	}
	// NewKernel puts the cubin's variables (gcount) after the dense region
	gcount := (uint64(len(st.Global))+255)&^255 + img.Relocs[0].Value
	cfg := k.Config(st, img)
	_, err = emu.Run(cfg, k)
	return k, gcount, err
}

// ref is the reference memory of the setup before the launch.
func (s *addr64Setup) ref(gcount uint64) refMem {
	m := refMem{}
	m.put(s.inAt, s.in)
	m.put(s.p.out, s.out)
	m.put(s.farAt, s.far)
	m.put(gcount, make([]byte, 8))
	return m
}

func readBack(t *testing.T, k *Kernel, addr uint64, n int) []byte {
	t.Helper()
	b, err := k.Global.Bytes(addr, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameBytes reports the first difference of got and want (at address addr).
func sameBytes(got, want []byte, addr uint64) error {
	for i := range want {
		if got[i] != want[i] {
			return errors.New("byte at " + strconv.FormatUint(addr+uint64(i), 16) + ": got " +
				strconv.FormatUint(uint64(got[i]), 16) + ", want " + strconv.FormatUint(uint64(want[i]), 16))
		}
	}
	return nil
}

func (m refMem) bytes(addr uint64, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(m.get(addr+uint64(i), 1))
	}
	return b
}

// TestOracleAddr64 runs the oracle's 14_addr64 (one warp of threads x=0,
// y=0..31, the only x whose vector loads are aligned) with the region 4 GiB
// past its buffer in a segment, up to the misaligned store every build
// reaches: the fault must name that store; the generic stores and the output
// stores the build issues before it must hold the reference's values (the
// last lane's, as all lanes share the slot); without the far segment the
// 4 GiB load must fault.
func TestOracleAddr64(t *testing.T) {
	forVariants(t, "14_addr64", func(t *testing.T, prog []byte, arch string) {
		rng := rand.New(rand.NewPCG(14, 64))
		const inAt, stride = 0x100, 256
		p := addr64Launch{base: inAt + 1024, out: 0x30000, stride: stride, ci: rng.Uint32(), block: emu.Dim3{1, 32, 1}}
		// base-1024 .. base+31*4096+8 (the (y<<12|7) bytes)
		s := newAddr64Setup(rng, p, inAt, 1024+32<<12, 32*stride, 64)
		k, gcount, err := s.launch(t, prog, arch, true)
		var f *emu.Fault
		var mf *emu.MemFault
		if !errors.As(err, &f) || !errors.As(err, &mf) {
			t.Fatalf("want the misaligned store's fault, got %v", err)
		}
		if mf.Addr != p.out+0x2c || mf.Size != 8 || !mf.Write || f.Lane != 0 || !strings.HasPrefix(f.Inst, "STG.E.64 ") ||
			!strings.Contains(mf.Error(), "misaligned 8-byte global write") {
			t.Fatalf("fault %v (%+v), want a misaligned 8-byte STG.E.64 at %#x in lane 0", f, mf, p.out+0x2c)
		}
		m := s.ref(gcount)
		th := addr64Ref(m, s.cst, gcount, &p)
		if th[31].r12 == 0 && th[30].r12 == 0 {
			t.Fatal("reference reads zeros 4 GiB past the buffer")
		}
		// the generic stores (before every output store in every build)
		if err := sameBytes(readBack(t, k, inAt, len(s.in)), m.bytes(inAt, len(s.in)), inAt); err != nil {
			t.Errorf("input buffer after the generic stores: %v", err)
		}
		// which output stores precede the faulting one: -O3 reorders them,
		// -O0 keeps the PTX order (through the u32 sum at +40, which holds
		// the load 4 GiB past the buffer)
		done := [][2]int{{0x20, 0x28}, {0, 1}, {2, 4}, {4, 8}, {8, 0x10}}
		if strings.Contains(t.Name(), "O0") {
			done = [][2]int{{0, 1}, {2, 4}, {4, 8}, {8, 0x10}, {0x10, 0x20}, {0x20, 0x28}, {0x28, 0x2c}}
		}
		want := slices.Clone(s.out)
		full := m.bytes(p.out, 64)
		for _, d := range done {
			copy(want[d[0]:d[1]], full[d[0]:d[1]])
		}
		if err := sameBytes(readBack(t, k, p.out, 64), want, p.out); err != nil {
			t.Errorf("output slot: %v", err)
		}
		// without the segment the load 4 GiB past the buffer faults
		_, _, err = s.launch(t, prog, arch, false)
		if !errors.As(err, &mf) || mf.Addr != p.base+1<<32 || mf.Size != 4 || mf.Write ||
			!strings.Contains(mf.Error(), "4-byte global read at 0x100000500 is out of bounds") {
			t.Fatalf("without the far segment: %v (%+v), want a 4-byte read fault at %#x", err, mf, p.base+1<<32)
		}
	})
}

// ownVariants runs f on our addr64a builds (testdata/gen_addr64.sh).
func ownVariants(t *testing.T, f func(t *testing.T, prog []byte, arch string)) {
	for _, v := range variants {
		t.Run(v.arch+"."+v.opt, func(t *testing.T) {
			prog, err := os.ReadFile(filepath.Join("testdata", "addr64."+v.arch+"."+v.opt+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			f(t, prog, v.arch)
		})
	}
}

// TestAddr64Aligned runs our aligned variant to the end against the
// reference: four warps of 16x8 threads, every output slot, the generic
// stores, the gcount variable and the constant bank; once with the buffers
// in the dense region (only the region 4 GiB past them in a segment), once
// with everything in segments far apart (above 16 GiB).
func TestAddr64Aligned(t *testing.T) {
	ownVariants(t, func(t *testing.T, prog []byte, arch string) {
		for _, far := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(64, 14))
			const stride = 16 * 128
			inAt, out := uint64(0x100), uint64(0x40000)
			if far {
				inAt, out = 0x4_0000_0000, 0x9_8765_4300
			}
			block := emu.Dim3{16, 8, 1}
			p := addr64Launch{base: inAt + stride, out: out, stride: stride, ci: rng.Uint32(), block: block, ours: true}
			// base-stride .. past base+7*4096+7 and past the last thread's loads (+4096+80)
			s := newAddr64Setup(rng, p, inAt, stride+8<<12+4096, 8*stride, 64*block.Count())
			k, gcount, err := s.launch(t, prog, arch, true)
			if err != nil {
				t.Fatalf("far %v: %v", far, err)
			}
			m := s.ref(gcount)
			addr64Ref(m, s.cst, gcount, &p)
			for _, r := range []struct {
				name string
				addr uint64
				n    int
			}{{"output", p.out, len(s.out)}, {"input", inAt, len(s.in)}, {"far region", s.farAt, len(s.far)}, {"gcount", gcount, 8}} {
				if err := sameBytes(readBack(t, k, r.addr, r.n), m.bytes(r.addr, r.n), r.addr); err != nil {
					t.Errorf("far %v: %s: %v", far, r.name, err)
				}
			}
			if g := m.get(gcount, 8); g != 4*31 {
				t.Errorf("reference gcount %d, want %d", g, 4*31)
			}
		}
	})
}

// TestGenericShared runs gshared (testdata/addr64.ptx): cvta.shared adds
// bank 0's shared window (c[0x0][0x0]), stores and loads through the generic
// addresses reach the block's shared memory, and isspacep.shared holds
// where isspacep.global does not.
func TestGenericShared(t *testing.T) {
	ownVariants(t, func(t *testing.T, prog []byte, arch string) {
		r := run{program: prog, arch: arch, kernel: "gshared", grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1},
			args: []arg{make([]byte, 4*64)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]uint32, 64)
		for i := range want {
			want[i] = uint32(i^1) | 1<<16
		}
		if err := sameWords(u32s(res.bufs[0]), want); err != nil {
			t.Fatal(err)
		}
	})
}
