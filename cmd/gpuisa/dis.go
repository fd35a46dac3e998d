package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

func cmdDis(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dis", flag.ContinueOnError)
	fs.SetOutput(stderr)
	archName := fs.String("arch", "", "architecture of raw input: "+all.Names())
	baseStr := fs.String("base", "0", "address of the first byte of raw input")
	nvn := fs.Bool("nvn", false, "sm_5x: comment constant banks and attribute addresses as NVN (Tegra X1) shaders use them")
	vliw := fs.Bool("vliw", false, "sm_5x cubins: brace dual-issued pairs as nvdisasm does without -novliw")
	noHex := fs.Bool("nohex", false, "sm_5x cubins: no hex comments or control-word lines, as nvdisasm without -hex (-vliw -nohex is plain `nvdisasm file.cubin`)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "gpuisa dis: no input file (use - for standard input)")
		return 2
	}
	base, err := strconv.ParseUint(*baseStr, 0, 64)
	if err != nil {
		fmt.Fprintf(stderr, "gpuisa dis: bad -base %q\n", *baseStr)
		return 2
	}
	var arch isa.Arch
	if *archName != "" {
		if arch, err = all.Lookup(*archName); err != nil {
			fmt.Fprintf(stderr, "gpuisa dis: %v\n", err)
			return 2
		}
	}
	if *nvn && arch.Name != "" && arch.ISA != "maxwell" {
		fmt.Fprintf(stderr, "gpuisa dis: -nvn is for sm_5x code, not %s\n", arch.Name)
		return 2
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	defer w.Flush()
	status := 0
	for _, name := range fs.Args() {
		data, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "gpuisa dis: %v\n", err)
			status = 1
			continue
		}
		var errs []error
		out := io.Writer(w)
		var listing *bytes.Buffer
		if *nvn {
			listing = new(bytes.Buffer)
			out = listing
		}
		switch {
		case isContainer(data):
			errs = disContainer(out, data, arch, maxwell.ListOptions{VLIW: *vliw, NoHex: *noHex})
		case isGXP(data):
			errs = disGXP(out, data)
		default:
			if arch.Name == "" {
				fmt.Fprintf(stderr, "gpuisa dis: %s: raw input needs -arch (one of %s)\n", name, all.Names())
				return 2
			}
			errs = disRaw(out, data, base, arch)
		}
		if listing != nil {
			w.Write(maxwell.AnnotateNVN(nil, listing.Bytes()))
		}
		for _, e := range errs {
			fmt.Fprintf(stderr, "gpuisa dis: %s: %v\n", name, e)
			status = 1
		}
	}
	return status
}

func isELF(b []byte) bool { return bytes.HasPrefix(b, []byte("\x7fELF")) }

// disRaw lists raw machine code, streamed where the ISA can (Maxwell
// listings are 20 times the size of the code).
func disRaw(w io.Writer, data []byte, base uint64, arch isa.Arch) []error {
	var errs []error
	var derrs []*isa.DecodeError
	if arch.WriteListing != nil {
		var werr error
		if derrs, werr = arch.WriteListing(w, data, base); werr != nil {
			errs = append(errs, werr)
		}
	} else {
		var out []byte
		out, derrs = arch.Disassemble(make([]byte, 0, len(data)*12), data, base)
		w.Write(out)
	}
	for _, e := range derrs {
		errs = append(errs, e)
	}
	return errs
}
