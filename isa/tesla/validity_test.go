package tesla

import "testing"

// TestValidityRules: each test of a form's validity rejects the encoding
// it is about and accepts the form's plain encoding (its fixed bits, the
// rest zero), on every form that has it.
func TestValidityRules(t *testing.T) {
	rules := []struct {
		test validTests
		name string
		bad  func(v uint64) uint64 // makes the plain encoding break the rule
	}{
		{validCC, "condition register without a write", func(v uint64) uint64 { return f_ccw.Set(f_ccr.Set(v, 1), 0) }},
		{validS1Long, "address register without a memory operand", func(v uint64) uint64 {
			return f_alo.Set(f_sh.Set(f_c2.Set(f_c3.Set(v, 0), 0), 0), 1)
		}},
		{validS1Short, "shared-source address register without a shared source", func(v uint64) uint64 { return f_salo.Set(f_ssh.Set(v, 0), 1) }},
		{validMemAreg, "post-increment without an address register", func(v uint64) uint64 { return f_ainc.Set(f_alo.Set(f_ahi.Set(v, 0), 0), 1) }},
		{validGmem, "g[] with an address register", func(v uint64) uint64 { return f_alo.Set(v, 1) }},
		{validAdst, "address-register destination above 15", func(v uint64) uint64 { return f_dst.Set(v, 16) }},
	}
	for _, r := range rules {
		n := 0
		for fi := range forms {
			c := &formValidity[fi]
			if c.tests&r.test == 0 {
				continue
			}
			f := &forms[fi]
			plain := f.value
			bad := r.bad(plain)
			if bad&f.mask != f.value || bad&^f.care != 0 {
				continue // the rule's bits are fixed by this form
			}
			n++
			if !c.valid(plain) && c.enumBad == 0 {
				t.Errorf("form %d (%s): plain encoding %#x rejected", fi, f.name, plain)
			}
			if c.valid(bad) {
				t.Errorf("form %d (%s): %#x accepted: %s", fi, f.name, bad, r.name)
			}
		}
		if n == 0 {
			t.Errorf("no form tests %q", r.name)
		}
	}
	// an enumeration value that names no option
	n := 0
	for fi := range forms {
		c := &formValidity[fi]
		for x := uint64(0); x < 1<<c.enum.Width && c.enumBad != 0; x++ {
			if v := c.enum.Set(forms[fi].value, x); c.enumBad>>x&1 != 0 && v&forms[fi].mask == forms[fi].value {
				n++
				if c.valid(v) {
					t.Errorf("form %d (%s): enumeration value %d accepted", fi, forms[fi].name, x)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no enumeration tested")
	}
}
