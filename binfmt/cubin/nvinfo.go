package cubin

import (
	"encoding/binary"
	"fmt"
)

// EIFMT_* record formats of .nv.info attributes.
const (
	FmtNVal = 1 // no value
	FmtBVal = 2 // 8-bit value in the record header
	FmtHVal = 3 // 16-bit value in the record header
	FmtSVal = 4 // the header's 16-bit field is the size of the payload that follows
)

// EIATTR_* attribute numbers that gpuisa reads or writes. AttrName knows all
// that CUDA 11.8 cuobjdump names (0x00..0x40).
const (
	AttrMaxThreads           = 0x05
	AttrParamCBank           = 0x0a // SVAL: u32 symbol of .nv.constant0.<fn>, u16 param offset, u16 param size
	AttrReqNTID              = 0x10
	AttrFrameSize            = 0x11
	AttrMinStackSize         = 0x12
	AttrKParamInfo           = 0x17 // SVAL: one parameter, see Param
	AttrSMemParamSize        = 0x18
	AttrCBankParamSize       = 0x19 // HVAL: bytes of parameters
	AttrMaxRegCount          = 0x1b
	AttrExitInstrOffsets     = 0x1c
	AttrS2RCTAIDInstrOffsets = 0x1d
	AttrMaxStackSize         = 0x23
	AttrRegCount             = 0x2f // SVAL in .nv.info: u32 function symbol, u32 registers
	AttrCUDAAPIVersion       = 0x37
)

// Attr is one EIATTR record of a .nv.info section. Every record starts with a
// 4-byte header: format, attribute number, 16-bit value or payload size.
type Attr struct {
	Off    int    // offset of the record in its section
	Format uint8  // FmtNVal, FmtBVal, FmtHVal or FmtSVal
	ID     uint8  // EIATTR number; AttrName(ID) is its name
	Value  uint16 // BVAL/HVAL: the value; SVAL: the payload size
	Data   []byte // SVAL payload (aliases the input); nil otherwise
}

// Name is the EIATTR_* name of the attribute.
func (a Attr) Name() string { return AttrName(a.ID) }

// Word returns the i-th little-endian 32-bit word of an SVAL payload.
func (a Attr) Word(i int) (uint32, bool) {
	if i < 0 || 4*i+4 > len(a.Data) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(a.Data[4*i:]), true
}

// CheckAttrs reports the first malformed EIATTR record in the contents of an
// .nv.info section, as Parse would find it; the error's offset counts from
// the section's start. Assemblers check the sections they build with it.
func CheckAttrs(data []byte) error {
	_, err := parseAttrs(data, 0)
	return err
}

// parseAttrs reads the EIATTR records of a .nv.info section at file offset base.
func parseAttrs(data []byte, base uint64) ([]Attr, error) {
	var out []Attr
	for off := 0; off < len(data); {
		if len(data)-off < 4 {
			return nil, errAt(base+uint64(off), ".nv.info record header truncated (%d bytes left, need 4)", len(data)-off)
		}
		a := Attr{Off: off, Format: data[off], ID: data[off+1], Value: binary.LittleEndian.Uint16(data[off+2:])}
		switch a.Format {
		case FmtNVal, FmtHVal:
		case FmtBVal:
			a.Value &= 0xff
		case FmtSVal:
			size := int(a.Value)
			if size > len(data)-off-4 {
				return nil, errAt(base+uint64(off), ".nv.info record %s: payload of %d bytes runs past the section end (%d bytes left)", AttrName(a.ID), size, len(data)-off-4)
			}
			a.Data = data[off+4 : off+4+size : off+4+size]
			off += size
		default:
			return nil, errAt(base+uint64(off), ".nv.info record has unknown format 0x%02x (attribute 0x%02x)", a.Format, a.ID)
		}
		off += 4
		out = append(out, a)
	}
	return out, nil
}

// appendAttr appends the encoding of a to b.
func appendAttr(b []byte, a Attr) []byte {
	v := a.Value
	if a.Format == FmtSVal {
		v = uint16(len(a.Data))
	}
	b = append(b, a.Format, a.ID)
	b = binary.LittleEndian.AppendUint16(b, v)
	return append(b, a.Data...)
}

// Param is one kernel parameter as EIATTR_KPARAM_INFO describes it.
type Param struct {
	Ordinal  int    // position in the parameter list
	Offset   uint32 // byte offset from the parameter base (Function.ParamBase)
	Size     uint32 // bytes
	LogAlign uint8  // log2 of the pointee's alignment ("Pointee's logAlignment")
	Space    uint8  // pointee's address space
	CBank    uint8  // cbank field (0x1f in every ptxas 11.8 cubin)
	SMem     bool   // parameter space is shared memory rather than a constant bank
	Index    uint32 // the record's leading index word (0 in ptxas output)
}

// KPARAM_INFO payload: u32 index, u16 ordinal, u16 offset, u32 info where
// info = logAlign | space<<8 | cbank<<12 | smem<<17 | size<<18 (bit
// positions confirmed with cuobjdump -elf).
const kparamSize = 12

func parseParam(a Attr, base uint64) (Param, error) {
	if len(a.Data) < kparamSize {
		return Param{}, errAt(base+uint64(a.Off), "EIATTR_KPARAM_INFO payload is %d bytes, want %d", len(a.Data), kparamSize)
	}
	d := a.Data
	info := binary.LittleEndian.Uint32(d[8:])
	return Param{
		Index:    binary.LittleEndian.Uint32(d),
		Ordinal:  int(binary.LittleEndian.Uint16(d[4:])),
		Offset:   uint32(binary.LittleEndian.Uint16(d[6:])),
		LogAlign: uint8(info),
		Space:    uint8(info>>8) & 0xf,
		CBank:    uint8(info>>12) & 0x1f,
		SMem:     info>>17&1 != 0,
		Size:     info >> 18,
	}, nil
}

func (p Param) payload() []byte {
	b := binary.LittleEndian.AppendUint32(nil, p.Index)
	b = binary.LittleEndian.AppendUint16(b, uint16(p.Ordinal))
	b = binary.LittleEndian.AppendUint16(b, uint16(p.Offset))
	info := uint32(p.LogAlign) | uint32(p.Space&0xf)<<8 | uint32(p.CBank&0x1f)<<12 | p.Size<<18
	if p.SMem {
		info |= 1 << 17
	}
	return binary.LittleEndian.AppendUint32(b, info)
}

// attrNames are the EIATTR names CUDA 11.8 cuobjdump -elf prints for records
// 0x00..0x40 (found by rewriting one record's number and reading the output).
var attrNames = [...]string{
	"ERROR", "PAD", "IMAGE_SLOT", "JUMPTABLE_RELOCS", "CTAIDZ_USED", "MAX_THREADS", "IMAGE_OFFSET", "IMAGE_SIZE",
	"TEXTURE_NORMALIZED", "SAMPLER_INIT", "PARAM_CBANK", "SMEM_PARAM_OFFSETS", "CBANK_PARAM_OFFSETS", "SYNC_STACK", "TEXID_SAMPID_MAP", "EXTERNS",
	"REQNTID", "FRAME_SIZE", "MIN_STACK_SIZE", "SAMPLER_FORCE_UNNORMALIZED", "BINDLESS_IMAGE_OFFSETS", "BINDLESS_TEXTURE_BANK", "BINDLESS_SURFACE_BANK", "KPARAM_INFO",
	"SMEM_PARAM_SIZE", "CBANK_PARAM_SIZE", "QUERY_NUMATTRIB", "MAXREG_COUNT", "EXIT_INSTR_OFFSETS", "S2RCTAID_INSTR_OFFSETS", "CRS_STACK_SIZE", "NEED_CNP_WRAPPER",
	"NEED_CNP_PATCH", "EXPLICIT_CACHING", "ISTYPEP_USED", "MAX_STACK_SIZE", "SUQ_USED", "LD_CACHEMOD_INSTR_OFFSETS", "LOAD_CACHE_REQUEST", "ATOM_SYS_INSTR_OFFSETS",
	"COOP_GROUP_INSTR_OFFSETS", "COOP_GROUP_MASK_REGIDS", "SW1850030_WAR", "WMMA_USED", "HAS_PRE_V10_OBJECT", "ATOMF16_EMUL_INSTR_OFFSETS", "ATOM16_EMUL_INSTR_REG_MAP", "REGCOUNT",
	"SW2393858_WAR", "INT_WARP_WIDE_INSTR_OFFSETS", "SHARED_SCRATCH", "STATISTICS", "INDIRECT_BRANCH_TARGETS", "SW2861232_WAR", "SW_WAR", "CUDA_API_VERSION",
	"NUM_MBARRIERS", "MBARRIER_INSTR_OFFSETS", "COROUTINE_RESUME_ID_OFFSETS", "SAM_REGION_STACK_SIZE", "PER_REG_TARGET_PERF_STATS", "CTA_PER_CLUSTER", "EXPLICIT_CLUSTER", "MAX_CLUSTER_RANK",
	"INSTR_REG_MAP",
}

// AttrName returns "EIATTR_<NAME>" for a known attribute number, or
// "EIATTR_0x<hex>" for an unknown one.
func AttrName(id uint8) string {
	if int(id) < len(attrNames) {
		return "EIATTR_" + attrNames[id]
	}
	return fmt.Sprintf("EIATTR_0x%02x", id)
}
