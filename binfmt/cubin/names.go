package cubin

import (
	"fmt"
	"strings"
)

// relocNames are the R_CUDA_* names of relocation types 1..101 as CUDA 11.8
// cuobjdump -elf prints them (found by rewriting the type of real entries).
var relocNames = [...]string{
	"NONE", "32", "64", "G32", "G64", "ABS32_26", "TEX_HEADER_INDEX", "SAMP_HEADER_INDEX", "SURF_HW_DESC", "SURF_HW_SW_DESC",
	"ABS32_LO_26", "ABS32_HI_26", "ABS32_23", "ABS32_LO_23", "ABS32_HI_23", "ABS24_26", "ABS24_23", "ABS16_26", "ABS16_23", "TEX_SLOT",
	"SAMP_SLOT", "SURF_SLOT", "TEX_BINDLESSOFF13_32", "TEX_BINDLESSOFF13_47", "CONST_FIELD19_28", "CONST_FIELD19_23", "TEX_SLOT9_49", "6_31", "2_47", "TEX_BINDLESSOFF13_41",
	"TEX_BINDLESSOFF13_45", "FUNC_DESC32_23", "FUNC_DESC32_LO_23", "FUNC_DESC32_HI_23", "FUNC_DESC_32", "FUNC_DESC_64", "CONST_FIELD21_26", "QUERY_DESC21_37", "CONST_FIELD19_26", "CONST_FIELD21_23",
	"PCREL_IMM24_26", "PCREL_IMM24_23", "ABS32_20", "ABS32_LO_20", "ABS32_HI_20", "ABS24_20", "ABS16_20", "FUNC_DESC32_20", "FUNC_DESC32_LO_20", "FUNC_DESC32_HI_20",
	"CONST_FIELD19_20", "BINDLESSOFF13_36", "SURF_HEADER_INDEX", "INSTRUCTION64", "CONST_FIELD21_20", "ABS32_32", "ABS32_LO_32", "ABS32_HI_32", "ABS47_34", "ABS16_32",
	"ABS24_32", "FUNC_DESC32_32", "FUNC_DESC32_LO_32", "FUNC_DESC32_HI_32", "CONST_FIELD19_40", "BINDLESSOFF14_40", "CONST_FIELD21_38", "INSTRUCTION128", "YIELD_OPCODE9_0", "YIELD_CLEAR_PRED4_87",
	"32_LO", "32_HI", "UNUSED_CLEAR32", "UNUSED_CLEAR64", "ABS24_40", "ABS55_16_34", "8_0", "8_8", "8_16", "8_24",
	"8_32", "8_40", "8_48", "8_56", "G8_0", "G8_8", "G8_16", "G8_24", "G8_32", "G8_40",
	"G8_48", "G8_56", "FUNC_DESC_8_0", "FUNC_DESC_8_8", "FUNC_DESC_8_16", "FUNC_DESC_8_24", "FUNC_DESC_8_32", "FUNC_DESC_8_40", "FUNC_DESC_8_48", "FUNC_DESC_8_56",
	"ABS20_44", "SAMP_HEADER_INDEX_0",
}

// RelocTypeName returns "R_CUDA_<NAME>" for a known relocation type, or
// "R_CUDA_0x<hex>" otherwise.
func RelocTypeName(t uint32) string {
	if uint64(t) < uint64(len(relocNames)) {
		return "R_CUDA_" + relocNames[t]
	}
	return fmt.Sprintf("R_CUDA_0x%x", t)
}

// SectionTypeName returns the name nvdisasm uses for a section type
// ("SHT_PROGBITS", "SHT_CUDA_INFO", "SHT_CUDA_CONSTANT_B2", ...).
func SectionTypeName(t uint32) string {
	switch t {
	case SecNull:
		return "SHT_NULL"
	case SecProgbits:
		return "SHT_PROGBITS"
	case SecSymtab:
		return "SHT_SYMTAB"
	case SecStrtab:
		return "SHT_STRTAB"
	case SecRela:
		return "SHT_RELA"
	case SecNobits:
		return "SHT_NOBITS"
	case SecRel:
		return "SHT_REL"
	}
	// 0x70000000.. confirmed with cuobjdump -elf; 0x70000005 and 0x7000000c.. are unnamed.
	cuda := [...]string{"INFO", "CALLGRAPH", "PROTOTYPE", "RESOLVED_RELA", "METADATA", "", "CONSTANT", "GLOBAL", "GLOBAL_INIT", "LOCAL", "SHARED", "RELOCINFO"}
	if t >= SecCUDAInfo && t-SecCUDAInfo < uint32(len(cuda)) && cuda[t-SecCUDAInfo] != "" {
		return "SHT_CUDA_" + cuda[t-SecCUDAInfo]
	}
	if t >= SecCUDAConstant0 && t < SecCUDAConstant0+8 {
		return fmt.Sprintf("SHT_CUDA_CONSTANT_B%d", t-SecCUDAConstant0)
	}
	return fmt.Sprintf("SHT_0x%x", t)
}

// e_flags of a cubin. The low byte is the SM version the code is for, bits
// 16..23 the virtual (PTX) SM it was compiled from; the rest are these flags
// (names as nvdisasm prints them in .headerflags).
const (
	EFSMMask             = 0xff
	EFTexmodeUnified     = 0x100
	EFTexmodeIndependent = 0x200
	EF64BitAddress       = 0x400
	EFSW1729687          = 0x800
	EFSW1729687v2        = 0x1000
	EFVirtualSMShift     = 16
	EFVirtualSMMask      = 0xff << EFVirtualSMShift
	efNamedFlags         = EFTexmodeUnified | EFTexmodeIndependent | EF64BitAddress | EFSW1729687 | EFSW1729687v2
)

// knownSM reports whether nvdisasm/cuobjdump have an EF_CUDA_SM<n> name for n.
func knownSM(sm int) bool {
	switch sm {
	case 10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90:
		return true
	}
	return false
}

// HeaderFlags renders e_flags the way nvdisasm prints them in ELF mode:
//
//	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM50 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM50)"
//
// It returns the quoted part without quotes. Unknown virtual SMs print as
// "unrecognized:<hex>", and so do unknown flag bits, as nvdisasm does.
func HeaderFlags(flags uint32) string {
	var parts []string
	names := []struct {
		bit  uint32
		name string
	}{
		{EFTexmodeUnified, "EF_CUDA_TEXMODE_UNIFIED"},
		{EFTexmodeIndependent, "EF_CUDA_TEXMODE_INDEPENDENT"},
		{EF64BitAddress, "EF_CUDA_64BIT_ADDRESS"},
		{EFSW1729687, "EF_CUDA_SW_1729687"},
		{EFSW1729687v2, "EF_CUDA_SW_1729687_v2"},
	}
	for _, n := range names {
		if flags&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	parts = append(parts, fmt.Sprintf("EF_CUDA_SM%d", flags&EFSMMask))
	if v := int(flags>>EFVirtualSMShift) & 0xff; v != 0 {
		if knownSM(v) {
			parts = append(parts, fmt.Sprintf("EF_CUDA_VIRTUAL_SM(EF_CUDA_SM%d)", v))
		} else {
			parts = append(parts, fmt.Sprintf("unrecognized:%x", v))
		}
	}
	if rest := flags &^ (EFSMMask | EFVirtualSMMask | efNamedFlags); rest != 0 {
		parts = append(parts, fmt.Sprintf("unrecognized:%x", rest))
	}
	return strings.Join(parts, " ")
}

// CuobjdumpHeaderFlags renders the .headerflags string cuobjdump -sass prints
// after "Function : <name>": the SM twice, whatever the other flags say, e.g.
// `EF_CUDA_SM10 EF_CUDA_PTX_SM(EF_CUDA_SM10)`.
func CuobjdumpHeaderFlags(flags uint32) string {
	sm := flags & EFSMMask
	return fmt.Sprintf("EF_CUDA_SM%d EF_CUDA_PTX_SM(EF_CUDA_SM%d)", sm, sm)
}
