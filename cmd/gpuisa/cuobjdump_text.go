package main

import (
	"bufio"
	"fmt"
	"strings"
)

// textSection is one function's code, named as cuobjdump -ltext names it:
// the ELF image's name without ".sm_NN.cubin" ("x" for a fatbin image
// without an identifier), the function, the architecture and ".elf.bin".
type textSection struct {
	name string
	code []byte
}

// textSections lists the functions of the ELF images (those of -arch
// only, when given) in image order, each image's functions in -sass order.
func textSections(images []image, arch string) []textSection {
	var out []textSection
	for _, im := range images {
		if im.elf == nil {
			continue
		}
		sm := im.elf.SM()
		if im.entry != nil {
			sm = im.entry.SM
		}
		tag := fmt.Sprintf("sm_%d", sm)
		if arch != "" && arch != tag {
			continue
		}
		stem := strings.TrimSuffix(im.name, "."+tag+".cubin")
		if im.entry != nil && im.entry.Name == "" {
			stem = "x" // a fatbin image without an identifier
		}
		for _, fn := range im.elf.Functions {
			out = append(out, textSection{name: fmt.Sprintf("%s-%s.%s.elf.bin", stem, fn.Name, tag), code: fn.Code})
		}
	}
	return out
}

// listTexts prints -ltext's lines.
func listTexts(w *bufio.Writer, texts []textSection) {
	for k, s := range texts {
		fmt.Fprintf(w, "SASS text section %d : %s\n", k+1, s.name)
	}
}
