package cubinasm

import (
	"bytes"
	"os"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// TestRebuildTeslaFermi: cubins of ours for sm_10 and sm_20 (the committed
// examples, and ones Write makes with parameters and two kernels), listed as
// gpuisa dis lists them (cuobjdump -sass style), rebuild into cubins whose
// code is the same byte for byte and that list the same; what the listing
// does not show takes defaults, and the test says what differs.
func TestRebuildTeslaFermi(t *testing.T) {
	cubins := map[string][]byte{}
	for _, p := range []string{"../../examples/tesla/vecadd.cubin", "../../isa/all/testdata/copy.sm_20.cubin"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cubins[p] = b
	}
	for _, sm := range []int{10, 13, 20, 21} {
		code := []byte{}
		if sm >= 20 {
			code = bytes.Repeat([]byte{0xe7, 0x1d, 0, 0, 0, 0, 0, 0x80}, 2) // EXIT
		} else {
			code = []byte{0x01, 0x00, 0x00, 0xf0, 0x01, 0xe0, 0x00, 0x00} // a NOP
		}
		m := cubin.DefaultModule(sm, "one", code, 4, 4, 8)
		k := m.Kernels[0]
		k.Name, k.Registers = "two", 16
		m.Kernels = append(m.Kernels, k)
		b, err := cubin.Write(m)
		if err != nil {
			t.Fatal(err)
		}
		cubins["Write sm_"+itoa(sm)] = b
	}
	same := 0
	for _, k := range sortedKeys(cubins) {
		want := cubins[k]
		wf, err := cubin.Parse(want)
		if err != nil {
			t.Fatal(err)
		}
		listing, errs := all.ListCubin(nil, wf, maxwell.ListOptions{})
		if len(errs) > 0 {
			t.Fatalf("%s: %v", k, errs)
		}
		if !IsCuobjdumpListing(listing) || IsCubinListing(listing) {
			t.Fatalf("%s: the listing is not recognised as cuobjdump-style", k)
		}
		got, err := AssembleCuobjdump(k, listing)
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if bytes.Equal(got, want) {
			same++
			continue
		}
		gf, err := cubin.Parse(got)
		if err != nil {
			t.Fatalf("%s: rebuilt cubin does not parse: %v", k, err)
		}
		again, _ := all.ListCubin(nil, gf, maxwell.ListOptions{})
		if !bytes.Equal(again, listing) {
			t.Errorf("%s: the rebuilt cubin lists differently: %s", k, firstLineDiff(again, listing))
		}
		for i, fn := range wf.Functions {
			if !bytes.Equal(gf.Functions[i].Code, fn.Code) || gf.Functions[i].Name != fn.Name {
				t.Errorf("%s: function %s's code differs", k, fn.Name)
			}
		}
		t.Logf("%s: differs in what the listing does not show: %s", k, Defaulted)
	}
	t.Logf("%d/%d Tesla and Fermi cubins of ours rebuild byte for byte from their listings", same, len(cubins))
}
