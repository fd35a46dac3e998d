package main

import "testing"

// Location expressions and register names as cuobjdump 11.8 printed them
// for our -G builds (saxpy.g.cubin, matmul.g.cubin).
func TestDwarfExpr(t *testing.T) {
	for _, tc := range []struct {
		block []byte
		want  string
		ok    bool
	}{
		{[]byte{0x90, 0xb1, 0xcc, 0x95, 0x01}, "DW_OP_regx: %f1", true},
		{[]byte{0x03, 0x40, 0x01, 0, 0, 0, 0, 0, 0}, "DW_OP_addr: 0x140", true},
		{[]byte{0x23, 0x0c}, "DW_OP_plus_uconst: 12", true},
		{[]byte{0x91, 0xb0, 0x7f, 0x96, 0x23, 0x2c}, "DW_OP_fbreg: -80; DW_OP_nop; DW_OP_plus_uconst: 44", true},
		{[]byte{0x9c}, "", false}, // DW_OP_call_frame_cfa: cuobjdump names no operation
		{[]byte{0x90}, "", false}, // truncated
	} {
		got, ok := dwarfExpr(tc.block)
		if got != tc.want || ok != tc.ok {
			t.Errorf("% x: %q %v, want %q %v", tc.block, got, ok, tc.want, tc.ok)
		}
	}
	if got := cfaReg(0x5000001); got != "R1" {
		t.Errorf("cfaReg(0x5000001) = %q", got)
	}
}
