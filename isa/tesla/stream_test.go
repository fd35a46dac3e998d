package tesla

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// kernelStream is one kernel's code in memory order.
type kernelStream struct {
	name string
	code []byte
}

// decudaKernels rebuilds each decuda test kernel's code from the corpus rows.
func decudaKernels(t testing.TB) []kernelStream {
	data, err := os.ReadFile(oracle.Path(t, "oracle/sass-real/extra/sm_10.decuda-tests-bincode.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []kernelStream
	for _, k := range oracle.DecudaKernels(data) {
		out = append(out, kernelStream{k.Name, k.Code})
	}
	return out
}

// A kernel listed and assembled again must give back its bytes.
func TestDecudaKernelRoundTrip(t *testing.T) {
	kernels := decudaKernels(t)
	exact, words, bad := 0, 0, 0
	for _, k := range kernels {
		lst, errs := Disassemble(nil, k.code, 0)
		bad += len(errs)
		words += len(k.code) / 4
		got, err := Assemble(k.name, lst)
		if err != nil {
			t.Errorf("%s: %v", k.name, err)
			continue
		}
		if bytes.Equal(got, k.code) {
			exact++
			continue
		}
		for i := 0; i+4 <= len(got) && i+4 <= len(k.code); i += 4 {
			if !bytes.Equal(got[i:i+4], k.code[i:i+4]) {
				t.Logf("%s: first difference at %#x", k.name, i)
				break
			}
		}
	}
	t.Logf("decuda: %d/%d kernels reassemble exactly; %d decode errors in %d words", exact, len(kernels), bad, words)
	if exact < len(kernels)-1 {
		t.Errorf("only %d/%d kernels round-trip", exact, len(kernels))
	}
}

// A BAR or SSY is 64-bit when the next word can be its second half (CUDA 4
// ptxas: zero) and 32-bit otherwise (CUDA 1.x ptxas); see spec.txt.
func TestFlow32Rule(t *testing.T) {
	words := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	for _, c := range []struct {
		code []byte
		want string
	}{
		{words(0x861ffe03, 0), "/*0000*/ BAR.ARV.WAIT b0, 0xfff; /* 0x00000000861ffe03 */\n"},
		{words(0xa001d003, 0), "/*0000*/ SSY 0xe8; /* 0x00000000a001d003 */\n"},
		{words(0x861ffe03), "/*0000*/ BAR32.ARV.WAIT b0, 0xfff; /* 0x861ffe03 */\n"},
		// test20: bar.sync 1 and 2, then 15 before an immediate instruction
		{words(0x863ffe03, 0x865ffe03, 0x87fffe03, 0x1000c805, 0x0423c781),
			"/*0000*/ BAR32.ARV.WAIT b1, 0xfff; /* 0x863ffe03 */\n" +
				"/*0004*/ BAR32.ARV.WAIT b2, 0xfff; /* 0x865ffe03 */\n" +
				"/*0008*/ BAR32.ARV.WAIT b15, 0xfff; /* 0x87fffe03 */\n" +
				"/*000c*/ MOV R1, g [0x4]; /* 0x0423c7811000c805 */\n"},
		// motion_div: an SSY followed by a guarded BRA
		{words(0xa0092003, 0x10060003, 0x00002100),
			"/*0000*/ SSY32 0x490; /* 0xa0092003 */\n" +
				"/*0004*/ BRA C2.EQ, 0x300; /* 0x0000210010060003 */\n"},
	} {
		got, errs := Disassemble(nil, c.code, 0)
		if len(errs) != 0 || squash(string(got)) != squash(c.want) {
			t.Errorf("% x:\n got %s want %s %v", c.code, got, c.want, errs)
			continue
		}
		back, err := Assemble("t", got)
		if err != nil || !bytes.Equal(back, c.code) {
			t.Errorf("% x: reassembles to % x %v", c.code, back, err)
		}
	}
}
