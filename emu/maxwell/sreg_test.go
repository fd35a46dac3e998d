package maxwell

import (
	"testing"

	"github.com/gpuisa/gpuisa/emu"
)

// TestOracleSreg checks the special registers with defined values (thread,
// block and grid positions and shapes, lane id and masks) and that clock
// differences are small and not negative. Blocks write the same slots, so
// they run in order and the last block's values remain.
func TestOracleSreg(t *testing.T) {
	forVariants(t, "15_sreg", func(t *testing.T, prog []byte, arch string) {
		grid, block := emu.Dim3{2, 3, 2}, emu.Dim3{5, 3, 4}
		n := block.Count()
		r := run{program: prog, arch: arch, kernel: "sregs", grid: grid, block: block, serial: true,
			args: []arg{make([]byte, 160*n)}}
		res, err := r.exec(t)
		if err != nil {
			t.Fatal(err)
		}
		got := u32s(res.bufs[0])
		last := grid.At(grid.Count() - 1)
		for i := 0; i < n; i++ {
			tid := block.At(i)
			l := uint32(i % 32)
			w := got[40*i:]
			want := map[int]uint32{0: tid[0], 1: tid[1], 2: tid[2], 3: block[0], 4: block[1], 5: block[2],
				6: last[0], 7: last[1], 8: last[2], 9: grid[0], 10: grid[1], 11: grid[2], 12: l,
				19: 1<<l - 1, 20: ^uint32(1<<(l+1) - 1), 28: uint32(i),
				29: (last[2]*grid[1]+last[1])*grid[0] + last[0]}
			for j, v := range want {
				if w[j] != v {
					t.Errorf("thread %d word %d: got %#x, want %#x", i, j, w[j], v)
				}
			}
			if w[27] > 1000 {
				t.Errorf("thread %d: clock difference %d", i, w[27])
			}
		}
	})
}
