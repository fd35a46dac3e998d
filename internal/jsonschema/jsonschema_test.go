package jsonschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestValidate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(file, []byte(`{"type": "object", "required": ["a"], "additionalProperties": false,
		"properties": {"a": {"type": "integer", "minimum": 1, "maximum": 9}, "b": {"$ref": "#/$defs/b"},
		"c": {"type": "array", "items": {"enum": ["x", "y"]}}, "d": {"type": "string", "pattern": "^[0-9a-f]+$"}},
		"$defs": {"b": {"type": "boolean"}}}`), 0o644)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for text, ok := range map[string]bool{
		`{"a": 3}`: true,
		`{"a": 3, "b": true, "c": ["x", "y"], "d": "0f"}`: true,
		`{}`:                   false, // required
		`{"a": 0}`:             false, // minimum
		`{"a": 10}`:            false, // maximum
		`{"a": 1.5}`:           false, // integer
		`{"a": 1, "e": 1}`:     false, // additional
		`{"a": 1, "b": 1}`:     false, // $ref
		`{"a": 1, "c": ["z"]}`: false, // enum in items
		`{"a": 1, "d": "0g"}`:  false, // pattern
		`[1]`:                  false,
	} {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); (err == nil) != ok {
			t.Errorf("%s: %v, want valid %v", text, err, ok)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("no error for a missing schema")
	}
}
