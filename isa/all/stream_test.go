package all

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/gpuisa/gpuisa/isa"
)

// Every arch's streamed listing is its Disassemble's, byte for byte and
// error for error, on code of several parts (random bytes: 4- and 8-byte
// instructions and bad words crossing the parts' boundaries).
func TestWriteListingIsDisassemble(t *testing.T) {
	code := make([]byte, 1<<20+(1<<19)+12)
	rand.New(rand.NewSource(5)).Read(code)
	seen := map[string]bool{}
	for _, a := range Archs() {
		if seen[a.ISA] {
			continue
		}
		seen[a.ISA] = true
		if a.WriteListing == nil {
			t.Errorf("%s: no WriteListing", a.Name)
			continue
		}
		want, wantErrs := a.Disassemble(nil, code, 0x40)
		var got bytes.Buffer
		errs, err := a.WriteListing(&got, code, 0x40)
		// a stream keeps at most isa.MaxListedErrors errors (in order) and
		// counts the rest: memory must not grow per invalid word
		capped := len(wantErrs) > isa.MaxListedErrors && len(errs) < len(wantErrs)
		if err != nil || !bytes.Equal(got.Bytes(), want) || len(errs) != len(wantErrs) && !capped {
			t.Errorf("%s: streamed listing differs (%d bytes, want %d; %d errors, want %d; %v)", a.Name, got.Len(), len(want), len(errs), len(wantErrs), err)
			continue
		}
		for i := range min(len(errs), isa.MaxListedErrors) {
			if errs[i].Error() != wantErrs[i].Error() {
				t.Errorf("%s: error %d: %v, want %v", a.Name, i, errs[i], wantErrs[i])
				break
			}
		}
		t.Logf("%s: %d bytes of listing, %d errors, the same", a.Name, len(want), len(errs))
	}
}
