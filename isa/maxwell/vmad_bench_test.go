package maxwell

import (
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/benchcpu"
)

// BenchmarkEncodeByMnemonic: EncodeText on the golden texts of the
// mnemonics with the most look-alike forms (VMAD and the other video
// instructions), and on all texts, per text.
func BenchmarkEncodeByMnemonic(b *testing.B) {
	rows := readGolden(b, "testdata/nvdisasm_sm52.tsv.gz")
	for _, mn := range []string{"VMAD", "VADD", "VSET", "VMNMX", "XMAD", "FFMA", ""} {
		var texts []string
		for _, r := range rows {
			if r.text == "INVALID" {
				continue
			}
			t := strings.TrimLeft(r.text, "@!PT0123456 ")
			if mn == "" || strings.HasPrefix(t, mn+".") || strings.HasPrefix(t, mn+" ") {
				texts = append(texts, r.text)
			}
		}
		if len(texts) == 0 {
			continue
		}
		name := mn
		if name == "" {
			name = "all"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := benchcpu.Start(b)
			for i := 0; i < b.N; i++ {
				EncodeText(texts[i%len(texts)], 0x100, 52, nil)
			}
			cpu.Report(1, "line")
		})
	}
}
