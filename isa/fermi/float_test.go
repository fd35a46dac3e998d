package fermi

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// strconvFloat is how the printer spelled float immediates before it had
// its own formatter.
func strconvFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	if math.Abs(f) >= 1e17 {
		return strconv.FormatFloat(f, 'e', 20, 64)
	}
	return strconv.FormatFloat(f, 'g', 20, 64)
}

func checkFloat(t *testing.T, f float64, what string, bad *int) {
	got, want := string(appendFloat(nil, f)), strconvFloat(f)
	var d [24]byte
	if _, _, ok := exactDigits(&d, f, 21); !ok && !math.IsInf(f, 0) {
		t.Errorf("%s %x: not formatted exactly (strconv's fallback)", what, math.Float64bits(f))
	}
	if got != want {
		*bad++
		if *bad <= 20 {
			t.Errorf("%s %x (%g): %s, strconv %s", what, math.Float64bits(f), f, got, want)
		}
	}
}

// TestFloatEveryImm20: every 20-bit float immediate, float32 and float64,
// prints as strconv's %.20g / %.20e does.
func TestFloatEveryImm20(t *testing.T) {
	bad := 0
	step := uint64(1)
	if testing.Short() {
		step = 61
	}
	for v := uint64(0); v < 1<<20; v += step {
		if f := float64(math.Float32frombits(uint32(v << 12))); !math.IsNaN(f) {
			checkFloat(t, f, "f32 imm20", &bad)
		}
		if f := math.Float64frombits(v << 44); !math.IsNaN(f) {
			checkFloat(t, f, "f64 imm20", &bad)
		}
	}
	if bad > 0 {
		t.Errorf("%d values differ", bad)
	}
}

// TestFloat32Immediates: 32-bit float immediates, every exponent with
// random mantissas and the mantissas' edges, print as strconv's.
func TestFloat32Immediates(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bad := 0
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	for i := 0; i < n; i++ {
		v := r.Uint32()
		switch i % 8 {
		case 0:
			v &^= 1<<23 - 1 // powers of two
		case 1:
			v |= 1<<23 - 1
		case 2:
			v &^= 1<<12 - 1
		}
		if f := float64(math.Float32frombits(v)); !math.IsNaN(f) {
			checkFloat(t, f, "f32", &bad)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, 0.1, 1e17, 1e16, 99999999999999999999, 1e-4, 1e-5, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat32, math.MaxFloat32, 123456789012345678} {
		checkFloat(t, f, "value", &bad)
		checkFloat(t, -f, "value", &bad)
	}
	if bad > 0 {
		t.Errorf("%d values differ", bad)
	}
}

func BenchmarkAppendFloat(b *testing.B) { benchFloat(b, appendFloat) }

// BenchmarkAppendFloatStrconv is BenchmarkAppendFloat through strconv.
func BenchmarkAppendFloatStrconv(b *testing.B) {
	benchFloat(b, func(dst []byte, f float64) []byte { return strconv.AppendFloat(dst, f, 'g', 20, 64) })
}

// benchFloat formats random floats in [1, 2) with format.
func benchFloat(b *testing.B, format func([]byte, float64) []byte) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = float64(math.Float32frombits(r.Uint32()&^(0xff<<23) | 0x7f<<23))
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchcpu.Start(b)
	for i := 0; i < b.N; i++ {
		buf = format(buf[:0], vals[i%len(vals)])
	}
	cpu.Report(1, "float")
}
