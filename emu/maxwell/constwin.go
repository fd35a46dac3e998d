package maxwell

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuisa/gpuisa/emu"
)

// cbConstWindow is where bank 0 holds the generic address of constant bank
// 3 (the module's __constant__ variables): code that takes a variable's
// address (cvta.const, every access at -G) adds it and reads with LD.E, and
// isspacep.global excludes [address, address + the bank's size).
const cbConstWindow = 0xd0

// constBank is the bank of the module's __constant__ variables.
const constBank = 3

// mapConstBank gives the program's bank 3 (as the launch fills it) a copy in
// global memory, after everything else there, and puts its address in bank
// 0: the driver backs constant banks with device memory the same way.
func (k *Kernel) mapConstBank(img *Image) error {
	n := uint64(len(img.Const[constBank]))
	if n == 0 {
		return nil
	}
	g := k.Global
	at := (uint64(len(g.Data)) + 255) &^ 255
	if at+n > emu.MaxMemory || (len(g.Segments) > 0 && g.Segments[0].Addr < at+n) {
		return fmt.Errorf("constant bank %d (%d bytes) does not fit in global memory", constBank, n)
	}
	g.Data = append(g.Data, make([]byte, at-uint64(len(g.Data)))...)
	g.Data = append(g.Data, k.Const[constBank].Data[:n]...)
	binary.LittleEndian.PutUint64(k.Const[0].Data[cbConstWindow:], GlobalBase+at)
	return nil
}
