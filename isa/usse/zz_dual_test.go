package usse

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkZZDual(b *testing.B) {
	fh, _ := os.Open("testdata/decode.txt")
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	var ins []Inst
	for sc.Scan() {
		hex, _, ok := strings.Cut(sc.Text(), "\t")
		w, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil {
			continue
		}
		in, err := DecodeWord(w, 0)
		if err != nil || (w>>59 != 4 && w>>59 != 5) {
			continue
		}
		ins = append(ins, in)
	}
	buf := make([]byte, 0, 256)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range ins {
			buf = appendText(buf[:0], &ins[j])
		}
	}
}
