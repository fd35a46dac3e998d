package tesla

import (
	"bytes"
	"encoding/binary"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gpuisa/internal/oracle"
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
	type part struct {
		off   uint64
		words []uint32
	}
	parts := map[string][]part{}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		c := strings.Split(l, "\t")
		off, _ := strconv.ParseUint(c[4], 16, 64)
		var ws []uint32
		for _, h := range strings.Fields(c[5]) {
			x, _ := strconv.ParseUint(strings.TrimPrefix(h, "0x"), 16, 32)
			ws = append(ws, uint32(x))
		}
		key := c[1] + ":" + c[3]
		if _, ok := parts[key]; !ok {
			names = append(names, key)
		}
		parts[key] = append(parts[key], part{off, ws})
	}
	var out []kernelStream
	for _, k := range names {
		ps := parts[k]
		sort.Slice(ps, func(a, b int) bool { return ps[a].off < ps[b].off })
		var code []byte
		for _, p := range ps {
			for _, w := range p.words {
				code = binary.LittleEndian.AppendUint32(code, w)
			}
		}
		out = append(out, kernelStream{k, code})
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
