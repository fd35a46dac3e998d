package oracle

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
)

// DecudaKernel is one kernel of the decuda test corpus
// (oracle/sass-real/extra/sm_10.decuda-tests-bincode.tsv), its code rebuilt
// from the corpus rows in address order.
type DecudaKernel struct {
	Name string // file:kernel
	Code []byte
}

// DecudaKernels rebuilds every kernel of the decuda corpus file's content,
// in the order the file first names them. Rows are: ..., file (column 1),
// kernel (3), hex offset (4), the words (5).
func DecudaKernels(tsv []byte) []DecudaKernel {
	type part struct {
		off   uint64
		words []uint32
	}
	parts := map[string][]part{}
	var names []string
	lines := strings.Split(strings.TrimSpace(string(tsv)), "\n")
	for _, l := range lines[min(1, len(lines)):] {
		c := strings.Split(l, "\t")
		if len(c) < 6 {
			continue
		}
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
	var out []DecudaKernel
	for _, k := range names {
		ps := parts[k]
		sort.Slice(ps, func(a, b int) bool { return ps[a].off < ps[b].off })
		var code []byte
		for _, p := range ps {
			for _, w := range p.words {
				code = binary.LittleEndian.AppendUint32(code, w)
			}
		}
		out = append(out, DecudaKernel{k, code})
	}
	return out
}
