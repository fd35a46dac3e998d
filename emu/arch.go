package emu

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/binfmt/fatbin"
)

// ArchOf reads the architecture a program declares: an ELF cubin's
// ("sm_52"), or a fatbin's when it holds cubins of one architecture only.
// Raw code and listings declare none: their jobs must name one.
func ArchOf(data []byte) (string, error) {
	if bytes.HasPrefix(data, []byte("\x7fELF")) {
		f, err := cubin.Parse(data)
		if err != nil {
			return "", err
		}
		return "sm_" + strconv.Itoa(f.SM()), nil
	}
	entries, err := fatbin.Extract(data)
	if err != nil {
		return "", fmt.Errorf("raw code or a listing needs \"arch\" (Program.Arch): it does not say its architecture")
	}
	var archs []string
	for _, e := range entries {
		if a := "sm_" + strconv.Itoa(e.SM); e.Kind == fatbin.KindELF && !slices.Contains(archs, a) {
			archs = append(archs, a)
		}
	}
	switch len(archs) {
	case 0:
		return "", fmt.Errorf("the fatbin holds no cubin")
	case 1:
		return archs[0], nil
	}
	return "", fmt.Errorf("the fatbin holds cubins for %s: name the architecture to run", strings.Join(archs, ", "))
}
