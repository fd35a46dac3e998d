package fatbin

import "fmt"

// The limits of decompression (docs/limits.md). LZ4 can expand 255:1, so a
// small fatbin could declare a payload hundreds of times its size, and
// listing that costs memory in proportion. Real cubins and PTX compress
// 1.5:1 to 3:1; the limits are ten times that, checked against the
// declared size before anything is allocated.
const (
	// MaxRatio bounds a payload's decompressed size per compressed byte...
	MaxRatio = 32
	// ...plus RatioSlack bytes, for tiny payloads.
	RatioSlack = 4 << 10
	// TotalSlack is added to MaxRatio times the input for all the
	// payloads of one input together.
	TotalSlack = 1 << 20
)

// decompressRoom is what the payloads of an input of n bytes may take in
// all once decompressed.
func decompressRoom(n int) uint64 { return MaxRatio*uint64(n) + TotalSlack }

// checkRatio checks a compressed payload's declared size against the
// ratio and against what is left of the input's room, and takes its share.
func checkRatio(csize, dsize uint64, room *uint64) error {
	if dsize > MaxRatio*csize+RatioSlack {
		return fmt.Errorf("decompressed size 0x%x is more than %d times the compressed 0x%x bytes (the limit)", dsize, MaxRatio, csize)
	}
	if dsize > *room {
		return fmt.Errorf("decompressed size 0x%x: the payloads of this input would take more than %d times its size", dsize, MaxRatio)
	}
	*room -= dsize
	return nil
}
