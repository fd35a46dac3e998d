// Package examples holds runnable examples: kernels with their launch
// files, inputs and expected outputs. The tests run every launch file as
// `gpuisa run` does and check that every launch-file field is shown by one.
package examples

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/all"
	usse "github.com/gpuisa/gpuisa/emu/usse"
)

// launchFiles lists the launch files under examples/.
func launchFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") && !strings.HasSuffix(path, ".campaign.json") {
			// shader launch files (arch sgx543) have their own format and
			// tests (examples/usse)
			if data, err := os.ReadFile(path); err == nil && usse.IsLaunch(data) {
				return nil
			}
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no launch files")
	}
	return files
}

// TestExamples runs every launch file through the library (the path `gpuisa
// run` takes) and checks its expectations; each must have some, and its
// outputs must be readable.
func TestExamples(t *testing.T) {
	archs := map[string]bool{}
	for _, path := range launchFiles(t) {
		t.Run(path, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := emu.ParseLaunch(data)
			if err != nil {
				t.Fatal(err)
			}
			seq, err := l.NewSequence(all.NewDevice(), filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			res, err := seq.Run()
			if err != nil {
				t.Fatal(err)
			}
			archs[res.Arch] = true
			for _, o := range l.Outputs {
				if _, err := l.OutputBytes(o, res); err != nil {
					t.Errorf("output %s: %v", o.File, err)
				}
			}
			if len(l.Expect) == 0 {
				t.Fatal("no expectations: an example must say what it computes")
			}
			n, err := l.Check(filepath.Dir(path), res)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d warp-instructions, %d values checked", res.Arch, res.Stats.WarpInsts, n)
		})
	}
	// at least one example per runnable family
	for _, e := range all.Emulators() {
		found := false
		for _, a := range e.Archs {
			found = found || archs[a]
		}
		if !found {
			t.Errorf("no example runs on %s (%v)", e.Family, e.Archs)
		}
	}
}

// noEffect lists launch-file fields the format accepts that change
// nothing, so no example can show them (docs/launch.md says so).
var noEffect = map[string]string{
	"Output.bank": "outputs read global memory only",
}

// TestEveryFieldHasAnExample walks the examples' JSON along emu.Launch's
// types and fails for a field (of any nested type) that no example uses.
func TestEveryFieldHasAnExample(t *testing.T) {
	used := map[string]bool{}
	for _, path := range launchFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(path, err)
		}
		markUsed(reflect.TypeOf(emu.Launch{}), v, used)
	}
	var missing []string
	for _, f := range jsonFields(reflect.TypeOf(emu.Launch{}), map[reflect.Type]bool{}) {
		if !used[f] && noEffect[f] == "" {
			missing = append(missing, f)
		}
		if used[f] && noEffect[f] != "" {
			t.Errorf("%s is listed as having no effect, yet an example uses it", f)
		}
	}
	if len(missing) > 0 {
		t.Errorf("launch-file fields without an example under examples/: %s", strings.Join(missing, ", "))
	}
}

// structOf strips pointers, slices and maps down to a struct type, or nil
// for a leaf (emu.Num, strings, numbers, booleans).
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeOf(emu.Num{}) {
		return nil
	}
	return t
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// jsonFields lists "Type.field" for every JSON field reachable from t.
func jsonFields(t reflect.Type, seen map[reflect.Type]bool) []string {
	if seen[t] {
		return nil
	}
	seen[t] = true
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || name == "-" {
			continue
		}
		out = append(out, t.Name()+"."+name)
		if st := structOf(f.Type); st != nil {
			out = append(out, jsonFields(st, seen)...)
		}
	}
	sort.Strings(out)
	return out
}

// markUsed records the fields of t that the JSON value v sets, through
// nested objects, arrays and maps.
func markUsed(t reflect.Type, v any, used map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			markUsed(t, e, used)
		}
		return
	case map[string]any:
		for i := range t.NumField() {
			f := t.Field(i)
			val, ok := x[jsonName(f)]
			if !ok {
				continue
			}
			used[t.Name()+"."+jsonName(f)] = true
			st := structOf(f.Type)
			if st == nil {
				continue
			}
			if f.Type.Kind() == reflect.Map {
				for _, e := range val.(map[string]any) {
					markUsed(st, e, used)
				}
				continue
			}
			markUsed(st, val, used)
		}
	}
}
