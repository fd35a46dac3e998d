package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/gpuisa/gpuisa/internal/safeio"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

func disCommand() *command {
	return &command{
		name:    "dis",
		args:    "FILE...",
		summary: "list machine code: ELF cubins, fatbins, host objects, GXP shaders, or raw code with -arch",
		doc: `Each FILE is an NVIDIA ELF cubin, a fat binary or a host object carrying one, a PS Vita
GXP shader, or raw machine code (little-endian memory order; needs -arch). - reads
standard input. Cubins list as cuobjdump -sass does (sm_1x, sm_2x) or as
nvdisasm -hex -novliw does (sm_5x). An encoding that does not decode is listed as a
.word line (which 'gpuisa as' reads back), reported on standard error with its
address, and makes the exit status 1.`,
		define: defineDis,
	}
}

func defineDis(fs *flag.FlagSet) func(*cmdIO, []string) int {
	archName := fs.String("arch", "", "architecture `ARCH` of raw input: "+all.Names())
	baseStr := fs.String("base", "0", "address `ADDR` of the first byte of raw input: a multiple of the\ninstruction alignment (4; sm_5x 32, sgx543 8), the code ending below 2^32;\nas reads it back from the listing's first address")
	nvn := fs.Bool("nvn", false, "sm_5x: comment constant banks and attribute addresses as NVN (Tegra X1) shaders use them")
	vliw := fs.Bool("vliw", false, "sm_5x cubins: brace dual-issued pairs as nvdisasm does without -novliw")
	noHex := fs.Bool("nohex", false, "sm_5x cubins: no hex comments or control-word lines, as nvdisasm without -hex\n(-vliw -nohex lists as plain 'nvdisasm file.cubin')")
	dialect := fs.String("dialect", "new", "sm_20/sm_21: `STYLE` new (CUDA 5 and later cuobjdump) or old (CUDA 3.x/4.0, hex before the text)")
	graph := fs.Bool("cfg", false, "print control-flow graphs instead of listings (cubins, GXP shaders, raw code of every ISA), in the -format")
	format := fs.String("format", "dot", "with -cfg: `FORMAT` dot (sm_5x cubins: nvdisasm -bbcfg's DOT), json or svg")
	facts := fs.Bool("facts", false, "sm_1x/sm_2x cubins: after each .headerflags, print as .cubin lines what cuobjdump does not show\nand 'gpuisa as' needs to rebuild the same cubin (ELF class and flags, registers, barriers,\nparameters, constant banks, shared and local sizes; docs/sass-editing.md)")
	asJSON := fs.Bool("json", false, "one JSON object per instruction (JSON Lines: address, bytes, text, mnemonic, operands,\nsm_5x control fields, function, section; docs/listing-json.md), for every ISA")
	return func(cio *cmdIO, files []string) int {
		stderr := cio.stderr
		c := findCommand("dis")
		if len(files) == 0 {
			return c.usageError(stderr, "no input file (use - for standard input)")
		}
		base, err := strconv.ParseUint(*baseStr, 0, 64)
		if err != nil {
			return c.usageError(stderr, "bad -base %q: want a number such as 0x100", *baseStr)
		}
		var arch isa.Arch
		if *archName != "" {
			if arch, err = all.Lookup(*archName); err != nil {
				return c.usageError(stderr, "%v", err)
			}
		}
		if *nvn && arch.Name != "" && arch.ISA != "maxwell" {
			return c.usageError(stderr, "-nvn is for sm_5x code, not %s", arch.Name)
		}
		if arch.Name != "" {
			if err := checkBase(arch, base, 0); err != nil {
				return c.usageError(stderr, "%v", err)
			}
		}
		if *dialect != "new" && *dialect != "old" {
			return c.usageError(stderr, "bad -dialect %q: want new or old", *dialect)
		}
		if *asJSON {
			return jsonFiles(cio, files, arch, base)
		}
		if *graph {
			return graphFiles(cio, files, *format, arch, base, maxwell.ListOptions{VLIW: *vliw, NoHex: *noHex})
		}
		if *dialect == "old" {
			if arch.Name != "" && arch.ISA != "fermi" {
				return c.usageError(stderr, "-dialect old is for sm_20 and sm_21, not %s", arch.Name)
			}
			return listFermiOld(cio, files, arch, base)
		}
		return listFiles(cio, files, arch, base, *nvn, cubinListOptions{maxwell.ListOptions{VLIW: *vliw, NoHex: *noHex}, *facts})
	}
}

// listFiles lists each file in turn; the exit status is 1 when any failed.
func listFiles(cio *cmdIO, files []string, arch isa.Arch, base uint64, nvn bool, mx cubinListOptions) int {
	stdout, stderr := cio.stdout, cio.stderr
	out := stdout
	var reserved *reservingFile
	if arch.WriteListingFrom != nil && !nvn && base == 0 {
		// raw code streamed to a regular file: its blocks are reserved
		// ahead (reservingFile)
		out, reserved = newReservingFile(stdout)
	}
	w := bufio.NewWriterSize(out, 1<<16)
	defer func() {
		w.Flush()
		reserved.release()
	}()
	var streamTo io.Writer = w // where raw code is listed as it is read
	if reserved != nil {
		streamTo = bufferedBuffers{w, reserved}
	}
	status := 0
	for _, name := range files {
		// the input's memory is given back once it is listed (its own
		// mapping, in huge pages: safeio.ReadFileOwned)
		data, release, failed, err := cio.readOrStream(streamTo, name, base, arch, nvn, true)
		if err != nil {
			fmt.Fprintf(stderr, "gpuisa dis: %s\n", message(err))
			status = 1
			continue
		}
		if failed {
			status = 1
		}
		if data == nil && arch.WriteListingFrom != nil && !nvn && base == 0 {
			continue // listed as it was read
		}
		var errs []error
		out := io.Writer(w)
		var annotate *maxwell.NVNWriter
		if nvn {
			annotate = maxwell.NewNVNWriter(w)
			out = annotate
		}
		if base != 0 && (isContainer(data) || isGXP(data)) {
			w.Flush()
			release()
			return findCommand("dis").usageError(stderr, "%s: -base is for raw code; a cubin, fatbin or GXP file says where its code is", name)
		}
		switch {
		case isContainer(data):
			errs = disContainer(out, data, arch, mx)
		case isGXP(data):
			errs = disGXP(out, data)
		default:
			if arch.Name == "" {
				w.Flush()
				release()
				return findCommand("dis").usageError(stderr, "%s: raw input needs -arch (one of %s)", name, all.Names())
			}
			if err := checkBase(arch, base, len(data)); err != nil {
				w.Flush()
				release()
				return findCommand("dis").usageError(stderr, "%s: %v", name, err)
			}
			if f, ok := stdout.(*os.File); ok && annotate == nil {
				// a long sm_5x listing is written to a regular file
				// at computed offsets, laid out on every core
				// (maxwell.FileWriter)
				out = bufferedFile{w, f}
			}
			errs = disRaw(out, data, base, arch)
		}
		if annotate != nil {
			annotate.Close()
		}
		w.Flush() // nothing written may still refer to data
		release()
		for i, e := range errs {
			if i == maxPrintedErrors {
				fmt.Fprintf(stderr, "gpuisa dis: %s: and %d more errors\n", displayName(name), errorCount(errs[i:]))
				break
			}
			fmt.Fprintf(stderr, "gpuisa dis: %s: %v\n", displayName(name), e)
		}
		if len(errs) > 0 {
			status = 1
		}
	}
	return status
}

// readOrStream reads file name (or standard input for "-"), unless it is
// raw code of an arch that lists from a reader: that is listed to w as it
// is read (memory does not grow with the file; decode errors are reported
// as their part is listed), and data is nil. failed says an error was
// reported. With owned, a large file is read into memory of its own,
// which release gives back (data must not be used after it); release is
// never nil.
func (cio *cmdIO) readOrStream(w io.Writer, name string, base uint64, arch isa.Arch, nvn, owned bool) (data []byte, release func(), failed bool, err error) {
	release = func() {}
	if arch.WriteListingFrom == nil || nvn || base != 0 {
		// a -base code is read whole: its length must be checked against
		// the 32-bit address space before anything is listed
		if owned && name != "-" {
			data, release, err = safeio.ReadFileOwned(name, cio.limit())
		} else {
			data, err = cio.readInput(name)
		}
		return data, release, false, err
	}
	limit := cio.limit()
	in, shown := cio.stdin, "<stdin>"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, release, false, err
		}
		defer f.Close()
		in, shown = f, name
	}
	br := bufio.NewReaderSize(&safeio.LimitedReader{R: in, Name: shown, Limit: limit}, 1<<16)
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, release, false, err
	}
	if isContainer(head) || isGXP(head) {
		data, err = safeio.ReadAll(br, shown, limit)
		return data, release, false, err
	}
	printed := 0
	rerr := arch.WriteListingFrom(w, br, base, func(e *isa.DecodeError) {
		failed = true
		if printed < maxPrintedErrors {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", displayName(name), e)
		}
		printed++
	})
	if printed > maxPrintedErrors {
		fmt.Fprintf(cio.stderr, "gpuisa dis: %s: and %d more errors\n", displayName(name), printed-maxPrintedErrors)
	}
	if rerr != nil {
		fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %s\n", displayName(name), message(rerr))
		failed = true
	}
	return nil, release, failed, nil
}

// errorCount is how many errors errs stand for: a decode error that
// isa.ErrorsCapped made the last counts every error past the limit.
func errorCount(errs []error) int {
	n := 0
	for _, e := range errs {
		var de *isa.DecodeError
		if errors.As(e, &de) {
			n += de.Count()
		} else {
			n++
		}
	}
	return n
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

// bufferedFile is a buffered writer in front of a file that hands the file
// over (maxwell.FileWriter): what it holds is written first.
type bufferedFile struct {
	*bufio.Writer
	f *os.File
}

func (b bufferedFile) File() (*os.File, error) { return b.f, b.Flush() }
