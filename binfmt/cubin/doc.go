// Package cubin reads and writes NVIDIA cubins: the ELF files (ELF32 or
// ELF64, little-endian, e_machine EM_CUDA = 190) that hold GPU machine code
// for Tesla (sm_1x), Fermi (sm_2x) and Maxwell (sm_5x) and later.
//
// A cubin keeps each function in a section .text.<name>. Beside it,
// .nv.info.<name> holds EIATTR records (parameter layout, register and
// barrier use, ...), .nv.constant<N>.<name> the initial constant banks,
// .nv.shared.<name> / .nv.local.<name> the memory sizes and .rel.text.<name>
// the relocations. Parse collects all of it per Function; the raw Sections
// and Symbols stay available.
//
// Reading:
//
//	f, err := cubin.Parse(data)
//	if err != nil {
//		return err // a *cubin.FormatError names the byte offset
//	}
//	fmt.Printf("code for sm_%d\n", f.SM())
//	for _, fn := range f.Functions {
//		// fn.Code is the machine code; parameters start at
//		// c[fn.ParamBank][fn.ParamBase] (0x140 on sm_5x).
//		for _, p := range fn.Params {
//			fmt.Println(fn.Name, p.Ordinal, fn.ParamBase+p.Offset, p.Size)
//		}
//	}
//
// Writing (what `gpuisa as -cubin` and tests use):
//
//	m := cubin.DefaultModule(52, "vecadd", code, 8, 8, 8, 8, 4) // three pointers and an int
//	data, err := cubin.Write(m)
//
// HeaderFlags and CuobjdumpHeaderFlags render e_flags the way nvdisasm and
// cuobjdump print them in `.headerflags`. Container formats around cubins
// (fat binaries, host executables) are package gpuisa/binfmt/fatbin.
//
// The numbering of sections types, EIATTR attributes, relocation types and
// e_flags bits was established by feeding variants of real cubins to CUDA 11.8
// cuobjdump and nvdisasm; the tests compare our parse of all oracle cubins
// with cuobjdump -elf.
package cubin
