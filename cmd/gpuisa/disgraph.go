package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/cfg"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/jsonl"
	"github.com/gpuisa/gpuisa/isa/maxwell"
)

// graphFiles prints the control-flow graphs of sm_5x cubins (dis -cfg).
func graphFiles(cio *cmdIO, files []string, format string, opts maxwell.ListOptions) int {
	c := findCommand("dis")
	write := map[string]func(io.Writer, []cfg.Function) error{"json": cfg.WriteJSON, "svg": cfg.WriteSVG}[format]
	if write == nil && format != "dot" {
		return c.usageError(cio.stderr, "bad -format %q: want dot, json or svg", format)
	}
	w := bufio.NewWriter(cio.stdout)
	defer w.Flush()
	status := 0
	for _, name := range files {
		data, err := readInput(name, cio.stdin)
		if err == nil && !isELF(data) {
			err = fmt.Errorf("-cfg needs a cubin (graphs of raw code are not made yet)")
		}
		var f *cubin.File
		if err == nil {
			f, err = cubin.Parse(data)
		}
		if err == nil && f.SM()/10 != 5 {
			err = fmt.Errorf("-cfg is made for sm_5x cubins so far, not sm_%d", f.SM())
		}
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, err)
			status = 1
			continue
		}
		var derrs []*isa.DecodeError
		if write == nil {
			var out []byte
			out, derrs = maxwell.ControlFlowDOT(nil, f, maxwell.CFGOptions{BasicBlocks: true, List: opts})
			w.Write(out)
		} else {
			var fns []cfg.Function
			fns, derrs = maxwell.Graphs(f, opts)
			if err := write(w, fns); err != nil {
				fmt.Fprintf(cio.stderr, "gpuisa dis: %v\n", err)
				return 1
			}
		}
		for _, e := range derrs {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, e)
			status = 1
		}
	}
	return status
}

// listFermiOld lists sm_20/sm_21 code, raw or cubins, in the CUDA 3.x/4.0
// cuobjdump style (dis -dialect old).
func listFermiOld(cio *cmdIO, files []string, arch isa.Arch, base uint64) int {
	w := bufio.NewWriter(cio.stdout)
	defer w.Flush()
	status := 0
	for _, name := range files {
		data, err := readInput(name, cio.stdin)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %v\n", err)
			status = 1
			continue
		}
		var derrs []*isa.DecodeError
		if isELF(data) {
			f, err := cubin.Parse(data)
			if err == nil && f.SM() != 20 && f.SM() != 21 {
				err = fmt.Errorf("-dialect old is for sm_20 and sm_21 cubins, not sm_%d", f.SM())
			}
			if err != nil {
				fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, err)
				status = 1
				continue
			}
			fmt.Fprintf(w, "\n\tcode for sm_%d\n", f.SM())
			var buf []byte
			for _, fn := range f.Functions {
				fmt.Fprintf(w, "\t\tFunction : %s\n\t.headerflags    @\"%s\"\n", fn.Name, cubin.CuobjdumpHeaderFlags(f.Flags))
				var e []*isa.DecodeError
				buf, e = fermi.DisassembleDialect(buf[:0], fn.Code, 0, fermi.Old)
				w.Write(buf)
				fmt.Fprintf(w, "\t\t..........\n\n\n")
				derrs = append(derrs, e...)
			}
		} else {
			if arch.Name == "" {
				return findCommand("dis").usageError(cio.stderr, "%s: raw input needs -arch sm_20 or sm_21", name)
			}
			var out []byte
			out, derrs = fermi.DisassembleDialect(nil, data, base, fermi.Old)
			w.Write(out)
		}
		for _, e := range derrs {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, e)
			status = 1
		}
	}
	return status
}

// jsonFiles lists sm_5x cubins or raw sm_5x code as JSON Lines (dis -json).
func jsonFiles(cio *cmdIO, files []string, arch isa.Arch, base uint64) int {
	w := bufio.NewWriterSize(cio.stdout, 1<<16)
	defer w.Flush()
	jw := jsonl.NewWriter(w)
	status := 0
	for _, name := range files {
		data, err := readInput(name, cio.stdin)
		var f *cubin.File
		sm := arch.SMVersion
		switch {
		case err != nil:
		case isELF(data):
			if f, err = cubin.Parse(data); err == nil {
				sm = f.SM()
			}
		case arch.Name == "":
			return findCommand("dis").usageError(cio.stderr, "%s: raw input needs -arch", name)
		}
		if err == nil && sm/10 != 5 {
			err = fmt.Errorf("-json is made for sm_5x code so far, not sm_%d", sm)
		}
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, err)
			status = 1
			continue
		}
		derrs, err := maxwell.WriteJSON(jw, f, data, base, sm)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %v\n", err)
			return 1
		}
		for _, e := range derrs {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %v\n", name, e)
			status = 1
		}
	}
	return status
}
