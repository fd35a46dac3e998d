package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

var updateListings = flag.Bool("update-listings", false, "rewrite testdata/cubin_listings.tsv from the current output")

// xorshiftCode is n bytes of deterministic pseudo-random sm_5x code (about
// half of the words do not decode; the rest give branches, braced pairs and
// ??? operands).
func xorshiftCode(n int) []byte {
	x := uint64(0x9e3779b97f4a7c15)
	code := make([]byte, 0, n)
	for len(code) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		code = binary.LittleEndian.AppendUint64(code, x)
	}
	return code
}

// generatedCubin is a cubin holding the code as one kernel, made as a user
// would: listed raw, then assembled with as -cubin.
func generatedCubin(t testing.TB, code []byte) []byte {
	t.Helper()
	listing := invoke(code, "dis", "-arch", "sm_52", "-")
	r := invoke(listing.stdout, "as", "-arch", "sm_52", "-cubin", "-kernel", "k", "-")
	if r.status != 0 {
		t.Fatalf("as -cubin: %s", r.stderr)
	}
	return r.stdout
}

// TestCubinListingStreamed: the sm_5x cubin listing is written as it is
// made (maxwell.WriteCubin) instead of built whole; every command line
// prints what the whole-listing builder printed (testdata/cubin_listings.tsv,
// made with commit 57d439b), for a generated cubin of 1 MiB of random code
// and, with the oracle, for all its cubins.
func TestCubinListingStreamed(t *testing.T) {
	path := filepath.Join("testdata", "cubin_listings.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var modes [][]string
	var wantCubin string
	want := map[string][]string{}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case strings.HasPrefix(line, "#"):
		case f[0] == "generated-cubin":
			wantCubin = f[1]
		case f[0] == "modes":
			for _, m := range f[1:] {
				modes = append(modes, strings.Fields(m))
			}
		default:
			want[f[0]] = f[1:]
			names = append(names, f[0])
		}
	}
	dir := t.TempDir()
	gen := generatedCubin(t, xorshiftCode(1<<20))
	if sum := sha256.Sum256(gen); hex.EncodeToString(sum[:]) != wantCubin {
		t.Fatalf("the generated cubin differs from the one the listings were made of (dis -arch or as -cubin changed)")
	}
	files := map[string]string{"generated": filepath.Join(dir, "generated.cubin")}
	if err := os.WriteFile(files["generated"], gen, 0o644); err != nil {
		t.Fatal(err)
	}
	shared := oracle.SharedDir()
	for _, n := range names {
		if n != "generated" {
			files[n] = filepath.Join(shared, "oracle", "maxwell", "cubin", n)
		}
	}
	got := map[string][]string{}
	checked := 0
	for _, n := range names {
		if n != "generated" && (shared == "" || testing.Short() && checked > 20) {
			continue
		}
		for k, m := range modes {
			r := invoke(nil, append(append([]string(nil), m...), files[n])...)
			sum := sha256.Sum256(r.stdout)
			g := fmt.Sprintf("%d:%s", r.status, hex.EncodeToString(sum[:6]))
			got[n] = append(got[n], g)
			if g != want[n][k] && !*updateListings {
				t.Errorf("%s: %s: exit:sha256 %s, the whole-listing builder printed %s", n, strings.Join(m, " "), g, want[n][k])
			}
		}
		checked++
	}
	t.Logf("%d cubins x %d command lines listed as before", checked, len(modes))
	if *updateListings {
		var b bytes.Buffer
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if f := strings.Split(line, "\t"); len(f) > 1 && got[f[0]] != nil {
				line = f[0] + "\t" + strings.Join(got[f[0]], "\t") + "\n"
			}
			b.WriteString(line)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pieceWriter passes on what is written in pieces of at most n bytes.
type pieceWriter struct {
	w io.Writer
	n int
}

func (p pieceWriter) Write(b []byte) (int, error) {
	for s := b; len(s) > 0; s = s[min(p.n, len(s)):] {
		if _, err := p.w.Write(s[:min(p.n, len(s))]); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// TestCubinListingMemory: listing an sm_5x cubin held its whole listing
// (about 100 times the code: 823 MB for 8 MiB of code); it is written as
// it is made now, and the heap stays within docs/limits.md's bound of
// three times the cubin and 8 MiB, for random code (half the words do not
// decode) and for code that branches everywhere (a label per instruction),
// in every listing mode that streams.
func TestCubinListingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 8 MiB of code several times")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var bra strings.Builder
	for a := 8; a < 2<<20; a += 8 {
		if a%32 != 0 {
			fmt.Fprintf(&bra, "BRA 0x%x;\n", a)
		}
	}
	branches := invoke([]byte(bra.String()), "as", "-arch", "sm_52", "-cubin", "-kernel", "k", "-")
	if branches.status != 0 {
		t.Fatalf("as: %s", branches.stderr)
	}
	for _, c := range []struct {
		name  string
		cubin []byte
	}{
		{"random", generatedCubin(t, xorshiftCode(4<<20))},
		{"branches", branches.stdout},
	} {
		file := filepath.Join(t.TempDir(), c.name+".cubin")
		if err := os.WriteFile(file, c.cubin, 0o644); err != nil {
			t.Fatal(err)
		}
		limit := uint64(3*len(c.cubin) + 8<<20)
		for _, args := range [][]string{
			{"dis"}, {"dis", "-nvn"}, {"dis", "-json"}, {"nvdisasm", "-hex"}, {"nvdisasm", "-raw"},
			{"nvdisasm", "-g"}, {"nvdisasm", "-c", "-hex"}, {"cuobjdump", "-sass"},
			{"nvdisasm", "-plr"}, {"nvdisasm", "-plr", "-hex"},
		} {
			limit := limit
			if args[0] == "nvdisasm" && args[1] == "-plr" {
				// -plr keeps a section's decoded instructions, their
				// liveness and its listing (docs/limits.md)
				limit = uint64(24*len(c.cubin) + 16<<20)
			}
			var out countWriter
			peak := peakHeap(func() {
				w := bufio.NewWriter(pieceWriter{&out, 4096})
				cio := &cmdIO{stdin: bytes.NewReader(nil), stdout: w, stderr: io.Discard}
				findCommand(args[0]).invoke(append(args[1:], file), cio)
				w.Flush()
			})
			if peak > limit {
				t.Errorf("%s: %s of %d KiB: %d KiB of heap at most, more than %d KiB", c.name, strings.Join(args, " "), len(c.cubin)>>10, peak>>10, limit>>10)
			}
			t.Logf("%s: %s of %d KiB: %d MiB of listing, %d KiB of heap at most", c.name, strings.Join(args, " "), len(c.cubin)>>10, out>>20, peak>>10)
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(b []byte) (int, error) {
	*c += countWriter(len(b))
	return len(b), nil
}
