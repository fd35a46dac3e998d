// The benchmarks are an external test package so that they can read the
// oracle's GXP files with binfmt/gxp (which imports usse).
package usse_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/internal/benchcpu"
	"github.com/gpuisa/gpuisa/internal/oracle"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// benchSources are the instruction mixes the benchmarks run on: our golden
// cases (every form, operand-heavy) and the code of every GXP program of the
// oracle (compiler output), the latter only when the shared directory is
// present.
var benchSources = []struct {
	name  string
	words func(b *testing.B) []uint64
}{
	{"golden", goldenWords},
	{"gxp", oracleGXPWords},
}

// goldenWords are the valid words of testdata/decode.txt.
func goldenWords(b *testing.B) []uint64 {
	fh, err := os.Open("testdata/decode.txt")
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	var ws []uint64
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		hex, _, ok := strings.Cut(sc.Text(), "\t")
		w, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil {
			continue // comments
		}
		if _, err := usse.DecodeWord(w, 0); err == nil {
			ws = append(ws, w)
		}
	}
	return ws
}

// oracleGXPWords is the primary and secondary code of the oracle's GXPs.
func oracleGXPWords(b *testing.B) []uint64 {
	if oracle.SharedDir() == "" {
		b.Skip("no shared oracle")
	}
	dir := oracle.Path(b, "oracle/usse")
	var ws []uint64
	for _, pat := range []string{"libvita2d/*.gxp", "vita3k-shader-tests/scratch/*.gxp", "vita3k-shader-tests/tests/*/gxp/*"} {
		files, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, fn := range files {
			data, err := os.ReadFile(fn)
			if err != nil {
				b.Fatal(err)
			}
			p, err := gxp.Parse(data)
			if err != nil {
				b.Fatalf("%s: %v", fn, err)
			}
			for _, w := range append(p.Primary, p.Secondary...) {
				if _, err := usse.DecodeWord(w, 0); err == nil {
					ws = append(ws, w)
				}
			}
		}
	}
	if len(ws) == 0 {
		b.Fatal("no GXP code found")
	}
	return ws
}

// benchStream repeats the source's valid words up to at least n
// instructions (little-endian code) and returns the count.
func benchStream(b *testing.B, words []uint64, n int) ([]byte, int) {
	var code []byte
	count := 0
	for count < n {
		for _, w := range words {
			code = binary.LittleEndian.AppendUint64(code, w)
			count++
		}
	}
	return code, count
}

func runBench(b *testing.B, n int, fn func(b *testing.B, code []byte, n int)) {
	for _, src := range benchSources {
		b.Run(src.name, func(b *testing.B) {
			code, count := benchStream(b, src.words(b), n)
			fn(b, code, count)
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			for pc := 0; pc+usse.Len <= len(code); pc += usse.Len {
				if _, err := usse.Decode(code[pc:], uint64(pc)); err != nil {
					b.Fatal(err)
				}
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
	})
}

func BenchmarkPrint(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		insts := make([]usse.Inst, 0, n)
		for pc := 0; pc < len(code); pc += usse.Len {
			in, _ := usse.Decode(code[pc:], 0)
			insts = append(insts, in)
		}
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			for j := range insts {
				buf = usse.AppendText(buf[:0], insts[j], 0)
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
	})
}

// BenchmarkDisassemble is the whole listing: decode, print, format lines.
func BenchmarkDisassemble(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		out := make([]byte, 0, 160*n) // room for every line: no growing inside the loop
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			out, _ = usse.Disassemble(out[:0], code, 0)
		}
		cpu.Report(float64(n)/1e6, "Minsn")
		b.SetBytes(int64(len(code)))
	})
}

func BenchmarkAssemble(b *testing.B) {
	runBench(b, 1<<18, func(b *testing.B, code []byte, n int) {
		lst, _ := usse.Disassemble(nil, code, 0)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			if _, err := usse.Assemble("bench.s", lst); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(float64(n)/1e6, "Mlines")
	})
}

// BenchmarkWriteListing is the streamed listing (dis -arch sgx543) to
// io.Discard, on every core.
func BenchmarkWriteListing(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			if _, err := usse.WriteListing(io.Discard, code, 0); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
		b.SetBytes(int64(len(code)))
	})
}

// BenchmarkWriteListingFrom is BenchmarkWriteListing reading the code from
// an io.Reader a window at a time (dis -arch sgx543 of a file).
func BenchmarkWriteListingFrom(b *testing.B) {
	runBench(b, 1<<20, func(b *testing.B, code []byte, n int) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu := benchcpu.Start(b)
		for i := 0; i < b.N; i++ {
			if err := usse.WriteListingFrom(io.Discard, bytes.NewReader(code), 0, nil); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report(float64(n)/1e6, "Minsn")
		b.SetBytes(int64(len(code)))
	})
}
