package gxp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// TestWriteRoundTrip: writing what Parse and ParseResources read gives a
// file they read back the same, for the libvita2d GXPs and the tiny one.
func TestWriteRoundTrip(t *testing.T) {
	files := []string{"testdata/tiny_vertex.gxp"}
	if dir := oracle.SharedDir(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "oracle/usse/libvita2d/*.gxp"))
		files = append(files, more...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseResources(data)
		if err != nil {
			t.Fatal(err)
		}
		out := Write(p, r)
		p2, err := Parse(out)
		if err != nil {
			t.Fatalf("%s: rewritten: %v", f, err)
		}
		r2, err := ParseResources(out)
		if err != nil {
			t.Fatalf("%s: rewritten resources: %v", f, err)
		}
		p.Size, p2.Size = 0, 0
		p.PrimaryOffset, p2.PrimaryOffset, p.SecondaryOffset, p2.SecondaryOffset = 0, 0, 0, 0
		p.Major, p.Minor, p.SDKVersion = p2.Major, p2.Minor, p2.SDKVersion
		if !reflect.DeepEqual(p, p2) {
			t.Errorf("%s: program\n%+v\nrewritten\n%+v", f, p, p2)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Errorf("%s: resources\n%+v\nrewritten\n%+v", f, r, r2)
		}
	}
}

// FuzzResources: ParseResources never panics, and what it reads survives
// Write.
func FuzzResources(f *testing.F) {
	if b, err := os.ReadFile("testdata/tiny_vertex.gxp"); err == nil {
		f.Add(b)
	}
	f.Add(Write(&Program{Kind: Fragment, Primary: []uint64{1}}, &Resources{Containers: []Container{{14, 0, 4}},
		Literals: []Literal{{1, 2}}, Samplers: []DependentSampler{{1, 4}}, Inputs: []FragmentInput{{Info: 0xf900, SizeWord: 0x40, CompInfo: 0x20}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseResources(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		p, _ := Parse(b)
		r2, err := ParseResources(Write(p, r))
		if err != nil {
			t.Fatalf("rewritten: %v", err)
		}
		if len(r2.Containers) != len(r.Containers) || len(r2.Literals) != len(r.Literals) || len(r2.Inputs) != len(r.Inputs) {
			t.Fatalf("tables changed: %+v -> %+v", r, r2)
		}
	})
}
