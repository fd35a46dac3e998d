package fermi

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// bwtKey is the big-endian word of the four bytes of s at i: the sort key
// of the rotation starting there (the first byte most significant).
func bwtKey(s []byte, i int) uint32 {
	return uint32(s[i])<<24 | uint32(s[i+1])<<16 | uint32(s[i+2])<<8 | uint32(s[i+3])
}

// TestRealGatherBWTKeys runs the key gather of mgpu's Burrows-Wheeler
// transform (bwt/src/isa/bwt.isa, GatherBWTKeys_1 to _6; source
// bwt/src/kernels/bwt.cu): for each position gid of the string it writes
// the big-endian words of bytes gid+4k..gid+4k+3 to key stream k (PRMT with
// the selector 0x0123 + 0x1111*(gid&3) on two words from shared memory)
// and gid to the index array. 512 threads a block, DivUp(count, 512)
// blocks, parameters (string, count, six key streams, indices); each
// block loads 160 words of the string, so the buffer runs that far past
// the last block's start (the bytes past count are whatever the buffer
// holds, here random too).
func TestRealGatherBWTKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for streams := 1; streams <= 6; streams++ {
		for _, count := range []int{5000, 512 * 3} {
			t.Run(fmt.Sprintf("%d/%d", streams, count), func(t *testing.T) {
				code := realKernel(t, fmt.Sprintf("GatherBWTKeys_%d", streams))
				blocks := (count + 511) / 512
				s := make([]byte, 4*(128*blocks+160))
				rng.Read(s)
				d := newDevice()
				d.alloc("string", s)
				params := []any{buf("string"), uint32(count)}
				for k := range 6 {
					name := fmt.Sprintf("keys%d", k+1)
					d.alloc(name, make([]byte, 4*count))
					params = append(params, buf(name))
				}
				d.alloc("indices", make([]byte, 4*count))
				params = append(params, buf("indices"))
				if _, err := d.run(t, launch{program: code, grid: emu.Dim3{uint32(blocks), 1, 1}, block: emu.Dim3{512, 1, 1},
					params: params}); err != nil {
					t.Fatal(err)
				}
				for k := range 6 {
					want := make([]uint32, count)
					if k < streams {
						for gid := range want {
							want[gid] = bwtKey(s, gid+4*k)
						}
					}
					if err := sameWords(u32s(d.bytes(fmt.Sprintf("keys%d", k+1))), want); err != nil {
						t.Errorf("key stream %d: %v", k+1, err)
					}
				}
				want := make([]uint32, count)
				for gid := range want {
					want[gid] = uint32(gid)
				}
				if err := sameWords(u32s(d.bytes("indices")), want); err != nil {
					t.Errorf("indices: %v", err)
				}
			})
		}
	}
}

// TestRealCompareBWTKeys runs CompareBWTKeys_3 of the same listing: after
// the indices are sorted by their first 12 bytes, each position gets a
// head flag (a byte, stored four to a word) when its three key words
// (read by TLD from the string bound to texture slot 0 as 32-bit words,
// the last word masked by lastMask) differ from its predecessor's. 512
// threads a block, parameters (indices, count, lastMask, head flags); the
// compiled code does not test gid < count, so every thread of the grid
// reads an index and writes a flag. The first position has no
// predecessor (its slots of shared memory are never written): its flag is
// not checked.
func TestRealCompareBWTKeys(t *testing.T) {
	code := realKernel(t, "CompareBWTKeys_3")
	rng := rand.New(rand.NewSource(19))
	for _, c := range []struct {
		count    int
		lastMask uint32
	}{{3 * 512, 0xffffff00}, {5000, 0xffffffff}, {700, 0xff000000}} {
		blocks := (c.count + 511) / 512
		n := 512 * blocks
		s := make([]byte, n+64)
		for i := range s {
			s[i] = "ab"[rng.Intn(2)] // two letters: many equal keys
		}
		keys := func(j int) [3]uint32 {
			return [3]uint32{bwtKey(s, j), bwtKey(s, j+4), bwtKey(s, j+8) & c.lastMask}
		}
		indices := make([]uint32, n)
		for i := range indices {
			indices[i] = uint32(i)
		}
		slices.SortFunc(indices, func(a, b uint32) int {
			ka, kb := keys(int(a)), keys(int(b))
			for i := range ka {
				if ka[i] != kb[i] {
					return cmp.Compare(ka[i], kb[i])
				}
			}
			return cmp.Compare(a, b)
		})
		d := newDevice()
		d.alloc("indices", fromU32(indices))
		d.alloc("string", s)
		d.alloc("flags", make([]byte, n))
		if _, err := d.run(t, launch{program: code, grid: emu.Dim3{uint32(blocks), 1, 1}, block: emu.Dim3{512, 1, 1},
			params:   []any{buf("indices"), uint32(c.count), c.lastMask, buf("flags")},
			textures: []emu.TexImage{{Name: "string_texture", Buffer: "string", Format: "r32ui", Size: []int{len(s) / 4}}}}); err != nil {
			t.Fatal(err)
		}
		got := d.bytes("flags")
		heads := 0
		for gid := 1; gid < n; gid++ {
			want := byte(0)
			if keys(int(indices[gid])) != keys(int(indices[gid-1])) {
				want = 1
				heads++
			}
			if got[gid] != want {
				t.Errorf("count %d: flag %d = %d, want %d", c.count, gid, got[gid], want)
				break
			}
		}
		if heads == 0 || heads == n-1 {
			t.Errorf("count %d: %d heads of %d: the check decides nothing", c.count, heads, n)
		}
	}
}
