package cubinasm

import (
	"strings"
	"testing"
)

// TestSectionNameErrors: a .section name that would not read back from the
// listing (its label line, "NAME:") is an error at its line. FuzzAs in
// cmd/gpuisa found ".de ug_frame" accepted, listed, and then read as the
// directive ".de".
func TestSectionNameErrors(t *testing.T) {
	head := "\t.headerflags\t@\"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM52 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM52)\"\n\t.elftype\t@\"ET_EXEC\"\n"
	for _, tc := range []struct{ name, want string }{
		{".de ug_frame", `bad section name ".de ug_frame": it holds ' '`},
		{".a\tb", `it holds '\t'`},
		{".a;b", `it holds ';'`},
		{".a\x00b", `it holds '\x00'`},
		{"//x", "it starts a comment"},
		{"", "it is empty"},
	} {
		src := head + "\t.section\t" + tc.name + ",\"\",@progbits\n\t.byte 0\n"
		_, err := Parse("f.s", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "f.s:3:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("section %q: got %v, want an error at line 3 with %q", tc.name, err, tc.want)
		}
	}
	// names ptxas gives are accepted
	for _, name := range []string{".nv.info", ".text.k", ".nv.constant0.k", ".debug_frame", ".nv.shared.k$1"} {
		src := head + "\t.section\t" + name + ",\"\",@progbits\n" + name + ":\n\t.byte 0\n"
		if _, err := Parse("f.s", []byte(src)); err != nil {
			t.Errorf("section %q: %v", name, err)
		}
	}
}
