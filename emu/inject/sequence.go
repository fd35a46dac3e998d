package inject

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/gpuisa/gpuisa/emu"
)

// hostReads is the global memory the host part of a launch file reads
// between launches: the buffers of its while conditions. A faulty run
// whose memory differs there may take another path through the sequence
// (more or fewer launches). A buffer named by a template (one per
// repetition) counts as all of memory.
func (ld *Loaded) hostReads(s *emu.Setup) []span {
	var out []span
	all := false
	var walk func(steps []emu.RawStep)
	walk = func(steps []emu.RawStep) {
		for _, raw := range steps {
			var st emu.Step
			if err := json.Unmarshal(raw, &st); err != nil {
				all = true
				continue
			}
			if w := st.While; w != nil {
				if p, ok := s.Buffers[w.Buffer]; ok && !strings.Contains(w.Buffer, "{") {
					out = append(out, span{p.Addr, p.Addr + p.Bytes})
				} else {
					all = true
				}
			}
			walk(st.Launches)
		}
	}
	walk(ld.Launch.Launches)
	if all {
		return []span{{0, math.MaxUint64}}
	}
	return mergeSpans(out)
}
