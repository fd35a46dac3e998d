package tesla

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/isa/tesla"
)

// goldenWords reads the Tesla decoder's golden corpus: an encoding of every
// spec form.
func goldenWords(tb testing.TB) []uint64 {
	f, err := os.Open("../../isa/tesla/testdata/golden.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var vs []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		hex, text, _ := strings.Cut(line, "\t")
		if strings.HasPrefix(text, "error") {
			continue
		}
		v, err := strconv.ParseUint(hex, 0, 64)
		if err != nil {
			tb.Fatalf("%s: %v", line, err)
		}
		vs = append(vs, v)
	}
	return vs
}

func encode(v uint64) []byte {
	if v>>32 == 0 && v&3 == 0 {
		return binary.LittleEndian.AppendUint32(nil, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(nil, v)
}

// TestEveryFormLowers: every instruction the decoder knows has semantics,
// except graphics-only ones (texture fetches, attributes, interpolation,
// outputs, quad operations).
func TestEveryFormLowers(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range goldenWords(t) {
		inst, err := tesla.DecodeValue(v, 0)
		if err != nil {
			t.Fatalf("%#x: %v", v, err)
		}
		p, err := Lower(encode(v))
		if err != nil {
			t.Fatalf("%#x: %v", v, err)
		}
		seen[inst.Sem()] = true
		err = p.Error(0)
		switch {
		case graphicsSem[inst.Sem()]:
			// graphics-only
			if !errors.Is(err, errUnsupported) {
				t.Errorf("%s: lowered without the unsupported error: %v", tesla.Print(inst, 0), err)
			}
		case err != nil && strings.Contains(err.Error(), "is not the start of an instruction"):
			// a branch out of this one-instruction program: faults only if taken
		case err != nil:
			t.Errorf("%s (%#x): %v", tesla.Print(inst, 0), v, err)
		}
	}
	if len(seen) < 50 {
		t.Errorf("only %d semantic classes in the corpus", len(seen))
	}
}

// FuzzRun: any bytes, run as a program by a block of 64 threads, end in a
// result or a fault, never a panic or a hang.
func FuzzRun(f *testing.F) {
	for i, v := range goldenWords(f) {
		if i%20 == 0 {
			f.Add(encode(v))
		}
	}
	for _, name := range []string{"saxpy.s", "collatz.s", "blocksum.s"} {
		src, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		code, err := tesla.Assemble(name, src)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(code)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) == 0 {
			return
		}
		s := &emu.Setup{Arch: "sm_10", Grid: emu.Dim3{2, 1, 1}, Block: emu.Dim3{64, 1, 1},
			Global: make([]byte, 1<<12), Params: make([]byte, 16), MaxSteps: 2000}
		k, err := NewKernel(s, code)
		if err != nil {
			return
		}
		cfg := k.Config(s)
		cfg.Workers = 1 // random code races between blocks
		_, err = emu.Run(cfg, k)
		var fault *emu.Fault
		if err != nil && !errors.As(err, &fault) {
			t.Fatalf("error %v is not a fault", err)
		}
	})
}
