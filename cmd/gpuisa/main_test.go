package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// The bundled example assembles to the committed binary, and lists back.
func TestExampleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "vecadd.bin")
	if code, _, stderr := runCLI(t, "", "as", "-arch", "sm_10", "-o", bin, "../../examples/tesla/vecadd.s"); code != 0 {
		t.Fatalf("as: %d %s", code, stderr)
	}
	want, err := os.ReadFile("../../examples/tesla/vecadd.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(bin)
	if !bytes.Equal(got, want) {
		t.Fatal("examples/tesla/vecadd.bin is stale: run gpuisa as again")
	}
	code, listing, stderr := runCLI(t, "", "dis", "-arch", "sm_10", bin)
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	if !strings.Contains(listing, "/*0050*/        GST.U32 global14[R2], R3;") {
		t.Fatalf("unexpected listing:\n%s", listing)
	}
	lst := filepath.Join(dir, "vecadd.lst")
	os.WriteFile(lst, []byte(listing), 0o644)
	code, again, stderr := runCLI(t, "", "as", "-arch", "sm_10", lst)
	if code != 0 || again != string(want) {
		t.Fatalf("listing does not assemble back: %d %s", code, stderr)
	}
}

// Raw input from standard input, an invalid word in the middle: the rest is
// still listed, the error names the address, the exit status is 1.
func TestDisInvalidWord(t *testing.T) {
	in := string([]byte{0x00, 0x82, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0x00, 0x10})
	code, out, stderr := runCLI(t, in, "dis", "-arch", "sm_10", "-base", "0x100", "-")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "/*0104*/ invalid encoding") {
		t.Errorf("stderr %q does not name address 0x104", stderr)
	}
	for _, want := range []string{"/*0100*/        MOV32 R0, R1;", "/*0104*/        .word 0x0;", "/*0108*/        MOV32 R0, R1;"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, {"bogus"}, {"dis"}, {"dis", "-arch", "sm_99", "x"}, {"as", "x"}, {"dis", "-base", "zz", "x"},
	} {
		if code, _, _ := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// raw input without -arch
	if code, _, stderr := runCLI(t, "\x00\x00\x00\x10", "dis", "-"); code != 2 || !strings.Contains(stderr, "-arch") {
		t.Errorf("raw without -arch: %d %q", code, stderr)
	}
}

func TestAsErrorsHavePositions(t *testing.T) {
	src := "MOV R0, R1;\n  IADD R0, R1, Q7;\nBRA nowhere;\n"
	code, _, stderr := runCLI(t, src, "as", "-arch", "sm_10", "-")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"<stdin>:2:", "<stdin>:3:", "undefined label nowhere"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// A cubin lists with cuobjdump's frame, and the listing assembles to the code.
func TestCubinListing(t *testing.T) {
	code, listing, stderr := runCLI(t, "", "dis", "../../examples/tesla/vecadd.cubin")
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	for _, want := range []string{"\tcode for sm_10\n", "\t\tFunction : vecadd\n",
		"\t.headerflags    @\"EF_CUDA_SM10 EF_CUDA_PTX_SM(EF_CUDA_SM10)\"\n", "/*0050*/"} {
		if !strings.Contains(listing, want) {
			t.Errorf("listing lacks %q", want)
		}
	}
	code, raw, stderr := runCLI(t, listing, "as", "-arch", "sm_10", "-")
	want, _ := os.ReadFile("../../examples/tesla/vecadd.bin")
	if code != 0 || raw != string(want) {
		t.Fatalf("cubin listing does not assemble to vecadd.bin: %d %s", code, stderr)
	}
	// a corrupt cubin is an error, not a panic
	data, _ := os.ReadFile("../../examples/tesla/vecadd.cubin")
	bad := filepath.Join(t.TempDir(), "bad.cubin")
	os.WriteFile(bad, data[:100], 0o644)
	if code, _, stderr := runCLI(t, "", "dis", bad); code != 1 || !strings.Contains(stderr, "bad.cubin") {
		t.Errorf("truncated cubin: exit %d, %q", code, stderr)
	}
}

// A GXP shader lists with its header and both programs.
func TestGXPListing(t *testing.T) {
	code, listing, stderr := runCLI(t, "", "dis", "../../binfmt/gxp/testdata/tiny_vertex.gxp")
	if code != 0 || stderr != "" {
		t.Fatalf("dis: %d %s", code, stderr)
	}
	for _, want := range []string{"// GXP vertex program", "mov.f32 o0.xy, i0.xy ;", "nop.end ;"} {
		if !strings.Contains(listing, want) {
			t.Errorf("listing lacks %q:\n%s", want, listing)
		}
	}
	if code, _, _ := runCLI(t, "GXP\x00garbage", "dis", "-"); code != 1 {
		t.Errorf("corrupt GXP: exit %d, want 1", code)
	}
}

// Fermi: a listing assembles to a cubin that lists back.
func TestFermiCubin(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "k.s")
	os.WriteFile(src, []byte("MOV R1, c[0x1][0x100];\nS2R R0, SR_TID.X;\nEXIT;\n"), 0o644)
	cub := filepath.Join(dir, "k.cubin")
	if code, _, stderr := runCLI(t, "", "as", "-arch", "sm_20", "-cubin", "-o", cub, src); code != 0 {
		t.Fatalf("as: %s", stderr)
	}
	code, listing, stderr := runCLI(t, "", "dis", cub)
	if code != 0 || !strings.Contains(listing, "code for sm_20") || !strings.Contains(listing, "S2R R0, SR_TID.X;") {
		t.Fatalf("dis: %d %s\n%s", code, stderr, listing)
	}
}
