package maxwell

import (
	"strings"
	"testing"
)

func TestAnnotateNVN(t *testing.T) {
	cases := []struct{ line, comment string }{
		{"        /*0008*/                   MOV R4, c[0x3][0x10] ;      /* 0x4c98078000470004 */", " // c[0x3][0x10]: UBO 0 +0x10"},
		{"        /*0008*/                   MOV R4, c[0xa][0x0] ;", " // c[0xa][0x0]: UBO 7 +0x0"},
		{"        /*0010*/                   IADD R0, R1, c[0x0][0x20] ;", " // c[0x0][0x20]: driver constants"},
		{"        /*0010*/                   FADD R0, R1, c[0x1][0x4] ;", " // c[0x1][0x4]: immediate constants"},
		{"        /*0010*/                   MOV R0, c[0x2][0x38] ;", " // c[0x2][0x38]: texture/sampler binding 3"},
		{"        /*0010*/                   MOV R0, c[0x2][0x128] ;", " // c[0x2][0x128]: image binding 1"},
		{"        /*0010*/                   MOV R0, c[0x2][0x170] ;", " // c[0x2][0x170]: texture binding 1"},
		{"        /*0010*/                   MOV R0, c[0x2][0x568] ;", " // c[0x2][0x568]: sampler binding 0"},
		{"        /*0010*/                   MOV R0, c[0x2][0x0] ;", " // c[0x2][0x0]: bound resources (reserved)"},
		{"        /*0010*/                   LDC R0, c[0x4][R2+0x8] ;", " // c[0x4][R2+0x8]: UBO 1 +R2+0x8"},
		{"        /*0010*/                   MOV R0, c[0x11][0x0] ;", " // c[0x11][0x0]: reserved by the driver"},
		{"        /*0010*/                   MOV R0, c[0x12][0x0] ;", ""},
		{"        /*01b8*/                   IPA R5, a[0x80], R4 ;", " // a[0x80]: GENERIC_ATTRIBUTE_00_X"},
		{"        /*01c8*/                   IPA R6, a[0x84], R4 ;", " // a[0x84]: GENERIC_ATTRIBUTE_00_Y"},
		{"        /*01c8*/                   IPA R6, a[0xcc], R4 ;", " // a[0xcc]: GENERIC_ATTRIBUTE_04_W"},
		{"        /*01c8*/                   IPA R6, a[0x27c], R4 ;", " // a[0x27c]: GENERIC_ATTRIBUTE_31_W"},
		{"        /*01c8*/                   ALD R6, a[0x70] ;", " // a[0x70]: POSITION_X"},
		{"        /*01c8*/                   AST a[0x3fc], R1 ;", " // a[0x3fc]: FRONT_FACE"},
		{"        /*01c8*/                   ALD R6, a[0x2c4] ;", " // a[0x2c4]: CLIP_DISTANCE_1"},
		{"        /*01c8*/                   ALD R6, a[0x314] ;", " // a[0x314]: FIXED_FNC_TEXTURE_1_T"},
		{"        /*01c8*/                   IPA R0, a[0x80], c[0x3][0x0] ;", " // a[0x80]: GENERIC_ATTRIBUTE_00_X; c[0x3][0x0]: UBO 0 +0x0"},
		{"        /*0008*/                   MOV R1, R2 ;", ""},
		{"                                          /* 0x001fc400fe2007f1 */", ""},
	}
	for _, c := range cases {
		got := string(AnnotateNVN(nil, []byte(c.line+"\n")))
		if want := c.line + c.comment + "\n"; got != want {
			t.Errorf("%q:\n got  %q\n want %q", c.line, got, want)
		}
	}
	// text without operands passes through unchanged, newlines included
	if got := string(AnnotateNVN(nil, []byte("a\nb"))); got != "a\nb" {
		t.Errorf("lines without operands changed: %q", got)
	}
}

func FuzzAnnotateNVN(f *testing.F) {
	f.Add("MOV R4, c[0x3][0x10] ;\nIPA R5, a[0x80], R4 ;")
	f.Add("c[")
	f.Add("a[0x")
	f.Fuzz(func(t *testing.T, s string) {
		out := string(AnnotateNVN(nil, []byte(s)))
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Errorf("line count changed: %q -> %q", s, out)
		}
	})
}
