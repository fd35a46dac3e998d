package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/fuzzseed"
	"github.com/gpuisa/gpuisa/isa"
)

// The fuzz targets drive the tool in-process, the way the command line
// does, and check the contract (contract_test.go) on every input. Inputs
// are capped so that executions stay fast (each target is run for 10
// million executions; docs/fuzzing.md has the counts): what a cap leaves out
// (size limits, huge declarations) has tests of its own in hostile_test.go.
//
//	tools/fuzz-all.sh ./cmd/gpuisa:FuzzDis    # go test -fuzz with -fuzztime 10000000x -fuzzminimizetime 100x

const maxFuzzInput = 32 << 10

// disModes picks dis flags from a byte: bits 0-1 the sm_5x cubin layout
// (-vliw, -nohex), bit 2 -nvn, bits 3-7 an architecture (0: none).
func disModes(mode byte) (args []string, arch isa.Arch) {
	if mode&1 != 0 {
		args = append(args, "-vliw")
	}
	if mode&2 != 0 {
		args = append(args, "-nohex")
	}
	if a := mode >> 3; a != 0 {
		arch = archByIndex(a - 1)
		args = append(args, "-arch", arch.Name)
	}
	if mode&4 != 0 && (arch.Name == "" || arch.ISA == "maxwell") {
		args = append(args, "-nvn")
	}
	return args, arch
}

// FuzzDis lists any bytes as dis does: cubins of every family, fatbins
// (plain and compressed), host objects, GXP shaders and raw code, in every
// listing mode and for every architecture.
func FuzzDis(f *testing.F) {
	for i, s := range fuzzseed.Containers() {
		if len(s.Data) > maxFuzzInput {
			continue
		}
		f.Add(s.Data, byte(i*3))
		f.Add(s.Data, byte(4|(7+i%3)<<3)) // -nvn -arch sm_5x
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		if len(data) > maxFuzzInput {
			return
		}
		flags, arch := disModes(mode)
		r := invoke(data, append(append([]string{"dis"}, flags...), "-")...)
		// raw bytes without -arch are a usage error, and so is -nvn for
		// a cubin of another family... no: only the raw case
		raw := !isContainer(data) && !isGXP(data)
		checkContract(t, r, raw && arch.Name == "")
	})
}

// FuzzRoundTrip is the round trip at the command line, for every ISA:
// whatever dis prints for raw code (with -base, -nvn, undecodable words as
// .word), as assembles back to the same bytes, except the bits the text
// cannot carry (docs/roundtrip.md), and dis lists that code the same way.
func FuzzRoundTrip(f *testing.F) {
	for i, s := range rawSeeds() {
		f.Add(s.Data, byte(i), byte(0), uint32(0))
		f.Add(s.Data, byte(i), byte(1), uint32(0x100))
	}
	f.Fuzz(func(t *testing.T, data []byte, archIdx, flags byte, base uint32) {
		if len(data) > 1024 {
			return // 32 bundles, 256 Tesla words: enough for every form, fast to list and assemble
		}
		arch := archByIndex(archIdx)
		base &= 0xfffff
		base -= base % uint32(baseAlign(arch))
		args := []string{"-arch", arch.Name, "-base", fmt.Sprintf("%#x", base)}
		if flags&1 != 0 && arch.ISA == "maxwell" {
			args = append(args, "-nvn")
		}
		listing := invoke(data, append(append([]string{"dis"}, args...), "-")...)
		checkContract(t, listing, false)
		back := invoke(listing.stdout, "as", "-arch", arch.Name, "-")
		checkContract(t, back, false)
		if back.status != 0 {
			t.Fatalf("as rejects what dis printed:\n%s\n%s", back.stderr, listing.stdout)
		}
		n := len(data) - len(data)%int(baseAlign(arch)) // a shorter tail is not listed
		if !sameCode(arch, back.stdout, data[:n]) {
			t.Fatalf("%s: dis | as gives\n% x\nwant\n% x\nlisting:\n%s", arch.Name, back.stdout, data[:n], listing.stdout)
		}
		// the bits that may differ do not show: the listing is the same
		again := invoke(back.stdout, append(append([]string{"dis"}, args...), "-")...)
		if n == len(data) && textsOf(again.stdout) != textsOf(listing.stdout) {
			t.Fatalf("%s: the code lists differently the second time:\n%s\n%s", arch.Name, listing.stdout, again.stdout)
		}
	})
}

// textsOf is a listing without its hex columns (and what follows them): the
// texts, which do not show the bits that may differ.
func textsOf(listing []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(listing), "\n") {
		if i := strings.LastIndex(line, "/* 0x"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// sameCode compares code modulo the bits the listing text cannot carry.
func sameCode(a isa.Arch, got, want []byte) bool {
	if len(got) != len(want) {
		return false
	}
	mask := dontCare(a, want)
	for i := range got {
		var m byte
		if mask != nil {
			m = mask[i]
		}
		if (got[i]^want[i])&^m != 0 && !samePrinted(a, got, want, i) {
			return false
		}
	}
	return true
}

// FuzzAs assembles any text for every architecture, as raw code or as a
// cubin: an error names line:column; what as accepts, dis lists without
// error (unless the text asked for raw words with .word or .quad), and
// listing and assembling it again gives the same code.
func FuzzAs(f *testing.F) {
	for i, s := range listingSeeds(f) {
		f.Add(s.Data, byte(i), i%5 == 0)
	}
	f.Fuzz(func(t *testing.T, text []byte, archIdx byte, asCubin bool) {
		if len(text) > 8<<10 {
			return
		}
		arch := archByIndex(archIdx)
		args := []string{"as", "-arch", arch.Name}
		if asCubin && arch.SMVersion != 0 {
			args = append(args, "-cubin", "-kernel", "k")
		}
		r := invoke(text, append(args, "-")...)
		checkContract(t, r, false)
		if r.status != 0 {
			return
		}
		raw := bytes.Contains(text, []byte(".word")) || bytes.Contains(text, []byte(".quad"))
		disArgs := []string{"dis", "-arch", arch.Name, "-"}
		if asCubin && arch.SMVersion != 0 {
			disArgs = []string{"dis", "-"}
		}
		listing := invoke(r.stdout, disArgs...)
		checkContract(t, listing, false)
		if listing.status != 0 && !raw {
			t.Fatalf("%s: dis rejects what as accepted:\n%s\ntext:\n%s", arch.Name, listing.stderr, text)
		}
		if asCubin {
			return
		}
		again := invoke(listing.stdout, "as", "-arch", arch.Name, "-")
		if again.status != 0 || !sameCode(arch, again.stdout, r.stdout) {
			t.Fatalf("%s: as | dis | as differs (exit %d):\n%s\nfirst  % x\nsecond % x\nlisting:\n%s", arch.Name, again.status, again.stderr, r.stdout, again.stdout, listing.stdout)
		}
	})
}

// rawSeeds is machine code of every ISA, each at most 1 KiB (what
// FuzzRoundTrip takes) and each once (a seed cubin and its +attrs twin
// share their code): the code of the seed containers (cubins of every
// family, GXP programs), our raw Tesla example and the oracle's Tesla
// programs. (Our examples' other .bin files are data, not code.)
func rawSeeds() []fuzzseed.Seed {
	var out []fuzzseed.Seed
	seen := map[string]bool{}
	add := func(name string, code []byte) {
		code = code[:min(len(code), 1024)]
		if len(code) > 0 && !seen[string(code)] {
			seen[string(code)] = true
			out = append(out, fuzzseed.Seed{Name: name, Data: code})
		}
	}
	for _, s := range fuzzseed.Containers() {
		add(s.Name+".code", firstCode(s.Data))
	}
	for _, s := range fuzzseed.Files("examples/tesla/vecadd.bin") {
		add(s.Name, s.Data)
	}
	for _, s := range fuzzseed.Oracle(3, "flexgrip-apps/*/program.bin") {
		add(s.Name, s.Data)
	}
	return out
}

// listingSeeds are texts as would assemble: dis output of the seeds (raw
// and whole cubins, every ISA), the committed listings, and our examples.
func listingSeeds(f *testing.F) []fuzzseed.Seed {
	var out []fuzzseed.Seed
	for i, s := range rawSeeds() {
		arch := archByIndex(byte(i))
		r := invoke(s.Data[:min(len(s.Data), 256)], "dis", "-arch", arch.Name, "-")
		out = append(out, fuzzseed.Seed{Name: s.Name + ".s", Data: r.stdout})
	}
	// the start of whole cubin listings, cut at a line
	for _, s := range fuzzseed.Containers()[:12] {
		r := invoke(s.Data, "dis", "-")
		text := r.stdout[:min(len(r.stdout), 8<<10)]
		if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i+1]
		}
		out = append(out, fuzzseed.Seed{Name: s.Name + ".s", Data: text})
	}
	out = append(out, fuzzseed.Files("examples/*/*.s", "emu/tesla/testdata/*.s")...)
	return out
}

// firstCode is the code of a container's first function, or of a GXP
// shader's primary program.
func firstCode(data []byte) []byte {
	var b bytes.Buffer
	if isContainer(data) || isGXP(data) {
		return codeOf(data, &b)
	}
	return nil
}
