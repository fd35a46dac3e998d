package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/safeio"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// nvdisasmTool is nvdisasm 11.8's command line (the options it documents,
// with its spellings); the descriptions are ours.
func nvdisasmTool() *nvTool {
	return &nvTool{name: "nvdisasm", usage: "[options] <image file>", opts: []toolOpt{
		{long: "base-address", short: "base", arg: "<value>", usage: "Address of the first byte of a raw binary (see --binary); cubins keep their own addresses. Default value: 0x0."},
		{long: "binary", short: "b", arg: "<SMxy>", allowed: []string{"SM50", "SM52", "SM53"},
			usage: "The input is raw machine code (instructions as they lie in memory) for this architecture, not an ELF cubin."},
		{long: "cuda-function-index", short: "fun", arg: "<symbol index>", list: true,
			usage: "List only the code sections that hold the functions with these symbol-table indices; data sections are still listed."},
		{long: "help", short: "h", usage: "Print this help."},
		{long: "life-range-mode", short: "lrm", arg: "<mode>", allowed: []string{"count", "narrow", "wide"},
			usage: "Implies --print-life-ranges and picks its columns: count (the number of live registers only), wide (one spaced column per register, the default) or narrow (one character per register)."},
		{long: "no-dataflow", short: "ndf", usage: "Do not analyse the branch stack: SYNC, BRK, CONT and indirect branches and calls get no target annotations."},
		{long: "no-vliw", short: "novliw", usage: "List dual-issued pairs as ordinary lines, without braces."},
		{long: "options-file", short: "optf", arg: "<file>", list: true, usage: "Read more options from these files."},
		{long: "output-control-flow-graph", short: "cfg", usage: "Print the control-flow graph of each function in DOT (Graphviz), one node per hyperblock."},
		{long: "output-control-flow-graph-with-basic-blocks", short: "bbcfg", usage: "Print the control-flow graph of each function in DOT (Graphviz), one node per basic block."},
		{long: "print-code", short: "c", usage: "List the code sections only."},
		{long: "print-instr-offsets-cfg", short: "poff", usage: "Put instruction offsets in the nodes of the control-flow graph (with -cfg or -bbcfg)."},
		{long: "print-instruction-encoding", short: "hex", usage: "Print each instruction's encoding, and each control word, in a /* 0x... */ column."},
		{long: "print-life-ranges", short: "plr", usage: "Print which registers are live at each instruction in a trailing column."},
		{long: "print-line-info", short: "g", usage: "Mark the source lines of the instructions, from the .debug_line section."},
		{long: "print-line-info-inline", short: "gi", usage: "Mark the source lines of the instructions and where they were inlined, from the .debug_line section."},
		{long: "print-line-info-ptx", short: "gp", usage: "Mark the PTX lines of the instructions, from the .nv_debug_line_sass section."},
		{long: "print-raw", short: "raw", usage: "List without beautifying: no hanging guards, no aligned annotation and hex columns, tabs as blanks."},
		{long: "separate-functions", short: "sf", usage: "Put blank lines before every function so that functions stand out."},
		{long: "version", short: "V", usage: "Print the version of the tool."},
	}}
}

func nvdisasmCommand() *command {
	return &command{
		name:    "nvdisasm",
		args:    "[options] FILE",
		summary: "drop-in for NVIDIA's nvdisasm 11.8 (sm_5x cubins and raw code): its options, its output",
		doc: `Takes nvdisasm's command line (long --name and short -name spellings, values as the
next argument or after '=', -optf files) and prints what nvdisasm 11.8 prints for sm_50,
sm_52 and sm_53: plain, -hex, -novliw, -raw, -c, -sf, -fun, -ndf, -g/-gi line info,
-cfg/-bbcfg graphs, -plr/-lrm register life ranges. Errors are reported as nvdisasm reports them ("nvdisasm fatal   : ...",
exit status 1). The same happens when the gpuisa binary is run under the name nvdisasm.`,
		ownArgs: true,
		define: func(fs *flag.FlagSet) func(*cmdIO, []string) int {
			t := nvdisasmTool()
			t.define(fs)
			return func(cio *cmdIO, args []string) int { return runNvdisasm(cio, t, args) }
		},
	}
}

// nvVersion is what -V prints: scripts read the release line.
const nvVersion = "%s: gpuisa's drop-in for NVIDIA's CUDA %s\nCuda compilation tools, release 11.8, V11.8.86\n"

func runNvdisasm(cio *cmdIO, t *nvTool, args []string) int {
	files, err := t.parse(args)
	if err != nil {
		t.report(cio.stderr, "fatal", err.Error())
		return 1
	}
	if t.has("help") || len(files) != 1 && !t.has("version") {
		t.writeHelp(cio.stdout)
		return 0
	}
	if t.has("version") {
		fmt.Fprintf(cio.stdout, nvVersion, t.name, "disassembler")
		return 0
	}
	fatal := func(format string, a ...any) int {
		t.report(cio.stderr, "fatal", fmt.Sprintf(format, a...))
		return 1
	}
	cfg, bbcfg := t.has("output-control-flow-graph"), t.has("output-control-flow-graph-with-basic-blocks")
	lifeRanges := t.has("print-life-ranges") || t.has("life-range-mode")
	// nvdisasm's order of checks: -ndf conflicts first, then -plr, then both graphs
	switch ndf := t.has("no-dataflow"); {
	case lifeRanges && ndf:
		return fatal("Life range printing is not supported with -ndf option")
	case (cfg || bbcfg) && ndf:
		return fatal("Control flow graph printing is not supported with -ndf option")
	case (cfg || bbcfg) && lifeRanges:
		return fatal("Specify either -cfg or -plr option")
	case cfg && bbcfg:
		return fatal("Specify either -cfg or -bbcfg option")
	}
	base := uint64(0)
	if t.has("base-address") {
		if base, err = number(t.value("base-address")); err != nil {
			return fatal("%v", err)
		}
	}
	var funs []uint64
	for _, s := range t.list("cuda-function-index") {
		n, err := number(s)
		if err != nil {
			return fatal("%v", err)
		}
		funs = append(funs, n)
	}
	name := files[0]
	var data []byte
	release := func() {}
	if t.has("binary") && name != "-" {
		// raw code: read into memory of its own (huge pages), given
		// back once it is listed
		data, release, err = safeio.ReadFileOwned(name, cio.limit())
	} else {
		data, err = cio.readInput(name)
	}
	if err != nil {
		if tooLarge(err) {
			return fatal("%v", err)
		}
		return fatal("Cannot open object file %s", name)
	}
	opts := maxwell.ListOptions{
		NoHex:             !t.has("print-instruction-encoding"),
		VLIW:              !t.has("no-vliw"),
		CodeOnly:          t.has("print-code"),
		SeparateFunctions: t.has("separate-functions"),
		NoDataflow:        t.has("no-dataflow"),
		Raw:               t.has("print-raw"),
	}
	if lifeRanges {
		switch t.value("life-range-mode") {
		case "narrow":
			opts.LifeRanges = maxwell.LifeRangesNarrow
		case "count":
			opts.LifeRanges = maxwell.LifeRangesCount
		default:
			opts.LifeRanges = maxwell.LifeRangesWide
		}
	}
	switch {
	case t.has("print-line-info-ptx"):
		opts.LineInfo = maxwell.LineInfoPTX
	case t.has("print-line-info-inline"):
		opts.LineInfo = maxwell.LineInfoInline
	case t.has("print-line-info"):
		opts.LineInfo = maxwell.LineInfoFile
	}
	w := bufio.NewWriterSize(cio.stdout, 1<<16)
	defer w.Flush()
	if t.has("binary") {
		status := t.listRaw(cio, w, data, base, opts, cfg, bbcfg)
		w.Flush() // nothing buffered refers to data, but the listing is done
		release()
		return status
	}
	if len(data) < 4 || string(data[:4]) != "\x7fELF" {
		if len(data) < 64 {
			return fatal("Object file %s appears truncated", name)
		}
		return fatal("File %s does not appear to be an Elf file", name)
	}
	f, err := cubin.Parse(data)
	if err != nil {
		return fatal("%s: %v", name, err)
	}
	if sm := f.SM(); sm != 50 && sm != 52 && sm != 53 {
		if sm == 0 {
			return fatal("Elf file '%s' does not contain Cuda architecture information", name)
		}
		return fatal("%s: sm_%d code: this nvdisasm lists sm_50, sm_52 and sm_53 (gpuisa dis lists the others)", name, sm)
	}
	if funs != nil {
		opts.Sections = map[int]bool{}
		for _, k := range funs {
			if k >= uint64(len(f.Symbols)) {
				t.report(cio.stderr, "error", fmt.Sprintf("No symbol with index %d", k))
				t.report(cio.stderr, "warning", "Dataflow analysis disabled due to previous warnings")
				return 1
			}
			s := f.Symbols[k]
			if s.Section == 0 || int(s.Section) >= len(f.Sections) {
				t.report(cio.stderr, "error", fmt.Sprintf("No section found for symbol \"%s\", index %d", s.Name, k))
				t.report(cio.stderr, "warning", "Dataflow analysis disabled due to previous warnings")
				return 1
			}
			opts.Sections[int(s.Section)] = true
		}
	}
	// nvdisasm lists nothing of a cubin with a word it rejects: the VLIW
	// rejections are known before listing, and WriteCubin finds every
	// decoding error while laying out the columns, before it writes
	var vliw maxwell.VLIWReading
	if opts.VLIW {
		for i := range f.Functions {
			fn := &f.Functions[i]
			if opts.Sections == nil || opts.Sections[fn.Section] {
				vliw.Add(maxwell.ReadVLIW(fn.Code, 0, f.SM()))
			}
		}
	}
	// nvdisasm warns of the indirect branches it cannot resolve after the
	// decoding errors, and gives up its dataflow analysis: no graph, no life
	// ranges, and no annotations in the functions where it warned
	warnings, warned := unresolvedBranches(f, opts.Sections, opts.NoDataflow)
	giveUp := warned != nil && !opts.NoDataflow
	reportWarnings := func() {
		for _, line := range warnings {
			t.report(cio.stderr, "warning", line)
		}
		if giveUp {
			t.report(cio.stderr, "warning", "Dataflow analysis disabled due to previous warnings")
		}
	}
	if giveUp && (cfg || bbcfg || lifeRanges) && len(vliw.Errors) == 0 && !decodeFails(f, opts.Sections) {
		reportWarnings()
		if lifeRanges {
			t.report(cio.stderr, "error", "Cannot print life ranges as flow analysis is disabled")
		} else {
			t.report(cio.stderr, "error", "Cannot print control flow graph as flow analysis is disabled")
		}
		return 1
	}
	if !giveUp && (cfg || bbcfg || lifeRanges) && len(vliw.Errors) == 0 && !decodeFails(f, opts.Sections) {
		if refused := refusedBranches(f, opts.Sections, lifeRanges); len(refused) > 0 {
			for _, line := range refused {
				t.report(cio.stderr, "error", line)
			}
			return 1
		}
	}
	if giveUp {
		opts.NoDataflowSections = warned
	}
	var out []byte
	var errs []*isa.DecodeError
	if cfg || bbcfg {
		// streamed a function at a time; nothing is written when a word
		// does not decode, or nvdisasm's VLIW reading rejects one
		failed := len(vliw.Errors) > 0
		errs, _ = maxwell.WriteControlFlowDOT(dropAfterError{w, &failed}, f, maxwell.CFGOptions{BasicBlocks: bbcfg, Offsets: t.has("print-instr-offsets-cfg"), List: opts})
		errs = vliw.Merge(errs)
		for _, e := range errs {
			t.report(cio.stderr, "error", rawErrorText(e))
		}
	} else {
		// decoding errors are reported as they are found (a damaged cubin
		// may have one per word), merged with the VLIW rejections by address
		failed := len(vliw.Errors) > 0
		vliwErrs := vliw.Errors
		next := 0
		maxwell.WriteCubin(dropAfterError{w, &failed}, f, opts, func(e *isa.DecodeError) {
			if vliw.Hides(e.Addr) {
				return
			}
			for ; next < len(vliwErrs) && vliwErrs[next].Addr < e.Addr; next++ {
				t.report(cio.stderr, "error", rawErrorText(vliwErrs[next]))
			}
			t.report(cio.stderr, "error", rawErrorText(e))
			errs = append(errs[:0], e) // remember that one was found, not every one
			failed = true
		})
		for _, e := range vliwErrs[next:] {
			t.report(cio.stderr, "error", rawErrorText(e))
		}
		errs = append(errs, vliwErrs...)
	}
	if len(errs) > 0 {
		for _, line := range warnings {
			t.report(cio.stderr, "warning", line)
		}
		if !opts.NoDataflow {
			t.report(cio.stderr, "warning", "Dataflow analysis disabled due to previous warnings")
		}
		return 1
	}
	reportWarnings()
	w.Write(out)
	return 0
}

// unresolvedBranches returns nvdisasm's warning for each BRX it cannot
// resolve (maxwell.UnresolvedBranches) in the listed sections (nil: all),
// and the sections where there is one (nil for none).
func unresolvedBranches(f *cubin.File, sections map[int]bool, noDataflow bool) (warnings []string, warned map[int]bool) {
	for i := range f.Functions {
		fn := &f.Functions[i]
		if sections != nil && !sections[fn.Section] {
			continue
		}
		for _, at := range maxwell.UnresolvedBranches(fn, f.SM(), noDataflow) {
			warnings = append(warnings, fmt.Sprintf("Section '%s', pc= %#x, Indirect branch address must go via symbolic table base in constant memory (missing relocator information?)", f.Sections[fn.Section].Name, at))
			if warned == nil {
				warned = map[int]bool{}
			}
			warned[fn.Section] = true
		}
	}
	return warnings, warned
}

// refusedBranches returns nvdisasm's error lines for the direct branches
// of the listed functions (nil: all) that make it refuse -cfg, -bbcfg and
// (lifeRanges) -plr (maxwell.RefusedBranches): one line per branch, those
// to no instruction first, then those to a function's end; with none, and
// for -plr only, two lines per stack push to no instruction, or with none
// of those one line per EXIT after a PEXIT to its function's end.
func refusedBranches(f *cubin.File, sections map[int]bool, lifeRanges bool) []string {
	var nonConstant, nonLocal, push, noTarget int
	for i := range f.Functions {
		fn := &f.Functions[i]
		if sections != nil && !sections[fn.Section] {
			continue
		}
		r := maxwell.RefusedBranches(fn, f.SM())
		nonConstant += len(r.NonConstant)
		nonLocal += len(r.NonLocal)
		push += len(r.Push)
		noTarget += len(r.NoTarget)
	}
	var out []string
	if nonConstant+nonLocal == 0 && lifeRanges {
		for range 2 * push {
			out = append(out, "Branch stack push operation must use label")
		}
		if push == 0 {
			for range noTarget {
				out = append(out, "Could not establish the target of '' branch operation")
			}
		}
		return out
	}
	for range nonConstant {
		out = append(out, "No constant branch target expected")
	}
	for range nonLocal {
		out = append(out, "Non local immediate branch (needs a SIBCALL annotation?)")
	}
	return out
}

// decodeFails says a word of the listed functions (nil: all) does not
// decode, or a function's code is not whole bundles: nvdisasm then reports
// the errors, not that it cannot draw a graph or life ranges.
func decodeFails(f *cubin.File, sections map[int]bool) bool {
	for i := range f.Functions {
		fn := &f.Functions[i]
		if sections != nil && !sections[fn.Section] {
			continue
		}
		code := fn.Code
		if len(code)%maxwell.BundleSize != 0 {
			return true
		}
		for at := 0; at < len(code); at += 8 {
			if at%maxwell.BundleSize == 0 {
				continue // a control word
			}
			ctrl := maxwell.CtrlField(binary.LittleEndian.Uint64(code[at/maxwell.BundleSize*maxwell.BundleSize:]), at%maxwell.BundleSize/8-1)
			if _, err := maxwell.Decode(binary.LittleEndian.Uint64(code[at:]), ctrl, f.SM(), uint64(at)); err != nil {
				return true
			}
		}
	}
	return false
}

// dropAfterError passes writes on to w until *failed is set.
type dropAfterError struct {
	w      io.Writer
	failed *bool
}

func (d dropAfterError) Write(b []byte) (int, error) {
	if *d.failed {
		return len(b), nil
	}
	return d.w.Write(b)
}

// rawErrorText is how nvdisasm words a decoding error.
func rawErrorText(e *isa.DecodeError) string {
	if errors.Is(e, isa.ErrTruncated) {
		return "Unaligned instruction found"
	}
	// "%s at address 0x%08x" without fmt: a damaged file may have an
	// error at every word
	what := e.Detail
	if what == "" {
		what = "Unrecognized operation"
	}
	b := make([]byte, 0, len(what)+32)
	b = append(append(b, what...), " at address 0x"...)
	return string(isa.AppendHex(b, e.Addr, max(8, (bits.Len64(e.Addr)+3)/4)))
}

// rawGraph prints the control-flow graph of raw code, taken as one function
// named after nothing (nvdisasm 11.8 crashes on -cfg and -bbcfg with -b:
// a segmentation fault, no output, so there is no text to match). The graph
// is the one of a cubin whose only function holds the code; -base does not
// move it, as cubin graphs start every function at 0.
func (t *nvTool) rawGraph(cio *cmdIO, w io.Writer, data []byte, sm int, opts maxwell.CFGOptions) int {
	f := &cubin.File{Class: 64, Flags: uint32(sm), Functions: []cubin.Function{{
		Name: "raw", Code: data, Symbol: -1, Size: uint64(len(data)), ParamBank: -1,
	}}}
	failed := false
	errs, _ := maxwell.WriteControlFlowDOT(dropAfterError{w, &failed}, f, opts)
	for _, e := range errs {
		t.report(cio.stderr, "error", rawErrorText(e))
	}
	if len(errs) > 0 {
		return 1
	}
	return 0
}

// listRaw lists raw code (-b SMxx): a graph with cfg or bbcfg, the
// listing otherwise.
func (t *nvTool) listRaw(cio *cmdIO, w *bufio.Writer, data []byte, base uint64, opts maxwell.ListOptions, cfg, bbcfg bool) int {
	sm, _ := strconv.Atoi(strings.TrimPrefix(t.value("binary"), "SM"))
	if cfg || bbcfg {
		return t.rawGraph(cio, w, data, sm, maxwell.CFGOptions{BasicBlocks: bbcfg, Offsets: t.has("print-instr-offsets-cfg"), List: opts})
	}
	if opts.VLIW || opts.NoHex || opts.Raw {
		// streamed: every error is found before the first line is
		// written, and a failed listing is dropped
		var errs []*isa.DecodeError
		var vliw maxwell.VLIWReading
		if opts.VLIW {
			vliw = maxwell.ReadVLIW(data, base, sm)
		}
		failed := len(vliw.Errors) > 0
		maxwell.WriteRaw(dropAfterError{w, &failed}, data, base, sm, opts, func(e *isa.DecodeError) {
			if !vliw.Hides(e.Addr) {
				errs = append(errs, e)
				failed = true
			}
		})
		for _, e := range vliw.Merge(errs) {
			t.report(cio.stderr, "error", rawErrorText(e))
		}
		if failed {
			return 1
		}
		return 0
	}
	// -hex -novliw: dis -arch's listing, written to a regular file at
	// computed offsets from every core (maxwell.FileWriter), or
	// streamed; nvdisasm prints no listing when a word does not decode
	var out io.Writer = w
	if f, ok := cio.stdout.(*os.File); ok {
		out = bufferedFile{w, f}
	}
	errs, err := maxwell.WriteValidListing(out, data, base, sm)
	for _, e := range errs {
		t.report(cio.stderr, "error", rawErrorText(e))
	}
	if len(errs) > 0 || err != nil {
		if err != nil {
			t.report(cio.stderr, "error", err.Error())
		}
		return 1
	}
	return 0
}
