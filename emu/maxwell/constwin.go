package maxwell

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
)

// cbDriverWords is the part of bank 0 the driver fills below the
// parameters (up to the constant window's address).
const cbDriverWords = cbConstWindow + 8

// cbConstWindow is where bank 0 holds the generic address of constant bank
// 3 (the module's __constant__ variables): code that takes a variable's
// address (cvta.const, every access at -G) adds it and reads with LD.E, and
// isspacep.global excludes [address, address + the bank's size).
const cbConstWindow = 0xd0

// constBank is the bank of the module's __constant__ variables.
const constBank = 3

// mapConstBank gives the program's bank 3 (as the launch fills it) a copy in
// global memory and puts its address in bank 0, as the driver backs
// constant banks with device memory: at the end of global memory, or at
// the device address at (not 0) an earlier launch reserved. It returns the
// copy's device address.
func (k *Kernel) mapConstBank(img *Image, at uint64) (uint64, error) {
	n := uint64(len(img.Const[constBank]))
	if n == 0 {
		return 0, nil
	}
	g := k.Global
	if at == 0 {
		off, err := reserve(g, n, fmt.Sprintf("constant bank %d", constBank))
		if err != nil {
			return 0, err
		}
		at = GlobalBase + off
	}
	copy(g.Data[at-GlobalBase:], k.Const[constBank].Data[:n])
	k.regions = append(k.regions, emu.Region{Name: "constant bank 3's copy", Addr: at - GlobalBase, Size: n})
	binary.LittleEndian.PutUint64(k.Const[0].Data[cbConstWindow:], at)
	return at, nil
}

// constWindow is the memory LDC reads bank's bytes [addr, addr+size) from:
// the bank, or, past what the cubin and the launch put in it, a bank that
// reads zeros up to ConstBankBytes (the banks are that size on the GPU).
func (k *Kernel) constWindow(bank uint8, addr uint64, size int) *emu.Memory {
	m := &k.Const[bank]
	if end := addr + uint64(size); end > uint64(len(m.Data)) && end <= ConstBankBytes && end > addr {
		data := make([]byte, end)
		copy(data, m.Data)
		return &emu.Memory{Space: emu.Constant, Data: data}
	}
	return m
}
