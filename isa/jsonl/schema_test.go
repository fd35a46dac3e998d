package jsonl_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa/jsonl"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// validate checks v against the subset of JSON Schema that
// docs/listing.schema.json uses: type, required, properties,
// additionalProperties false, items, enum, minimum, maximum, pattern, $ref.
func validate(schema, root map[string]any, v any, path string) error {
	if ref, ok := schema["$ref"].(string); ok {
		var name string
		fmt.Sscanf(ref, "#/$defs/%s", &name)
		return validate(root["$defs"].(map[string]any)[name].(map[string]any), root, v, path)
	}
	if enum, ok := schema["enum"].([]any); ok {
		for _, e := range enum {
			if e == v {
				return nil
			}
		}
		return fmt.Errorf("%s: %v not in %v", path, v, enum)
	}
	switch schema["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", path)
		}
		props, _ := schema["properties"].(map[string]any)
		for _, r := range schema["required"].([]any) {
			if _, ok := m[r.(string)]; !ok {
				return fmt.Errorf("%s: missing %s", path, r)
			}
		}
		for k, x := range m {
			p, ok := props[k].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: unexpected field %s", path, k)
			}
			if err := validate(p, root, x, path+"."+k); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", path)
		}
		for i, x := range a {
			if err := validate(schema["items"].(map[string]any), root, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: not a string", path)
		}
		if p, ok := schema["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(s) {
			return fmt.Errorf("%s: %q does not match %s", path, s, p)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", path)
		}
	case "integer":
		n, ok := v.(float64)
		if !ok || n != float64(int64(n)) {
			return fmt.Errorf("%s: not an integer", path)
		}
		if lo, ok := schema["minimum"].(float64); ok && n < lo {
			return fmt.Errorf("%s: %v < %v", path, n, lo)
		}
		if hi, ok := schema["maximum"].(float64); ok && n > hi {
			return fmt.Errorf("%s: %v > %v", path, n, hi)
		}
	}
	return nil
}

// Every record of the line-info corpus's JSON listings validates against
// the documented schema, and carries what the schema promises.
func TestListingSchema(t *testing.T) {
	raw, err := os.ReadFile("../../docs/listing.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	cubins, _ := filepath.Glob("../maxwell/testdata/lineinfo/cubin/*.cubin")
	if len(cubins) == 0 {
		t.Fatal("no cubins")
	}
	records, withOps := 0, 0
	for _, c := range cubins {
		data, _ := os.ReadFile(c)
		f, err := cubin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := maxwell.WriteJSON(jsonl.NewWriter(&buf), f, nil, 0, f.SM()); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(&buf)
		for sc.Scan() {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("%s: %v: %s", c, err, sc.Text())
			}
			if err := validate(schema, schema, v, "$"); err != nil {
				t.Fatalf("%s: %v: %s", c, err, sc.Text())
			}
			records++
			if _, ok := v.(map[string]any)["operands"]; ok {
				withOps++
			}
		}
	}
	t.Logf("%d records valid, %d with operands", records, withOps)
	// a record that breaks the schema is caught
	bad := map[string]any{"address": 8.0, "bytes": "zz", "text": "X"}
	if validate(schema, schema, bad, "$") == nil {
		t.Fatal("bad bytes accepted")
	}
}
