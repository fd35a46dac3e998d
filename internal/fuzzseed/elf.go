package fuzzseed

import (
	"fmt"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// Rebuild writes an ELF file with the header and sections of data (any
// little-endian ELF that cubin.ParseELF reads) after edit has changed them:
// it may replace a section's Data (its Size follows) and append sections.
// Section indices stay, so symbols and links keep pointing where they did.
// Program headers are dropped (nothing gpuisa reads uses them). The file is
// laid out by cubin.Encode.
func Rebuild(data []byte, edit func(secs []cubin.Section) []cubin.Section) ([]byte, error) {
	f, err := cubin.ParseELF(data)
	if err != nil {
		return nil, err
	}
	secs := append([]cubin.Section(nil), f.Sections...)
	if edit != nil {
		secs = edit(secs)
	}
	// the section name table is rebuilt from the names (edit may add some)
	shstrndx := -1
	for i, s := range secs {
		if s.Name == ".shstrtab" {
			shstrndx = i
		}
	}
	if shstrndx < 0 {
		return nil, fmt.Errorf("no .shstrtab")
	}
	names := []byte{0}
	for i, s := range secs {
		if i != 0 {
			names = append(append(names, s.Name...), 0)
		}
	}
	secs[shstrndx].Data = names
	for i := range secs {
		if secs[i].Data != nil {
			secs[i].Size = uint64(len(secs[i].Data))
		}
	}
	f.Sections = secs
	return cubin.Encode(f, cubin.EncodeOptions{})
}
