package maxwell

import (
	"bytes"
	"io"
)

// NVNWriter annotates a listing with NVN comments as it passes through
// (dis -nvn; AnnotateNVN's comments), a line at a time, so the listing is
// never held whole: it keeps only a partial last line between writes.
// Close annotates that line.
type NVNWriter struct {
	w       io.Writer
	partial []byte
	out     []byte
}

func (n *NVNWriter) Write(b []byte) (int, error) {
	total := len(b)
	if len(n.partial) > 0 {
		// finish the pending line first
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			n.partial = append(n.partial, b...)
			return total, nil
		}
		n.partial = append(n.partial, b[:end+1]...)
		if err := n.annotate(n.partial); err != nil {
			return 0, err
		}
		n.partial, b = n.partial[:0], b[end+1:]
	}
	// whole lines, a piece at a time: one large write is not copied whole
	for len(b) > 0 {
		end := bytes.LastIndexByte(b[:min(len(b), nvnPiece)], '\n')
		if end < 0 {
			end = bytes.IndexByte(b, '\n')
		}
		if end < 0 {
			n.partial = append(n.partial, b...)
			break
		}
		if err := n.annotate(b[:end+1]); err != nil {
			return 0, err
		}
		b = b[end+1:]
	}
	return total, nil
}

// NewNVNWriter returns an NVNWriter writing to w.
func NewNVNWriter(w io.Writer) *NVNWriter { return &NVNWriter{w: w} }

// nvnPiece is how much listing an NVNWriter annotates at a time.
const nvnPiece = 64 << 10

func (n *NVNWriter) annotate(lines []byte) error {
	n.out = AnnotateNVN(n.out[:0], lines)
	_, err := n.w.Write(n.out)
	return err
}

// Close annotates and writes what is left (a last line without newline).
func (n *NVNWriter) Close() error {
	if len(n.partial) == 0 {
		return nil
	}
	err := n.annotate(n.partial)
	n.partial = n.partial[:0]
	return err
}
