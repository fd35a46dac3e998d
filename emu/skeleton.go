package emu

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// DefaultSkeletonBuffer is the size of the buffers a skeleton gives
// pointer parameters, for the user to replace with files.
const DefaultSkeletonBuffer = 4096

// Skeleton writes a launch file for a kernel of a cubin (or a fatbin with
// one architecture) from the cubin's own metadata: the architecture, the
// kernel's name, its parameters (count, offsets and sizes from .nv.info),
// its static shared memory and local memory, and its required block shape
// when it has one. Each pointer-sized parameter (8 bytes from sm_20 on, 4 on
// sm_1x) gets a zeroed buffer of DefaultSkeletonBuffer bytes and an output;
// other parameters get 0. program is the path the launch file names the
// cubin by; kernel may be "" when the cubin has one kernel.
func Skeleton(program string, data []byte, kernel string) ([]byte, error) {
	arch, err := ArchOf(data)
	if err != nil {
		return nil, err
	}
	f, fn, err := OpenKernel(program, data, kernel, arch)
	if err != nil {
		return nil, err
	}
	ptrSize := uint32(8)
	if f.SM() < 20 {
		ptrSize = 4
	}
	var params, buffers, outputs []string
	var layout []string
	for _, p := range fn.Params {
		name := "p" + strconv.Itoa(p.Ordinal)
		layout = append(layout, fmt.Sprintf("%s: %d bytes at +%#x", name, p.Size, p.Offset))
		switch {
		case p.Size == ptrSize:
			params = append(params, fmt.Sprintf(`{"ptr": %q}`, name))
			buffers = append(buffers, fmt.Sprintf(`    %q: {"bytes": %d, "fill": 0}`, name, DefaultSkeletonBuffer))
			outputs = append(outputs, fmt.Sprintf(`    {"buffer": %q, "file": "%s.out.bin"}`, name, name))
		case p.Size == 4:
			params = append(params, `{"u32": 0}`)
		case p.Size == 8:
			params = append(params, `{"u64": 0}`)
		default:
			return nil, fmt.Errorf("%s: parameter %d of %s is %d bytes: launch files pass 4- and 8-byte values", program, p.Ordinal, fn.Name, p.Size)
		}
	}
	if len(fn.Params) == 0 && fn.ParamSize > 0 {
		return nil, fmt.Errorf("%s: %s has %d bytes of parameters and no EIATTR_KPARAM_INFO saying what they are", program, fn.Name, fn.ParamSize)
	}
	block := "[128]"
	if x, y, z, ok := requiredBlock(fn); ok {
		// a damaged attribute may ask for more than a launch file (or
		// the architecture) allows: the skeleton would not load
		lim, known := LimitsOf(arch)
		if !known {
			// an architecture the emulators do not know (a damaged
			// header): no CUDA architecture allows a larger block
			lim = ArchLimits{Arch: "any architecture", Grid: Dim3{1, 1, 1}, Block: Dim3{1024, 1024, 64}, BlockThreads: 1024}
		}
		if err := lim.CheckShape(&Setup{Grid: Dim3{1, 1, 1}, Block: Dim3{x, y, z}}); err != nil {
			return nil, fmt.Errorf("%s: %s's required block (EIATTR_REQNTID): %v", program, fn.Name, err)
		}
		block = fmt.Sprintf("[%d, %d, %d]", x, y, z)
	}
	local := fn.LocalSize + uint64(KernelStackBytes(f, fn.Symbol))
	undefined := undefinedSymbols(f)
	var b strings.Builder
	if !utf8.ValidString(fn.Name) || !utf8.ValidString(program) {
		return nil, fmt.Errorf("%s: the kernel's name %q or the program's path is not UTF-8 text, which a launch file (JSON) cannot hold", program, fn.Name)
	}
	fmt.Fprintf(&b, "{\n  \"program\": %s,\n  \"arch\": %s,\n  \"kernel\": %s,\n", jsonString(program), jsonString(arch), jsonString(fn.Name))
	if len(undefined) > 0 {
		b.WriteString("  \"link\": [],\n")
	}
	fmt.Fprintf(&b, "  \"grid\": [1],\n  \"block\": %s,\n  \"shared_bytes\": 0,\n", block)
	if local > 0 {
		fmt.Fprintf(&b, "  \"local_bytes\": %d,\n", local)
	}
	fmt.Fprintf(&b, "  \"buffers\": %s,\n", jsonList("{", buffers, "}"))
	fmt.Fprintf(&b, "  \"params\": [%s],\n", strings.Join(params, ", "))
	fmt.Fprintf(&b, "  \"outputs\": %s,\n", jsonList("[", outputs, "]"))
	note := fmt.Sprintf("made by gpuisa launch init from %s (%s, %d registers): parameters %s; %d bytes of static shared memory (shared_bytes adds dynamic shared memory); "+
		"replace the zeroed %d-byte buffers with {\"file\": ...}, set the values, the grid and block, and add expectations (docs/launch.md)",
		fn.Name, arch, fn.Registers, orNone(layout), fn.SharedSize, DefaultSkeletonBuffer)
	if len(undefined) > 0 {
		note += fmt.Sprintf("; the cubin uses symbols it does not define (%s): list relocatable cubins that define them in \"link\"", strings.Join(undefined, ", "))
	}
	fmt.Fprintf(&b, "  \"note\": %s\n}\n", jsonString(note))
	return []byte(b.String()), nil
}

// jsonString quotes s as JSON does (Go's %q escapes are not all JSON).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsonList lays out items one a line between open and close.
func jsonList(open string, items []string, close string) string {
	if len(items) == 0 {
		return open + close
	}
	return open + "\n" + strings.Join(items, ",\n") + "\n  " + close
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// undefinedSymbols lists the global symbols a relocatable cubin uses and
// another object must define.
func undefinedSymbols(f *cubin.File) []string {
	var out []string
	for _, sym := range f.Symbols {
		if sym.Name != "" && sym.Section == 0 && sym.Bind() != 0 {
			out = append(out, sym.Name)
		}
	}
	return out
}

// requiredBlock is the block shape the kernel requires (EIATTR_REQNTID,
// from __launch_bounds__ or .reqntid), if any.
func requiredBlock(fn *cubin.Function) (x, y, z uint32, ok bool) {
	for _, a := range fn.Info {
		if a.ID != cubin.AttrReqNTID {
			continue
		}
		x, ok1 := a.Word(0)
		y, ok2 := a.Word(1)
		z, ok3 := a.Word(2)
		if ok1 && ok2 && ok3 && x > 0 && y > 0 && z > 0 {
			return x, y, z, true
		}
	}
	return 0, 0, 0, false
}

// KernelStackBytes is what the function with symbol sym needs on the stack
// (local memory): its frame and the deepest stack of its callees, as the
// cubin's .nv.info records them (EIATTR_FRAME_SIZE, EIATTR_MAX_STACK_SIZE).
func KernelStackBytes(f *cubin.File, sym int) int {
	n := 0
	for _, a := range f.Info {
		if a.ID != cubin.AttrFrameSize && a.ID != cubin.AttrMaxStackSize {
			continue
		}
		if s, ok := a.Word(0); ok && int(s) == sym {
			if v, ok := a.Word(1); ok && v < 1<<20 {
				n += int(v)
			}
		}
	}
	return n
}
