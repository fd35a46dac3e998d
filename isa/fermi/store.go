package fermi

// The printer stores its texts as whole words into room reserved once per
// line (withRoom): a store at b[p] may write up to storeSlack bytes past
// len(b), into capacity withRoom reserved. On hosts that store unaligned
// little-endian words natively (store_fast.go) a store is a bounds check
// and a move; elsewhere (store_portable.go) it is encoding/binary's.

// storeSlack is how far past len(b) a store may write.
const storeSlack = 16

// withRoom returns dst with n+storeSlack bytes of capacity past its length
// and the n-byte window after its length that the text goes into.
func withRoom(dst []byte, n int) ([]byte, []byte) {
	if cap(dst)-len(dst) < n+storeSlack {
		dst = append(dst[:cap(dst)], make([]byte, n+storeSlack+cap(dst)/2)...)[:len(dst)]
	}
	l := len(dst)
	return dst, dst[l : l+n]
}
