package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/gxp"
	"github.com/gpuisa/gpuisa/isa"
	"github.com/gpuisa/gpuisa/isa/all"
	"github.com/gpuisa/gpuisa/isa/cfg"
	"github.com/gpuisa/gpuisa/isa/fermi"
	"github.com/gpuisa/gpuisa/isa/jsonl"
	"github.com/gpuisa/gpuisa/isa/maxwell"
	"github.com/gpuisa/gpuisa/isa/usse"
)

// graphFiles prints the control-flow graphs of each file (dis -cfg): the
// functions of cubins (sm_5x: DOT as nvdisasm -bbcfg prints it), both
// programs of a GXP shader, or raw code of arch loaded at base.
func graphFiles(cio *cmdIO, files []string, format string, arch isa.Arch, base uint64, opts maxwell.ListOptions) int {
	c := findCommand("dis")
	write := map[string]func(io.Writer, []cfg.Function) error{"dot": cfg.WriteDOT, "json": cfg.WriteJSON, "svg": cfg.WriteSVG}[format]
	if write == nil {
		return c.usageError(cio.stderr, "bad -format %q: want dot, json or svg", format)
	}
	w := bufio.NewWriter(cio.stdout)
	defer w.Flush()
	status := 0
	for _, name := range files {
		data, err := cio.readInput(name)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s\n", message(err))
			status = 1
			continue
		}
		var fns []cfg.Function
		var errs []error
		switch {
		case isContainer(data):
			cubins, cerrs := containerCubins(data, arch)
			errs = cerrs
			for _, f := range cubins {
				if f.SM()/10 == 5 && format == "dot" {
					out, derrs := maxwell.ControlFlowDOT(nil, f, maxwell.CFGOptions{BasicBlocks: true, List: opts})
					w.Write(out)
					errs = append(errs, decodeErrors(derrs)...)
					continue
				}
				g, gerrs := cubinGraphs(f, opts)
				fns = append(fns, g...)
				errs = append(errs, gerrs...)
			}
		case isGXP(data):
			fns, errs = gxpGraphs(data)
		default:
			if arch.Name == "" {
				w.Flush()
				return c.usageError(cio.stderr, "%s: raw input needs -arch (one of %s)", name, all.Names())
			}
			var derrs []*isa.DecodeError
			fns, derrs = arch.Graphs(data, base, "code")
			errs = decodeErrors(derrs)
		}
		if len(fns) > 0 {
			if err := write(w, fns); err != nil {
				fmt.Fprintf(cio.stderr, "gpuisa dis: %s\n", message(err))
				return 1
			}
		}
		for _, e := range errs {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %s\n", name, message(e))
			status = 1
		}
	}
	return status
}

func decodeErrors(derrs []*isa.DecodeError) []error {
	var errs []error
	for _, e := range derrs {
		errs = append(errs, e)
	}
	return errs
}

// cubinGraphs returns the graphs of every function of a cubin: sm_5x with
// the cubin's labels and indirect-branch facts, the others from each
// function's code.
func cubinGraphs(f *cubin.File, opts maxwell.ListOptions) ([]cfg.Function, []error) {
	if f.SM()/10 == 5 {
		fns, derrs := maxwell.Graphs(f, opts)
		return fns, decodeErrors(derrs)
	}
	a, err := all.LookupSM(f.SM())
	if err != nil {
		return nil, []error{fmt.Errorf("cubin for sm_%d: %w", f.SM(), err)}
	}
	var fns []cfg.Function
	var errs []error
	for _, fn := range f.Functions {
		g, derrs := a.Graphs(fn.Code, 0, fn.Name)
		fns = append(fns, g...)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
	}
	return fns, errs
}

// gxpGraphs returns the graphs of a GXP shader's primary and secondary
// programs (each from address 0, as the listing counts them).
func gxpGraphs(data []byte) ([]cfg.Function, []error) {
	p, err := gxp.Parse(data)
	if err != nil {
		return nil, []error{err}
	}
	var fns []cfg.Function
	var errs []error
	for _, prog := range []struct {
		name  string
		words []uint64
	}{{"primary", p.Primary}, {"secondary", p.Secondary}} {
		g, derrs := usse.Graphs(gxp.Code(prog.words), 0, prog.name)
		fns = append(fns, g...)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("%s program: %w", prog.name, e))
		}
	}
	return fns, errs
}

// listFermiOld lists sm_20/sm_21 code, raw or cubins, in the CUDA 3.x/4.0
// cuobjdump style (dis -dialect old).
func listFermiOld(cio *cmdIO, files []string, arch isa.Arch, base uint64) int {
	w := bufio.NewWriter(cio.stdout)
	defer w.Flush()
	status := 0
	if arch.Name != "" {
		// raw code is listed as it is read, as without -dialect
		arch.WriteListingFrom = func(w io.Writer, r io.Reader, base uint64, onErr func(*isa.DecodeError)) error {
			return fermi.WriteListingFromDialect(w, r, base, fermi.Old, onErr)
		}
	}
	for _, name := range files {
		data, _, failed, err := cio.readOrStream(w, name, base, arch, false, false)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s\n", message(err))
			status = 1
			continue
		}
		if failed {
			status = 1
		}
		if data == nil && arch.WriteListingFrom != nil && base == 0 {
			continue // listed as it was read
		}
		var derrs []*isa.DecodeError
		if isELF(data) {
			f, err := cubin.Parse(data)
			if err == nil && f.SM() != 20 && f.SM() != 21 {
				err = fmt.Errorf("-dialect old is for sm_20 and sm_21 cubins, not sm_%d", f.SM())
			}
			if err != nil {
				fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %s\n", name, message(err))
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
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %s\n", name, message(e))
			status = 1
		}
	}
	return status
}

// jsonFiles lists cubins, GXP shaders or raw code as JSON Lines (dis
// -json).
func jsonFiles(cio *cmdIO, files []string, arch isa.Arch, base uint64) int {
	w := bufio.NewWriterSize(cio.stdout, 1<<16)
	defer w.Flush()
	jw := jsonl.NewWriter(w)
	status := 0
	for _, name := range files {
		data, err := cio.readInput(name)
		if err != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s\n", message(err))
			status = 1
			continue
		}
		var errs []error
		var werr error
		switch {
		case isContainer(data):
			cubins, cerrs := containerCubins(data, arch)
			errs = cerrs
			for _, f := range cubins {
				if werr != nil {
					break
				}
				var derrs []error
				derrs, werr = cubinJSON(jw, f)
				errs = append(errs, derrs...)
			}
		case isGXP(data):
			p, err := gxp.Parse(data)
			if err != nil {
				errs = append(errs, err)
				break
			}
			for _, prog := range []struct {
				name  string
				words []uint64
			}{{"primary", p.Primary}, {"secondary", p.Secondary}} {
				var derrs []*isa.DecodeError
				if derrs, werr = usse.WriteJSON(jw, gxp.Code(prog.words), 0, prog.name, ""); werr != nil {
					break
				}
				for _, e := range derrs {
					errs = append(errs, fmt.Errorf("%s program: %w", prog.name, e))
				}
			}
		default:
			if arch.Name == "" {
				w.Flush()
				return findCommand("dis").usageError(cio.stderr, "%s: raw input needs -arch (one of %s)", name, all.Names())
			}
			var derrs []*isa.DecodeError
			derrs, werr = arch.WriteJSON(jw, data, base, "", "")
			errs = decodeErrors(derrs)
		}
		if werr != nil {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s\n", message(werr))
			return 1
		}
		for _, e := range errs {
			fmt.Fprintf(cio.stderr, "gpuisa dis: %s: %s\n", name, message(e))
			status = 1
		}
	}
	return status
}

// cubinJSON writes the JSON listing of every function of a cubin, each
// record naming its function and .text section.
func cubinJSON(jw *jsonl.Writer, f *cubin.File) (errs []error, werr error) {
	a, err := all.LookupSM(f.SM())
	if err != nil {
		return []error{fmt.Errorf("cubin for sm_%d: %w", f.SM(), err)}, nil
	}
	if a.ISA == "maxwell" {
		derrs, werr := maxwell.WriteJSON(jw, f, nil, 0, f.SM())
		return decodeErrors(derrs), werr
	}
	for _, fn := range f.Functions {
		derrs, werr := a.WriteJSON(jw, fn.Code, 0, fn.Name, ".text."+fn.Name)
		for _, e := range derrs {
			errs = append(errs, fmt.Errorf("function %s: %w", fn.Name, e))
		}
		if werr != nil {
			return errs, werr
		}
	}
	return errs, nil
}
