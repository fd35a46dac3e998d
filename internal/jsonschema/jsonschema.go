// Package jsonschema checks JSON values against the subset of JSON Schema
// (draft 2020-12) that the project's documented schemas use
// (docs/listing.schema.json, docs/run.schema.json): type, required,
// properties, additionalProperties false, items, enum, minimum, maximum,
// pattern and $ref to #/$defs. The tests validate what the tools print.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Schema is a parsed schema.
type Schema struct {
	root     map[string]any
	patterns sync.Map // pattern -> *regexp.Regexp: values are checked by the hundred thousand
}

// Load reads the schema in file.
func Load(file string) (*Schema, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &Schema{root: root}, nil
}

// Validate checks v, a value as encoding/json decodes it into an any.
func (s *Schema) Validate(v any) error { return s.validate(s.root, v, "$") }

func (s *Schema) compiled(p string) (*regexp.Regexp, error) {
	if re, ok := s.patterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	s.patterns.Store(p, re)
	return re, nil
}

func (s *Schema) validate(schema map[string]any, v any, path string) error {
	if ref, ok := schema["$ref"].(string); ok {
		defs, _ := s.root["$defs"].(map[string]any)
		def, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: unknown $ref %s", path, ref)
		}
		return s.validate(def, v, path)
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
		required, _ := schema["required"].([]any)
		for _, r := range required {
			if _, ok := m[r.(string)]; !ok {
				return fmt.Errorf("%s: missing %s", path, r)
			}
		}
		for k, x := range m {
			p, ok := props[k].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: unexpected field %s", path, k)
			}
			if err := s.validate(p, x, path+"."+k); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", path)
		}
		items, _ := schema["items"].(map[string]any)
		for i, x := range a {
			if err := s.validate(items, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: not a string", path)
		}
		if p, ok := schema["pattern"].(string); ok {
			re, err := s.compiled(p)
			if err != nil {
				return fmt.Errorf("%s: pattern %s: %v", path, p, err)
			}
			if !re.MatchString(str) {
				return fmt.Errorf("%s: %q does not match %s", path, str, p)
			}
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
