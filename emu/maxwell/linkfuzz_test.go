package maxwell

import "testing"

// FuzzLinkImage links arbitrary bytes as a program and as an object: the
// linker must return an image or an error, never panic, and an image must
// lower.
func FuzzLinkImage(f *testing.F) {
	f.Add(testdataFile(f, "link.rel.sm_52.cubin"), testdataFile(f, "ext_fn.rel.sm_52.cubin"))
	f.Add(testdataFile(f, "calls.rel.sm_52.cubin"), []byte{})
	f.Add(testdataFile(f, "link.nvlink.sm_52.cubin"), testdataFile(f, "ext_fn.rel.sm_52.cubin"))
	f.Fuzz(func(t *testing.T, prog, obj []byte) {
		if len(prog)+len(obj) > 64<<10 {
			return // large inputs are linked slowly and minimised for ever
		}
		var objs []Object
		if len(obj) > 0 {
			objs = []Object{{Name: "obj", Data: obj}}
		}
		img, err := LinkImage("prog", prog, "", "sm_52", objs)
		if err != nil {
			return
		}
		if len(img.Code)%32 != 0 {
			t.Fatalf("code of %d bytes", len(img.Code))
		}
		if _, err := Lower(img.Code, 52); err != nil {
			t.Fatal(err)
		}
	})
}
