package params

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
	"github.com/gpuisa/gpuisa/emu"
)

func TestPack(t *testing.T) {
	s := &emu.Setup{Job: &emu.Job{Args: []emu.Arg{emu.U32(0x11223344), emu.Ptr("buf"), emu.U64(0x0102030405060708)}},
		Buffers: map[string]emu.BufferPlace{"buf": {Addr: 0x100}}}
	value := func(i int, a emu.Arg) (uint64, error) { return BufferAddr(s, a) }
	// no table: each at the next offset aligned to its size (4-byte pointers)
	got, err := Pack(s, nil, 4, value)
	want := []byte{0x44, 0x33, 0x22, 0x11, 0, 1, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("4-byte pointers: % x, %v", got, err)
	}
	// 8-byte pointers move the 64-bit value up
	got, err = Pack(s, nil, 8, value)
	want = []byte{0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("8-byte pointers: % x, %v", got, err)
	}
	// a table places them where it says
	table := []cubin.Param{{Offset: 8, Size: 4}, {Offset: 0, Size: 8}, {Offset: 16, Size: 8}}
	got, err = Pack(s, table, 8, value)
	want = []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("table: % x, %v", got, err)
	}
	for _, c := range []struct {
		table []cubin.Param
		value func(int, emu.Arg) (uint64, error)
		want  string
	}{
		{table[:2], value, "the launch gives 3 parameters, the kernel takes 2"},
		{[]cubin.Param{{Size: 8}, {Size: 8}, {Size: 8}}, value, "params[0]: 4 bytes"},
		{nil, func(int, emu.Arg) (uint64, error) { return 0, errors.New("no") }, "params[1]: no"},
	} {
		if _, err := Pack(s, c.table, 8, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if _, err := BufferAddr(s, emu.Ptr("none")); err == nil {
		t.Error("an unknown buffer has an address")
	}
}
