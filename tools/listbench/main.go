// Command listbench writes the inputs the listing speed of issue 13's item
// 5 is measured on (docs/limits.md) into DIR, 1M instructions each:
//
//	words.bin         1M random 32-bit words (seed 13, 5): random sm_1x code
//	valid.bin         1M random valid sm_1x instructions (BenchmarkWriteListingRandom's)
//	real.bin          the oracle's sm_10/sm_12 code (sass-real rows, decuda's
//	                  kernels, the FlexGrip apps) repeated (needs the shared oracle)
//	sm20_valid.bin    1M random valid sm_2x instructions (isa/fermi's randomValidCode)
//	sgx543_valid.bin  1M random valid sgx543 words (isa/usse's randomValidCode)
//	bytes8m.bin       8 MiB of random bytes (seed 13, 5): random sm_2x and sgx543 code
//	sm20_real.bin     the oracle's sm_20 code (sass-real) repeated to 1M
//	                  instructions (isa/fermi's oracleMillion; needs the oracle)
//	gxp.bin           the oracle's GXP programs' words (vita3k's shader tests,
//	                  libvita2d) repeated to 1M words (needs the oracle)
//
//	sm52_valid.bin    1,000,002 sm_52 instructions: 30,000 distinct random
//	                  words the decoder takes, repeated, three to a bundle
//	                  under the neutral control word (isa/maxwell's
//	                  BenchmarkWriteListingRandom; mxdiff -bench's shape)
//
//	go run ./tools/listbench DIR
//	go run ./tools/listspeed 21 sm_10 DIR/real.bin ./gpuisa-old ./gpuisa-new
package main

import (
	"bufio"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/internal/listtest"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/tesla"
	"github.com/gpuisa/gpuisa/isa/usse"
)

const n = 1 << 20

func count(code []byte) int {
	c := 0
	for pc := 0; pc < len(code); {
		inst, err := tesla.Decode(code[pc:], 0)
		l := int(inst.Len)
		if err != nil || l == 0 {
			l = 4
		}
		pc += l
		c++
	}
	return c
}

func tsv(path string) []byte {
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var hdr map[string]int
	var code []byte
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if hdr == nil {
			hdr = map[string]int{}
			for i, c := range cols {
				hdr[c] = i
			}
			continue
		}
		hc := cols[hdr["hex_canon"]]
		v, _ := strconv.ParseUint(strings.TrimPrefix(hc, "0x"), 16, 64)
		if len(hc) == 10 {
			code = binary.LittleEndian.AppendUint32(code, uint32(v))
		} else {
			code = binary.LittleEndian.AppendUint64(code, v)
		}
	}
	return code
}

func decuda(path string) []byte {
	data, _ := os.ReadFile(path)
	var code []byte
	for _, k := range oracle.DecudaKernels(data) {
		code = append(code, k.Code...)
	}
	return code
}

// sm20Code is the code of the oracle's sm_20 rows (sass-real/sm_20.tsv:
// column 3 the arch, column 7 the word).
func sm20Code(path string) []byte {
	data, _ := os.ReadFile(path)
	var code []byte
	for i, line := range strings.Split(string(data), "\n") {
		c := strings.Split(line, "\t")
		if i == 0 || len(c) < 8 || c[2] != "sm_20" {
			continue
		}
		if v, err := strconv.ParseUint(strings.TrimPrefix(c[6], "0x"), 16, 64); err == nil {
			code = binary.LittleEndian.AppendUint64(code, v)
		}
	}
	return code
}

// gxpWords is the instruction words of an oracle GXP listing: lines of a
// P or S address, the word in 16 digits and its class.
func gxpWords(path string) []byte {
	data, _ := os.ReadFile(path)
	var code []byte
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || len(f[1]) != 16 || (f[0][0] != 'P' && f[0][0] != 'S') {
			continue
		}
		if v, err := strconv.ParseUint(f[1], 16, 64); err == nil {
			code = binary.LittleEndian.AppendUint64(code, v)
		}
	}
	return code
}

// sm52Code is n sm_52 instructions: distinct random words (splitmix64
// from 1) the decoder takes, repeated, three to a bundle after the
// neutral control word, the last bundle filled with NOPs.
func sm52Code(distinct, n int) []byte {
	var ws []uint64
	for x := uint64(1); len(ws) < distinct; {
		x += 0x9e3779b97f4a7c15
		z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		if _, err := maxwell.Decode(z, maxwell.NeutralCtrl, 52, 0); err == nil {
			ws = append(ws, z)
		}
	}
	code := make([]byte, 0, (n+2)/3*maxwell.BundleSize)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			code = binary.LittleEndian.AppendUint64(code, 0x001fc400fe2007f1)
		}
		code = binary.LittleEndian.AppendUint64(code, ws[i%len(ws)])
	}
	for len(code)%maxwell.BundleSize != 0 {
		code = binary.LittleEndian.AppendUint64(code, 0x50b0000000070f00) // NOP
	}
	return code
}

// repeatTo is unit repeated (the last copy cut) to size bytes.
func repeatTo(unit []byte, size int) []byte {
	if len(unit) == 0 {
		return nil
	}
	code := make([]byte, 0, size)
	for len(code) < size {
		code = append(code, unit[:min(len(unit), size-len(code))]...)
	}
	return code
}

func main() {
	if len(os.Args) != 2 {
		println("usage: listbench DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	sh := "/work/shared/oracle/"
	if s := os.Getenv("GPUISA_SHARED"); s != "" {
		sh = s + "/oracle/"
	}
	// random 32-bit words
	r := rand.New(rand.NewPCG(13, 5))
	words := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(words[4*i:], r.Uint32())
	}
	os.WriteFile(filepath.Join(dir, "words.bin"), words, 0o644)
	// random valid instructions of each ISA, and random bytes
	valid := listtest.RandomCode(n, func(w []byte) int {
		if inst, err := tesla.Decode(w, 0); err == nil {
			return int(inst.Len)
		}
		return 0
	})
	os.WriteFile(filepath.Join(dir, "valid.bin"), valid, 0o644)
	os.WriteFile(filepath.Join(dir, "sm20_valid.bin"), listtest.RandomCode(n, func(w []byte) int {
		if inst, err := fermi.Decode(w); err == nil {
			return inst.Len()
		}
		return 0
	}), 0o644)
	os.WriteFile(filepath.Join(dir, "sgx543_valid.bin"), listtest.RandomCode(n, func(w []byte) int {
		if _, err := usse.Decode(w, 0); err == nil {
			return usse.Len
		}
		return 0
	}), 0o644)
	os.WriteFile(filepath.Join(dir, "bytes8m.bin"), listtest.RandomCode(n, func([]byte) int { return 8 }), 0o644)
	os.WriteFile(filepath.Join(dir, "sm52_valid.bin"), sm52Code(30000, 1000002), 0o644)
	// real code
	var unit []byte
	unit = append(unit, tsv(sh+"sass-real/sm_10.tsv")...)
	unit = append(unit, tsv(sh+"sass-real/sm_12.tsv")...)
	unit = append(unit, decuda(sh+"sass-real/extra/sm_10.decuda-tests-bincode.tsv")...)
	apps, _ := filepath.Glob(sh + "flexgrip-apps/*/program.bin")
	for _, a := range apps {
		d, _ := os.ReadFile(a)
		unit = append(unit, d...)
	}
	per := count(unit)
	if per == 0 {
		println("listbench: no real code under", sh)
		os.Exit(1)
	}
	var real []byte
	for c := 0; c < n; c += per {
		real = append(real, unit...)
	}
	os.WriteFile(filepath.Join(dir, "real.bin"), real, 0o644)
	if c := sm20Code(sh + "sass-real/sm_20.tsv"); len(c) > 0 {
		os.WriteFile(filepath.Join(dir, "sm20_real.bin"), repeatTo(c, 8*n), 0o644)
	}
	gxp := append(gxpWords(sh+"usse/vita3k_shader_tests_programs.txt"), gxpWords(sh+"usse/libvita2d/LISTING.txt")...)
	if len(gxp) > 0 {
		os.WriteFile(filepath.Join(dir, "gxp.bin"), repeatTo(gxp, 8*n), 0o644)
	}
	println("unit", len(unit), "bytes", per, "insts; real", len(real), count(real), "; valid", len(valid))
}
