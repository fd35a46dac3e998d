package gxp

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"
)

// TestManyParametersOneLongName: parameters whose names all point at one
// long string cost the file's size squared to read (a hang on a large
// file); names are bounded, and so is the table.
func TestManyParametersOneLongName(t *testing.T) {
	base, err := os.ReadFile("testdata/tiny_vertex.gxp")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	for _, c := range []struct {
		n       int
		nameLen int
		want    string
	}{
		{60000, 1 << 20, "longer than 4096 bytes"},
		{1 << 17, 8, "parameters, more than 65536"},
	} {
		b := append([]byte(nil), base...)
		params := len(b)
		b = append(b, make([]byte, 16*c.n)...)
		str := len(b)
		b = append(b, strings.Repeat("x", c.nameLen)...)
		b = append(b, 0)
		le.PutUint32(b[0x24:], uint32(c.n))
		le.PutUint32(b[0x28:], uint32(params-0x28))
		for i := range c.n {
			off := params + 16*i
			le.PutUint32(b[off:], uint32(int32(str-off)))
		}
		start := time.Now()
		_, err := Parse(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d parameters: %v, want %q", c.n, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%d parameters took %v", c.n, d)
		}
	}
}
