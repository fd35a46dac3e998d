package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// cuobjdumpTool is cuobjdump 11.8's command line (its spellings), plus
// -dialect for Fermi's listing styles; the descriptions are ours.
func cuobjdumpTool() *nvTool {
	return &nvTool{name: "cuobjdump", usage: "[options] <file>", opts: []toolOpt{
		{long: "all-fatbin", short: "all", usage: "Dump every fatbin section, not only the executable one."},
		{long: "dialect", short: "dialect", arg: "<style>", allowed: []string{"new", "old"},
			usage: "sm_20/sm_21 listings: new (CUDA 5 and later, the default) or old (CUDA 3.x/4.0: hex before the text). gpuisa's addition."},
		{long: "dump-elf", short: "elf", usage: "Dump the sections of each ELF image."},
		{long: "dump-elf-symbols", short: "symbols", usage: "Dump the symbols of each ELF image."},
		{long: "dump-ptx", short: "ptx", usage: "Dump the PTX of each PTX image."},
		{long: "dump-resource-usage", short: "res-usage", usage: "Dump each function's registers, stack, shared, local and constant memory, textures, surfaces and samplers."},
		{long: "dump-sass", short: "sass", usage: "List the machine code of every cubin in the file."},
		{long: "extract-elf", short: "xelf", arg: "<partial file name>", list: true,
			usage: "Write the ELF images whose names (as -lelf lists them) contain one of these strings to files; 'all' extracts all. Dump and list options are ignored."},
		{long: "extract-ptx", short: "xptx", arg: "<partial file name>", list: true,
			usage: "Write the PTX images whose names contain one of these strings to files; 'all' extracts all."},
		{long: "extract-text", short: "xtext", arg: "<partial file name>", list: true,
			usage: "Write the code of each function whose name (as -ltext lists it) contains one of these strings to a file; 'all' extracts all. Ignored with -xelf."},
		{long: "function", short: "fun", arg: "<function name>", list: true, usage: "Dump only these functions."},
		{long: "function-index", short: "findex", arg: "<function index>", usage: "Dump only the function with this symbol-table index."},
		{long: "gpu-architecture", short: "arch", arg: "<gpu architecture name>",
			allowed: []string{"sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_50", "sm_52", "sm_53"},
			usage:   "Dump only the images for this architecture."},
		{long: "help", short: "h", usage: "Print this help."},
		{long: "list-elf", short: "lelf", usage: "List the ELF images of the file (names for -xelf). Other options are ignored."},
		{long: "list-text", short: "ltext", usage: "List the code of each function of the ELF images (names for -xtext). Other options are ignored."},
		{long: "list-ptx", short: "lptx", usage: "List the PTX images of the file (names for -xptx). Other options are ignored."},
		{long: "options-file", short: "optf", arg: "<file>", list: true, usage: "Read more options from these files."},
		{long: "sort-functions", short: "sort", usage: "List functions sorted by name."},
		{long: "version", short: "V", usage: "Print the version of the tool."},
	}}
}

func cuobjdumpCommand() *command {
	return &command{
		name:    "cuobjdump",
		args:    "[options] FILE",
		summary: "drop-in for NVIDIA's cuobjdump 11.8 on cubins, fatbins and host objects (sm_1x, sm_2x, sm_5x)",
		doc: `Takes cuobjdump's command line and prints what cuobjdump 11.8 prints for sm_5x images
(-sass, -symbols, -res-usage, -lelf, -lptx, -xelf, -xptx, -ptx, -fun, -arch, -all), and
for sm_1x and sm_2x the -sass listings of the cuobjdump releases that supported them;
-dialect old gives Fermi's CUDA 3.x/4.0 style. -elf prints cuobjdump's section table,
symbols, .nv.info records, relocations, call graph and line tables; the DWARF sections of
-G builds (.debug_info, .debug_abbrev, .debug_loc, .debug_frame) are dumped as words. Errors
are reported as cuobjdump reports them. The same happens when the gpuisa binary is run
under the name cuobjdump.`,
		ownArgs: true,
		define: func(fs *flag.FlagSet) func(*cmdIO, []string) int {
			t := cuobjdumpTool()
			t.define(fs)
			return func(cio *cmdIO, args []string) int { return runCuobjdump(cio, t, args) }
		},
	}
}

// image is one ELF or PTX image of the input, named as -lelf names it.
type image struct {
	entry *fatbin.Entry // nil for a bare cubin
	name  string
	elf   *cubin.File
	ptx   []byte
}

func runCuobjdump(cio *cmdIO, t *nvTool, args []string) int {
	files, err := t.parse(args)
	if err != nil {
		t.report(cio.stderr, "fatal", err.Error())
		return 1
	}
	// cuobjdump 11.8 takes one file: given more, it prints its help
	if t.has("help") || len(files) != 1 && !t.has("version") {
		t.writeHelp(cio.stdout)
		return 0
	}
	if t.has("version") {
		fmt.Fprintf(cio.stdout, nvVersion, t.name, "object file dumper")
		return 0
	}
	w := bufio.NewWriterSize(cio.stdout, 1<<16)
	defer w.Flush()
	status := 0
	for _, name := range files {
		if s := cuobjdumpFile(cio, w, t, name); s != 0 {
			status = s
		}
	}
	return status
}

func cuobjdumpFile(cio *cmdIO, w *bufio.Writer, t *nvTool, name string) int {
	fatal := func(format string, a ...any) int {
		w.Flush()
		t.report(cio.stderr, "fatal", fmt.Sprintf(format, a...))
		return 1
	}
	data, err := cio.readInput(name)
	if err != nil {
		if tooLarge(err) {
			return fatal("%v", err)
		}
		return fatal("Could not open input file '%s'", name)
	}
	raw := data
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	var images []image
	if f, err := cubin.Parse(data); err == nil {
		images = append(images, image{name: fmt.Sprintf("%s.sm_%d.cubin", stem, f.SM()), elf: f})
	} else {
		entries, ferr := fatbin.Extract(data)
		if ferr != nil {
			if errors.Is(ferr, fatbin.ErrNoFatbin) {
				return fatal("The file '%s' is not a cubin, a fatbin or a host object with device code (%v)", name, err)
			}
			return fatal("%s: %v", name, ferr)
		}
		nelf, nptx := 0, 0
		for i := range entries {
			e := &entries[i]
			switch e.Kind {
			case fatbin.KindELF:
				nelf++
				f, err := cubin.Parse(e.Payload)
				if err != nil {
					return fatal("%s: fatbin entry at %#x: %v", name, e.Offset, err)
				}
				images = append(images, image{entry: e, name: entryName(stem, e, nelf, "cubin"), elf: f})
			case fatbin.KindPTX:
				nptx++
				images = append(images, image{entry: e, name: entryName(stem, e, nptx, "ptx"), ptx: e.Payload})
			}
		}
	}
	// list and extract options come first and exclude the others
	switch {
	case (t.has("list-ptx") || t.has("extract-ptx")) && !hasPTX(images):
		// cuobjdump says so, and lists or extracts the ELF files still
		w.Flush()
		t.report(cio.stderr, "info", fmt.Sprintf("No PTX file found to extract from '%s'. You may try with -all option.", name))
		fallthrough
	case t.has("list-elf") || t.has("list-ptx") || t.has("list-text"):
		k := 0
		for _, im := range images {
			if im.elf != nil && t.has("list-elf") {
				k++
				fmt.Fprintf(w, "ELF file %4d: %s\n", k, im.name)
			}
		}
		if t.has("list-text") {
			listTexts(w, textSections(images, t.value("gpu-architecture")))
		}
		k = 0
		for _, im := range images {
			if im.ptx != nil && t.has("list-ptx") {
				k++
				fmt.Fprintf(w, "PTX file %4d: %s\n", k, im.name)
			}
		}
		return 0
	case t.has("extract-elf") || t.has("extract-ptx") || t.has("extract-text"):
		// cuobjdump 11.8 extracts no text sections along with ELF files
		if t.has("extract-text") && !t.has("extract-elf") {
			for k, s := range textSections(images, t.value("gpu-architecture")) {
				if !matchesAny(s.name, t.list("extract-text")) {
					continue
				}
				fmt.Fprintf(w, "Extracting SASS text section %d : %s\n", k+1, s.name)
				if err := os.WriteFile(s.name, s.code, 0o644); err != nil {
					return fatal("Could not write file '%s'", s.name)
				}
			}
		}
		for _, kind := range []string{"ELF", "PTX"} {
			want := t.list("extract-elf")
			if kind == "PTX" {
				want = t.list("extract-ptx")
			}
			k := 0
			for _, im := range images {
				if (kind == "ELF") != (im.elf != nil) {
					continue
				}
				k++
				if !matchesAny(im.name, want) {
					continue
				}
				if kind == "PTX" && im.entry != nil {
					opts := ""
					if im.entry.Options != "" {
						opts = " " + im.entry.Options
					}
					fmt.Fprintf(w, "Extracting PTX file and ptxas options %4d: %s -arch=sm_%d%s\n", k, im.name, im.entry.SM, opts)
				} else {
					fmt.Fprintf(w, "Extracting %s file %4d: %s\n", kind, k, im.name)
				}
				payload := raw // a bare cubin
				if im.entry != nil {
					payload = im.entry.Payload
				}
				if err := os.WriteFile(im.name, payload, 0o644); err != nil {
					return fatal("Could not write file '%s'", im.name)
				}
			}
		}
		return 0
	}
	arch := t.value("gpu-architecture")
	status := 0
	for _, im := range images {
		sm := 0
		if im.entry != nil {
			sm = im.entry.SM
		} else {
			sm = im.elf.SM()
		}
		if arch != "" && arch != fmt.Sprintf("sm_%d", sm) {
			continue
		}
		if im.entry != nil {
			kind := "elf"
			if im.ptx != nil {
				kind = "ptx"
			}
			fmt.Fprintf(w, "\nFatbin %s code:\n================\narch = sm_%d\ncode version = [%d,%d]\nhost = linux\ncompile_size = 64bit\n", kind, sm, im.entry.Major, im.entry.Minor)
			if im.entry.Flags&fatbin.FlagDebug != 0 {
				fmt.Fprintf(w, "has debug info\n")
			}
			if im.entry.Compressed {
				fmt.Fprintf(w, "compressed\n")
			}
			if im.entry.Name != "" {
				fmt.Fprintf(w, "identifier = %s\n", im.entry.Name)
			}
			if im.entry.Options != "" {
				fmt.Fprintf(w, "ptxasOptions = %s\n", im.entry.Options)
			}
		}
		if im.ptx != nil {
			if t.has("dump-ptx") {
				w.WriteString(strings.TrimRight(string(im.ptx), "\x00"))
			}
			continue
		}
		if t.has("dump-elf") {
			dumpELF(w, im.elf)
		}
		if t.has("dump-resource-usage") {
			dumpResources(w, im.elf)
		}
		if t.has("dump-sass") {
			if s := dumpSASS(cio, w, t, im.elf); s != 0 {
				status = s
			}
		}
		if t.has("dump-elf-symbols") {
			dumpSymbols(w, im.elf)
		}

	}
	return status
}

// entryName is the file name cuobjdump gives a fatbin image: from its
// identifier (the source file) when it has one, else the input's stem and
// the image's number among those of its kind.
func entryName(stem string, e *fatbin.Entry, n int, ext string) string {
	if e.Name != "" {
		id := filepath.Base(e.Name)
		return fmt.Sprintf("%s.sm_%d.%s", strings.TrimSuffix(id, filepath.Ext(id)), e.SM, ext)
	}
	return fmt.Sprintf("%s.%d.sm_%d.%s", stem, n, e.SM, ext)
}

// boundSymbols returns the symbols the relocations of a function's code
// and of its constant banks (.nv.constantN.<name>) refer to, each once.
func boundSymbols(f *cubin.File, fn *cubin.Function) []uint32 {
	var out []uint32
	for i := range f.Sections {
		r := &f.Sections[i]
		if !(r.Type == cubin.SecRel && r.EntSize == 16 || r.Type == cubin.SecRela && r.EntSize == 24) || int(r.Info) >= len(f.Sections) {
			continue
		}
		target := f.Sections[r.Info].Name
		if int(r.Info) != fn.Section && !(strings.HasPrefix(target, ".nv.constant") && strings.HasSuffix(target, "."+fn.Name)) {
			continue
		}
		for k := 0; k+int(r.EntSize) <= len(r.Data); k += int(r.EntSize) {
			sym := uint32(binary.LittleEndian.Uint64(r.Data[k+8:]) >> 32)
			if int(sym) < len(f.Symbols) && !slices.Contains(out, sym) {
				out = append(out, sym)
			}
		}
	}
	return out
}

// hasPTX tells whether any image is PTX.
func hasPTX(images []image) bool {
	for _, im := range images {
		if im.ptx != nil {
			return true
		}
	}
	return false
}

func matchesAny(name string, parts []string) bool {
	for _, p := range parts {
		if p == "all" || strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// dumpSASS lists a cubin's functions as cuobjdump -sass: sm_5x as raw
// nvdisasm -hex listings of each .text section, sm_1x/sm_2x in the style of
// the cuobjdump releases that supported them.
func dumpSASS(cio *cmdIO, w *bufio.Writer, t *nvTool, f *cubin.File) int {
	a, err := all.LookupSM(f.SM())
	if err != nil {
		w.Flush()
		t.report(cio.stderr, "fatal", fmt.Sprintf("cubin for sm_%d: %v", f.SM(), err))
		return 1
	}
	fns := make([]*cubin.Function, 0, len(f.Functions))
	for i := range f.Functions {
		fns = append(fns, &f.Functions[i])
	}
	if t.has("sort-functions") {
		sortFunctions(fns)
	}
	want := t.list("function")
	onlySection := -1 // -findex: the function enclosing a function symbol
	if t.has("function-index") {
		// 0 lists every function; a symbol other than a function, none (and
		// no warning); one past the table crashes cuobjdump 11.8
		if k, err := number(t.value("function-index")); err == nil && k != 0 {
			onlySection = 0
			if k < uint64(len(f.Symbols)) && f.Symbols[k].Type() == 2 {
				onlySection = int(f.Symbols[k].Section)
			}
		}
	}
	for _, name := range want {
		found := false
		for _, fn := range fns {
			found = found || fn.Name == name
		}
		if !found {
			w.Flush()
			t.report(cio.stderr, "warning", fmt.Sprintf("Function listed in --function '%s' not found", name))
		}
	}
	fmt.Fprintf(w, "\n\tcode for %s\n", a.Name)
	dots := "\t\t.........."
	if a.ISA == "tesla" {
		dots = "\t\t....................................."
	}
	old := t.value("dialect") == "old"
	status := 0
	var buf []byte
	for _, fn := range fns {
		if len(want) > 0 && !contains(want, fn.Name) || onlySection >= 0 && fn.Section != onlySection {
			continue
		}
		fmt.Fprintf(w, "\t\tFunction : %s\n", fn.Name)
		var derrs []*isa.DecodeError
		switch {
		case a.ISA == "maxwell":
			// streamed: a listing is 25 times the code
			buf = buf[:0]
			maxwell.WriteRaw(w, fn.Code, 0, a.SMVersion, maxwell.ListOptions{VLIW: true}, func(e *isa.DecodeError) { derrs = isa.ErrorsCapped(derrs, e) })
		case a.ISA == "fermi" && old:
			fmt.Fprintf(w, "\t.headerflags    @\"%s\"\n", cubin.CuobjdumpHeaderFlags(f.Flags))
			buf, derrs = fermi.DisassembleDialect(buf[:0], fn.Code, 0, fermi.Old)
		default:
			fmt.Fprintf(w, "\t.headerflags    @\"%s\"\n", cubin.CuobjdumpHeaderFlags(f.Flags))
			buf, derrs = a.Disassemble(buf[:0], fn.Code, 0)
		}
		w.Write(buf)
		fmt.Fprintf(w, "%s\n\n\n", dots)
		for _, e := range derrs {
			w.Flush()
			t.report(cio.stderr, "error", fmt.Sprintf("function %s: %v", fn.Name, e))
			status = 1
		}
	}
	return status
}

func sortFunctions(fns []*cubin.Function) {
	for i := 1; i < len(fns); i++ {
		for k := i; k > 0 && fns[k].Name < fns[k-1].Name; k-- {
			fns[k], fns[k-1] = fns[k-1], fns[k]
		}
	}
}

// dumpSymbols prints -symbols: every symbol but the null and section ones.
func dumpSymbols(w io.Writer, f *cubin.File) {
	fmt.Fprintf(w, "\nsymbols:\n")
	for i := 1; i < len(f.Symbols); i++ {
		s := &f.Symbols[i]
		if s.Type() == 3 {
			continue
		}
		typ := map[uint8]string{1: "STT_OBJECT", 2: "STT_FUNC", 10: "STT_CUDA_TEXTURE", 11: "STT_CUDA_SAMPLER", 12: "STT_CUDA_SURFACE", 13: "STT_CUDA_OBJECT"}[s.Type()]
		if typ == "" {
			typ = "STT_?"
		}
		bind := [...]string{"STB_LOCAL", "STB_GLOBAL", "STB_WEAK", "STB_3"}[s.Bind()&3]
		other := "STV_DEFAULT"
		switch {
		case s.Other&0x10 != 0:
			other = "STO_ENTRY"
		case s.Other&^3 == 0x20:
			other = "STO_GLOBAL"
		case s.Other&^3 != 0:
			other = "STO_?"
		}
		undef := "  "
		if s.Section == 0 {
			undef = "U "
		}
		fmt.Fprintf(w, "%-17s%-11s%-13s%s%s\n", typ, bind, other, undef, s.Name)
	}
}

// dumpResources prints -res-usage: the module's global memory, then each
// function's registers, stack, memories and texture resources.
func dumpResources(w io.Writer, f *cubin.File) {
	global := uint64(0)
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Name == ".nv.global" || s.Name == ".nv.global.init" {
			global += s.Size
		}
	}
	fmt.Fprintf(w, "\nResource usage:\n Common:\n  GLOBAL:%d", global)
	for i := range f.Sections {
		s := &f.Sections[i]
		if bank, ok := strings.CutPrefix(s.Name, ".nv.constant"); ok && !strings.Contains(bank, ".") {
			fmt.Fprintf(w, " CONSTANT[%s]:%d", bank, s.Size)
		}
	}
	fmt.Fprintln(w)
	for i := range f.Functions {
		fn := &f.Functions[i]
		// the texture, surface and sampler symbols the function's code
		// refers to (through its relocations)
		tex, surf, samp := 0, 0, 0
		for _, sym := range boundSymbols(f, fn) {
			switch f.Symbols[sym].Type() {
			case 10:
				tex++
			case 12:
				surf++
			case 11:
				samp++
			}
		}
		// EIATTR_MIN_STACK_SIZE; 0xffffffff (recursion) is unknown
		stack := "0"
		for _, a := range f.Info {
			if a.ID == 0x12 && len(a.Data) >= 8 && int(binary.LittleEndian.Uint32(a.Data)) == fn.Symbol {
				stack = fmt.Sprint(binary.LittleEndian.Uint32(a.Data[4:]))
				if stack == "4294967295" {
					stack = "UNKNOWN"
				}
			}
		}
		fmt.Fprintf(w, " Function %s:\n  REG:%d STACK:%s SHARED:%d LOCAL:%d", fn.Name, fn.Registers, stack, fn.SharedSize, fn.LocalSize)
		for _, c := range fn.Constants {
			fmt.Fprintf(w, " CONSTANT[%d]:%d", c.Bank, f.Sections[c.Section].Size)
		}
		fmt.Fprintf(w, " TEXTURE:%d SURFACE:%d SAMPLER:%d\n", tex, surf, samp)
	}
}

func hexOrZero(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}
