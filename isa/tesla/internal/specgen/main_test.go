package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed tables.go must be what the generator makes of spec.txt.
func TestTablesUpToDate(t *testing.T) {
	fields, forms, err := parse("../../spec.txt")
	if err != nil {
		t.Fatal(err)
	}
	specFields = fields
	want, err := generate(fields, forms)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("tables.go is out of date: run go generate in isa/tesla")
	}
}
