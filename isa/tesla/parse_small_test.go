package tesla

import (
	"strconv"
	"testing"
)

// TestParseSmall checks the register number reader against strconv.
func TestParseSmall(t *testing.T) {
	for _, s := range []string{"", "0", "7", "007", "127", "255", "256", "0255", "00000000000000000000012", "1000", "+1", "-1", "1a", "٣", "99999999999999999999999"} {
		n, ok := parseSmall(s)
		want, err := strconv.ParseUint(s, 10, 8)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("parseSmall(%q) = %d, %v; strconv says %d, %v", s, n, ok, want, err)
		}
	}
}
