package main

import (
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
)

// The committed tables.go must be what the generator makes of spec.txt.
func TestTablesUpToDate(t *testing.T) {
	fields, forms, err := parse("../../spec.txt")
	if err != nil {
		t.Fatal(err)
	}
	specFields = fields
	want, err := generate(fields, forms)
	gentest.Current(t, "../../tables.go", want, err, "./isa/tesla")
}
