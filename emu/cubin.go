package emu

import (
	"fmt"
	"strconv"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
)

// OpenKernel finds the kernel a launch names in an ELF cubin or a fatbin (the
// fatbin's cubin for arch, e.g. "sm_52"): the function called kernel, or, when
// kernel is empty, the only kernel entry (or the only function). name is used
// in errors.
func OpenKernel(name string, data []byte, kernel, arch string) (*cubin.File, *cubin.Function, error) {
	f, err := cubin.Parse(data)
	if err != nil {
		entries, ferr := fatbin.Extract(data)
		if ferr != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		f = nil
		for _, e := range entries {
			if e.Kind != fatbin.KindELF || "sm_"+strconv.Itoa(e.SM) != arch {
				continue
			}
			if f, err = cubin.Parse(e.Payload); err != nil {
				return nil, nil, fmt.Errorf("%s: fatbin entry at %#x: %v", name, e.Offset, err)
			}
			break
		}
		if f == nil {
			return nil, nil, fmt.Errorf("%s: no %s cubin in the fatbin", name, arch)
		}
	}
	if sm := "sm_" + strconv.Itoa(f.SM()); sm != arch {
		return nil, nil, fmt.Errorf("%s: the cubin is for %s, the launch says %s", name, sm, arch)
	}
	if kernel != "" {
		fn := f.Function(kernel)
		if fn == nil {
			return nil, nil, fmt.Errorf("%s: no function %q", name, kernel)
		}
		return f, fn, nil
	}
	if len(f.Functions) == 1 {
		return f, &f.Functions[0], nil
	}
	var fn *cubin.Function
	for i := range f.Functions {
		if f.Functions[i].Entry {
			if fn != nil {
				return nil, nil, fmt.Errorf("%s: several kernels; name one with \"kernel\"", name)
			}
			fn = &f.Functions[i]
		}
	}
	if fn == nil {
		return nil, nil, fmt.Errorf("%s: %d functions and no kernel entry; name one with \"kernel\"", name, len(f.Functions))
	}
	return f, fn, nil
}
