// Package fuzzseed gives the fuzz targets their seeds: real files the
// project made (testdata here and in other packages, built by NVIDIA's
// tools from our own sources), files of the shared oracle when it is
// present, and cubins rewritten to carry every kind of .nv.info attribute,
// so that mutations start next to every parser's corners.
package fuzzseed

import (
	"embed"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/internal/oracle"
)

//go:embed testdata/*.cubin testdata/*.fatbin testdata/*.o
var embedded embed.FS

// Seed is one seed input.
type Seed struct {
	Name string
	Data []byte
}

// MaxSeedBytes bounds a seed: each execution of a fuzz target costs in
// proportion to its input, and the targets cap their inputs too.
const MaxSeedBytes = 64 << 10

// Embedded returns the committed seed files of this package (seeds.cu
// built by testdata/gen.sh).
func Embedded() []Seed {
	var out []Seed
	entries, _ := embedded.ReadDir("testdata")
	for _, e := range entries {
		b, err := embedded.ReadFile("testdata/" + e.Name())
		if err == nil {
			out = append(out, Seed{e.Name(), b})
		}
	}
	return out
}

// Root is the module's root directory, found from the working directory
// (a package's tests run in its directory), or "".
func Root() string {
	dir, _ := os.Getwd()
	for dir != "" && dir != "/" {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// Files returns the files matching the globs (relative to the module root)
// that are at most MaxSeedBytes, in name order.
func Files(globs ...string) []Seed {
	root := Root()
	var names []string
	for _, g := range globs {
		m, _ := filepath.Glob(filepath.Join(root, g))
		names = append(names, m...)
	}
	sort.Strings(names)
	var out []Seed
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSeedBytes {
			continue
		}
		if b, err := os.ReadFile(n); err == nil {
			rel, _ := filepath.Rel(root, n)
			out = append(out, Seed{rel, b})
		}
	}
	return out
}

// Oracle returns up to perDir files of the shared oracle matching each
// glob (relative to the oracle directory), when the oracle is present.
func Oracle(perDir int, globs ...string) []Seed {
	dir := oracle.SharedDir()
	if dir == "" {
		return nil
	}
	dir = filepath.Join(dir, "oracle")
	var out []Seed
	for _, g := range globs {
		m, _ := filepath.Glob(filepath.Join(dir, g))
		sort.Strings(m)
		taken := map[string]int{}
		for _, n := range m {
			d := filepath.Dir(n)
			if taken[d] >= perDir {
				continue
			}
			fi, err := os.Stat(n)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxSeedBytes {
				continue
			}
			if b, err := os.ReadFile(n); err == nil {
				taken[d]++
				out = append(out, Seed{"oracle/" + strings.TrimPrefix(n, dir+"/"), b})
			}
		}
	}
	return out
}

// Containers returns the seeds of `gpuisa dis`: cubins of every family,
// relocatable and not, fatbins plain and compressed, host objects, GXP
// shaders, and the cubins with every attribute kind.
func Containers() []Seed {
	seeds := Embedded()
	seeds = append(seeds, Files(
		"binfmt/cubin/testdata/*.cubin", "binfmt/fatbin/testdata/*.fatbin", "binfmt/fatbin/testdata/*.o",
		"binfmt/gxp/testdata/*.gxp", "examples/*/*.cubin",
		"emu/maxwell/testdata/texsurf.sm_52.O3.cubin", "emu/maxwell/testdata/calls.rel.sm_52.cubin",
		"emu/maxwell/testdata/link.nvlink.sm_52.cubin", "emu/maxwell/testdata/addr64.sm_50.O0.cubin",
		"emu/maxwell/testdata/kernels.fatbin")...)
	seeds = append(seeds, Oracle(2, "maxwell/cubin/sm_5*/*.cubin", "usse/*/*.gxp")...)
	var out []Seed
	for _, s := range seeds {
		out = append(out, s)
		if b, err := AllAttrs(s.Data); err == nil {
			out = append(out, Seed{s.Name + "+attrs", b})
		}
	}
	return out
}

// AllAttrs rewrites a cubin so that every .nv.info section also carries one
// record of every attribute number (0x00..0x4f) in the shape the listing
// and the parser expect for it: symbol-index payloads, parameter records,
// instruction-offset lists, indirect branch targets (one pointing inside a
// control word), and value records of each format.
func AllAttrs(data []byte) ([]byte, error) {
	f, err := cubin.Parse(data)
	if err != nil {
		return nil, err
	}
	return Rebuild(data, func(secs []cubin.Section) []cubin.Section {
		for i := range secs {
			s := &secs[i]
			if s.Name != ".nv.info" && !strings.HasPrefix(s.Name, ".nv.info.") {
				continue
			}
			sym := uint32(0)
			if fn := f.Function(strings.TrimPrefix(s.Name, ".nv.info.")); fn != nil && fn.Symbol > 0 {
				sym = uint32(fn.Symbol)
			}
			s.Data = append(append([]byte(nil), s.Data...), attrRecords(sym)...)
		}
		return secs
	})
}

// attrRecords is one record of each attribute number.
func attrRecords(sym uint32) []byte {
	le := binary.LittleEndian
	var b []byte
	sval := func(id byte, payload []byte) {
		b = append(b, cubin.FmtSVal, id)
		b = le.AppendUint16(b, uint16(len(payload)))
		b = append(b, payload...)
	}
	words := func(ws ...uint32) []byte {
		var p []byte
		for _, w := range ws {
			p = le.AppendUint32(p, w)
		}
		return p
	}
	for id := byte(0); id < 0x50; id++ {
		switch id {
		case 0x0a: // PARAM_CBANK: symbol, offset 0x140, size 8
			sval(id, words(sym, 0x140|8<<16))
		case 0x2f, 0x23, 0x12, 0x11: // a symbol index, then a value
			sval(id, words(sym, 0x10))
		case 0x17: // KPARAM_INFO: index 0, ordinal 0, offset 0, size 8 (cbank 0x1f)
			sval(id, words(0, 0, 0x1f<<12|8<<18))
		case 0x0f: // EXTERNS
			sval(id, words(sym, 0))
		case 0x1c, 0x1d, 0x28, 0x31, 0x4a, 0x3d: // instruction offsets
			sval(id, words(0x8, 0x10, 0x3, 0x1000))
		case 0x34: // INDIRECT_BRANCH_TARGETS: at, 2 x u16, count, targets
			sval(id, words(0x8, 0, 2, 0x28, 0x3, 0x1, 0, 1, 0x30))
		case 0x19, 0x18, 0x37: // values in the header
			b = append(b, cubin.FmtHVal, id, 0x40, 0)
		default:
			switch id % 4 {
			case 0:
				b = append(b, cubin.FmtNVal, id, 0, 0)
			case 1:
				b = append(b, cubin.FmtBVal, id, 0x7, 0)
			case 2:
				b = append(b, cubin.FmtHVal, id, 0x34, 0x12)
			default:
				sval(id, words(0x12345678, 0x9))
			}
		}
	}
	return b
}
