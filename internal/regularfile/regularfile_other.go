//go:build !linux

package regularfile

import "os"

// Writev writes bufs to f in order, one write each.
func Writev(f *os.File, bufs [][]byte) (int64, error) {
	var total int64
	for _, b := range bufs {
		n, err := f.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// WriteAt writes all of b to f at offset off.
func WriteAt(f *os.File, b []byte, off int64) (int, error) { return f.WriteAt(b, off) }
