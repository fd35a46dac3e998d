package fermi

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// benchLaunches runs a sequence of launches b.N times on one device and
// reports warp-instructions per second of engine time (wall and CPU).
func benchLaunches(b *testing.B, d *device, ls []launch) {
	b.ReportAllocs()
	var insts int64
	var secs float64
	cpu0 := benchcpu.Now()
	for b.Loop() {
		for _, l := range ls {
			st, err := d.run(b, l)
			if err != nil {
				b.Fatal(err)
			}
			insts += st.WarpInsts
			secs += st.Duration.Seconds()
		}
	}
	b.ReportMetric(float64(insts)/secs/1e6, "Mwarpinst/s")
	if cpu := (benchcpu.Now() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(insts)/cpu/1e6, "Mwarpinst/cpu-s")
	}
	b.ReportMetric(float64(insts)/float64(b.N), "warpinst/op")
}

// The real kernels' benchmarks run them as their tests do. Kernels whose
// words the TSV lacks run only with GPUISA_FERMI_LISTINGS (real_test.go);
// BenchmarkRealKernels runs every one it can rebuild and reports them
// together.

// BenchmarkRealKernels: mgpu's b-tree build over 2^20 keys (4 launches),
// and with the listings its global scan of 2^20 values (60 blocks), its
// argmax over 2^20 floats (60 blocks), its block and warp scans, its
// radix sort's digit histogram and histogram pass, its sparse
// matrix-vector product and its BWT key gather and compare.
func BenchmarkRealKernels(b *testing.B) {
	var ls []launch
	d := newDevice()
	for _, add := range []func(*testing.B, *device) []launch{benchTreeLaunches, benchScanLaunches, benchMaxLaunches, benchSnippetLaunches,
		benchHistLaunches, benchSpMVLaunches, benchBWTLaunches} {
		ls = append(ls, add(b, d)...)
	}
	benchLaunches(b, d, ls)
}

// BenchmarkRealGlobalScan runs mgpu's three global scan kernels on 2^20
// values (60 blocks of 256 threads in the up and down sweeps).
func BenchmarkRealGlobalScan(b *testing.B) { benchOne(b, benchScanLaunches) }

// BenchmarkRealBuildTree runs mgpu's b-tree build over 2^20 keys.
func BenchmarkRealBuildTree(b *testing.B) { benchOne(b, benchTreeLaunches) }

// BenchmarkRealMaxIndex runs mgpu's argmax over 2^20 floats.
func BenchmarkRealMaxIndex(b *testing.B) { benchOne(b, benchMaxLaunches) }

// BenchmarkRealSortHistogram runs mgpu's digit count (CountBucketsLoop_5)
// over 150 sort blocks of 1536 keys in 32 tasks, then SortHist_5.
func BenchmarkRealSortHistogram(b *testing.B) { benchOne(b, benchHistLaunches) }

// BenchmarkRealSpMV runs mgpu's SpMxV_4 and Finalize on a 20000-row matrix
// of about 100000 nonzeros.
func BenchmarkRealSpMV(b *testing.B) { benchOne(b, benchSpMVLaunches) }

// BenchmarkRealBWT runs mgpu's GatherBWTKeys_6 and CompareBWTKeys_3 over a
// string of 2^17 bytes (a texture of fewer than 2^16 words: emu's limit).
func BenchmarkRealBWT(b *testing.B) { benchOne(b, benchBWTLaunches) }

func benchOne(b *testing.B, add func(*testing.B, *device) []launch) {
	d := newDevice()
	ls := add(b, d)
	if len(ls) == 0 {
		b.Skip("the kernels are not in ../shared's TSV; set GPUISA_FERMI_LISTINGS")
	}
	benchLaunches(b, d, ls)
}

// benchKernels rebuilds kernels, or none when one of them cannot be.
func benchKernels(b *testing.B, keys ...string) [][]byte {
	var codes [][]byte
	for _, key := range keys {
		code, gaps := rebuildKernel(b, key)
		if gaps > 0 {
			return nil
		}
		codes = append(codes, code)
	}
	return codes
}

func benchTreeLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "BuildTree4")
	if codes == nil {
		return nil
	}
	const count = 1 << 20
	data := make([]uint32, count)
	for i := range data {
		data[i] = uint32(3 * i)
	}
	sizes := treeLevelSizes(count)
	sizes[len(sizes)-1] = count
	d.alloc("treeData", fromU32(data))
	name := func(i int) string {
		if i == len(sizes)-1 {
			return "treeData"
		}
		return fmt.Sprintf("treeLevel%d", i)
	}
	var ls []launch
	for i := len(sizes) - 2; i >= 0; i-- {
		d.alloc(name(i), make([]byte, 4*sizes[i]))
		ls = append(ls, launch{program: codes[0], grid: emu.Dim3{uint32((sizes[i] + 255) / 256), 1, 1}, block: emu.Dim3{256, 1, 1},
			params: []any{buf(name(i + 1)), uint32(sizes[i+1]), buf(name(i))}})
	}
	return ls
}

func benchScanLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "GlobalScanUpsweep", "GlobalScanReduction", "GlobalScanDownsweep@51c35d7391")
	if codes == nil {
		return nil
	}
	const count, numBlocks = 1 << 20, 60
	rng := rand.New(rand.NewSource(1))
	values := make([]uint32, count)
	for i := range values {
		values[i] = rng.Uint32() & 0xffff
	}
	ranges := make([]uint32, 2*numBlocks)
	bricks := count / 2048
	x := uint32(0)
	for i := range numBlocks {
		n := bricks / numBlocks
		if i < bricks%numBlocks {
			n++
		}
		ranges[2*i], ranges[2*i+1] = x, x+uint32(n*2048)
		x += uint32(n * 2048)
	}
	d.alloc("values", fromU32(values))
	d.alloc("scan", make([]byte, 4*count))
	d.alloc("blockScan", make([]byte, 4*(numBlocks+1)))
	d.alloc("ranges", fromU32(ranges))
	block := emu.Dim3{256, 1, 1}
	return []launch{
		{program: codes[0], grid: emu.Dim3{numBlocks, 1, 1}, block: block, params: []any{buf("values"), buf("ranges"), buf("blockScan")}},
		{program: codes[1], block: block, params: []any{buf("blockScan"), numBlocks}},
		{program: codes[2], grid: emu.Dim3{numBlocks, 1, 1}, block: block,
			params: []any{buf("values"), buf("scan"), buf("blockScan"), buf("ranges"), count, uint32(0), uint32(0)}},
	}
}

func benchMaxLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "FindMaxIndexLoop", "FindMaxIndexReduce")
	if codes == nil {
		return nil
	}
	const count, blocks = 1 << 20, 60
	data := make([]float32, count)
	for i := range data {
		data[i] = float32(i%9973) * 0.5
	}
	ranges := make([]uint32, 2*blocks)
	for i := range blocks {
		ranges[2*i], ranges[2*i+1] = uint32(i*count/blocks), uint32((i+1)*count/blocks)
	}
	d.alloc("maxData", fromF32(data))
	d.alloc("max", make([]byte, 4*blocks))
	d.alloc("index", make([]byte, 4*blocks))
	d.alloc("maxRanges", fromU32(ranges))
	block := emu.Dim3{256, 1, 1}
	return []launch{
		{program: codes[0], grid: emu.Dim3{blocks, 1, 1}, block: block, params: []any{buf("maxData"), buf("max"), buf("index"), buf("maxRanges")}},
		{program: codes[1], block: block, params: []any{buf("max"), buf("index"), uint32(blocks)}},
	}
}

func benchSnippetLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "MultiScan256", "WarpScan1", "WarpScan2")
	if codes == nil {
		return nil
	}
	d.alloc("snipValues", make([]byte, 4*256))
	d.alloc("snipInc", make([]byte, 4*256))
	d.alloc("snipExc", make([]byte, 4*256))
	params := []any{buf("snipValues"), buf("snipInc"), buf("snipExc")}
	return []launch{
		{program: codes[0], block: emu.Dim3{256, 1, 1}, params: params},
		{program: codes[1], block: emu.Dim3{32, 1, 1}, params: params},
		{program: codes[2], block: emu.Dim3{32, 1, 1}, params: params},
	}
}

func benchHistLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "CountBucketsLoop_5", "SortHist_5")
	if codes == nil {
		return nil
	}
	const numBlocks, numTasks, vt = 150, 32, 48
	rng := rand.New(rand.NewSource(3))
	keys := make([]uint32, numBlocks*32*vt)
	for i := range keys {
		keys[i] = rng.Uint32()
	}
	d.alloc("histKeys", fromU32(keys))
	d.alloc("histCounts", make([]byte, 4*numBlocks*16))
	d.alloc("histTotals", make([]byte, 4*numTasks*32))
	d.alloc("histScan", make([]byte, 4*32))
	return []launch{
		{program: codes[0], grid: emu.Dim3{numTasks, 1, 1}, block: emu.Dim3{128, 1, 1},
			params: []any{buf("histKeys"), uint32(0), uint32(vt), uint32(numBlocks / numTasks), uint32(numBlocks % numTasks),
				buf("histCounts"), buf("histTotals")}},
		{program: codes[1], block: emu.Dim3{1024, 1, 1}, params: []any{buf("histTotals"), uint32(numTasks), buf("histScan")}},
	}
}

func benchSpMVLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "SpMxV_4", "SpMxVFinalize")
	if codes == nil {
		return nil
	}
	const rows, width = 20000, 4000
	rng := rand.New(rand.NewSource(4))
	rowPtr := []uint32{0}
	var cols []uint32
	var vals []float32
	for range rows {
		for range rng.Intn(11) {
			cols = append(cols, uint32(rng.Intn(width)))
			vals = append(vals, float32(rng.NormFloat64()))
		}
		rowPtr = append(rowPtr, uint32(len(cols)))
	}
	x := make([]float32, width)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	ls := spmvLaunches(d, codes[0], codes[1], encodeSpMV(rowPtr, cols, vals, 4), x, rows)
	return ls[:]
}

func benchBWTLaunches(b *testing.B, d *device) []launch {
	codes := benchKernels(b, "GatherBWTKeys_6", "CompareBWTKeys_3")
	if codes == nil {
		return nil
	}
	const count = 1 << 17
	blocks := uint32(count / 512)
	s := make([]byte, count+4*160)
	rand.New(rand.NewSource(5)).Read(s)
	d.alloc("bwtString", s)
	params := []any{buf("bwtString"), uint32(count)}
	for k := range 6 {
		name := fmt.Sprintf("bwtKeys%d", k)
		d.alloc(name, make([]byte, 4*count))
		params = append(params, buf(name))
	}
	d.alloc("bwtIndices", make([]byte, 4*count))
	d.alloc("bwtFlags", make([]byte, count))
	params = append(params, buf("bwtIndices"))
	// shared memory as bwt.cu declares it (raw code would get 48 KiB a block)
	return []launch{
		{program: codes[0], grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{512, 1, 1}, shared: 4 * 160, params: params},
		{program: codes[1], grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{512, 1, 1}, shared: 4*3*513 + 512,
			params:   []any{buf("bwtIndices"), uint32(count), uint32(0xffffff00), buf("bwtFlags")},
			textures: []emu.TexImage{{Name: "string_texture", Buffer: "bwtString", Format: "r32ui", Size: []int{len(s) / 4}}}},
	}
}

// Kernels of our own, which need no oracle.

const benchReduce = gtid + `
	SHL R3, R0, 0x2;
	IADD R3, R3, c[0x0][0x20];
	LD R4, [R3];
	S2R R5, SR_TID.X;
	SHL R6, R5, 0x2;
	STS [R6], R4;
	MOV32I R7, 0x80;
tree:
	BAR.RED.POPC RZ, RZ;
	ISETP.LT.U32.AND P0, PT, R5, R7, PT;
	SHL R8, R7, 0x2;
	IADD R8, R8, R6;
	@P0 LDS R9, [R8];
	@P0 LDS R10, [R6];
	@P0 IADD R10, R10, R9;
	@P0 STS [R6], R10;
	SHR.U32 R7, R7, 0x1;
	ISETP.NE.AND P1, PT, R7, RZ, PT;
	@P1 BRA tree;
	ISETP.NE.AND P0, PT, R5, RZ, PT;
	@P0 EXIT;
	LDS R11, [RZ];
	S2R R12, SR_CTAID.X;
	SHL R12, R12, 0x2;
	IADD R12, R12, c[0x0][0x24];
	ST [R12], R11;
	EXIT;
`

// BenchmarkReduce: a shared-memory tree reduction, 2048 blocks of 256.
func BenchmarkReduce(b *testing.B) {
	const blocks = 2048
	d := newDevice()
	d.alloc("in", make([]byte, 4*256*blocks))
	d.alloc("out", make([]byte, 4*blocks))
	benchLaunches(b, d, []launch{{program: []byte(benchReduce), grid: emu.Dim3{blocks, 1, 1}, block: emu.Dim3{256, 1, 1},
		shared: 1024, params: []any{buf("in"), buf("out")}}})
}

// BenchmarkLaunch is the fixed cost of a launch (ns/op): one warp that
// exits at once, on a device that keeps the program and its buffer, as
// a host loop's launches do. The real kernels' rates include it once per
// launch (BuildTree: four launches of at most 128 blocks).
func BenchmarkLaunch(b *testing.B) {
	d := newDevice()
	d.alloc("out", make([]byte, 4))
	benchLaunches(b, d, []launch{{program: []byte("EXIT;\n"), block: emu.Dim3{32, 1, 1}, shared: 16, params: []any{buf("out")}}})
}

// BenchmarkLower: decoding and lowering, once per program.
func BenchmarkLower(b *testing.B) {
	img, err := ProgramImage("k", []byte(benchReduce+vecAdd), "", "sm_20")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(img.Code)))
	for b.Loop() {
		if _, err := Lower(img.Code); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoAllocPerInstruction: a run's allocations do not grow with the
// instructions it executes (the same loop run 10 and 1000 times).
func TestNoAllocPerInstruction(t *testing.T) {
	prog := gtid + `
	MOV R3, c[0x0][0x20];
	MOV R4, RZ;
loop:
	IADD R4, R4, 0x1;
	FFMA R5, R4, R4, R5;
	LDS R6, [RZ];
	STS [0x4], R4;
	VADD.UD.U32.U32.ACC R7, R4, R5, R6;
	ISETP.LT.AND P0, PT, R4, R3, PT;
	@P0 BRA loop;
	BAR.RED.POPC RZ, RZ;
	EXIT;
`
	allocs := func(n uint32) (float64, int64) {
		d := newDevice()
		var insts int64
		a := testing.AllocsPerRun(3, func() {
			st, err := d.run(t, launch{program: []byte(prog), grid: emu.Dim3{2, 1, 1}, block: emu.Dim3{64, 1, 1}, shared: 64,
				params: []any{n}, serial: true})
			if err != nil {
				t.Fatal(err)
			}
			insts = st.WarpInsts
		})
		return a, insts
	}
	few, n1 := allocs(10)
	many, n2 := allocs(1000)
	t.Logf("%d warp-instructions: %.0f allocations; %d: %.0f", n1, few, n2, many)
	if many > few+2 {
		t.Errorf("allocations grow with the instructions executed: %.0f for %d, %.0f for %d", few, n1, many, n2)
	}
}
