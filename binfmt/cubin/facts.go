package cubin

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// A cuobjdump-style listing of an sm_1x/sm_2x cubin shows only the code.
// Facts are the rest of what Write needs to lay the same cubin out again:
// one ".cubin" directive line per fact, printed after a function's
// .headerflags line (gpuisa dis -facts) and read back by the cubin
// assembler. The lines are:
//
//	.cubin class=32 eflags=0xa000a             (the module; the same in every function)
//	.cubin registers=4 barriers=0 parambase=0x10 paramsize=0xc shared=0x0 local=0x0
//	.cubin param ordinal=0 offset=0x0 size=4 logalign=0 space=0 cbank=0x1f smem=1 index=0
//	.cubin const bank=1 size=0x24              (a constant bank, zero-filled ...)
//	.cubin const bank=1 at=0x0 data=0000803f   (... then its non-zero 32-byte runs)

// FactsDirective starts a fact line.
const FactsDirective = ".cubin"

// factRun is how many constant bytes one data line carries.
const factRun = 32

// ModuleOf returns the Module that describes f for Write: its class and
// e_flags, and per function the code and the facts Parse read.
func ModuleOf(f *File) *Module {
	m := &Module{Class: f.Class, SM: f.SM(), VirtualSM: f.VirtualSM(), Flags: f.Flags &^ (EFSMMask | EFVirtualSMMask)}
	for _, fn := range f.Functions {
		k := Kernel{Name: fn.Name, Code: fn.Code, Registers: fn.Registers, Barriers: fn.Barriers,
			Params: fn.Params, ParamBase: fn.ParamBase, ParamSize: fn.ParamSize,
			SharedSize: fn.SharedSize, LocalSize: fn.LocalSize}
		for _, c := range fn.Constants {
			k.Constants = append(k.Constants, ConstBank{Bank: c.Bank, Data: c.Data})
		}
		m.Kernels = append(m.Kernels, k)
	}
	return m
}

// AppendFacts appends the fact lines of kernel k of m, each indented by a
// tab and ended by a newline.
func AppendFacts(dst []byte, m *Module, k *Kernel) []byte {
	flags := uint32(m.SM) | uint32(m.VirtualSM)<<EFVirtualSMShift | m.Flags&^(EFSMMask|EFVirtualSMMask)
	dst = fmt.Appendf(dst, "\t%s class=%d eflags=%#x\n", FactsDirective, m.Class, flags)
	dst = fmt.Appendf(dst, "\t%s registers=%d barriers=%d parambase=%#x paramsize=%#x shared=%#x local=%#x\n",
		FactsDirective, k.Registers, k.Barriers, k.ParamBase, k.ParamSize, k.SharedSize, k.LocalSize)
	for _, p := range k.Params {
		dst = fmt.Appendf(dst, "\t%s param ordinal=%d offset=%#x size=%d logalign=%d space=%d cbank=%#x smem=%d index=%d\n",
			FactsDirective, p.Ordinal, p.Offset, p.Size, p.LogAlign, p.Space, p.CBank, btoi(p.SMem), p.Index)
	}
	for _, c := range k.Constants {
		dst = fmt.Appendf(dst, "\t%s const bank=%d size=%#x\n", FactsDirective, c.Bank, len(c.Data))
		for at := 0; at < len(c.Data); at += factRun {
			run := c.Data[at:min(at+factRun, len(c.Data))]
			if allZero(run) {
				continue
			}
			dst = fmt.Appendf(dst, "\t%s const bank=%d at=%#x data=", FactsDirective, c.Bank, at)
			dst = hex.AppendEncode(dst, run)
			dst = append(dst, '\n')
		}
	}
	return dst
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// maxFactConst bounds a constant bank a fact line may declare (the
// hardware's banks are 64 KiB).
const maxFactConst = 1 << 16

// ReadFact applies one fact line (the text after ".cubin") to m and to k,
// the kernel it follows. The module line sets m.Class and m.Flags (SM and
// virtual SM included); it is an error for it to disagree with an earlier
// one (moduleSeen).
func ReadFact(args string, m *Module, k *Kernel, moduleSeen bool) error {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return fmt.Errorf("empty %s line", FactsDirective)
	}
	kind := ""
	if !strings.Contains(fields[0], "=") {
		kind, fields = fields[0], fields[1:]
	}
	vals := map[string]uint64{}
	var data []byte
	for _, f := range fields {
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("bad %s field %q: want key=value", FactsDirective, f)
		}
		if _, dup := vals[key]; dup {
			return fmt.Errorf("%s field %s given twice", FactsDirective, key)
		}
		if key == "data" {
			d, err := hex.DecodeString(val)
			if err != nil || len(d) == 0 || len(d) > factRun {
				return fmt.Errorf("bad %s data %q: want 1..%d bytes in hex", FactsDirective, val, factRun)
			}
			data, vals[key] = d, 0
			continue
		}
		v, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return fmt.Errorf("bad %s field %s=%q: want a number", FactsDirective, key, val)
		}
		vals[key] = v
	}
	want := func(keys ...string) error {
		for _, key := range keys {
			if _, ok := vals[key]; !ok {
				return fmt.Errorf("%s %s line without %s=", FactsDirective, kind, key)
			}
		}
		if len(vals) != len(keys) {
			for key := range vals {
				if !strings.Contains(" "+strings.Join(keys, " ")+" ", " "+key+" ") {
					return fmt.Errorf("unknown %s field %s", FactsDirective, key)
				}
			}
		}
		return nil
	}
	limit := func(key string, most uint64) error {
		if vals[key] > most {
			return fmt.Errorf("%s %s=%#x out of range (at most %#x)", FactsDirective, key, vals[key], most)
		}
		return nil
	}
	check := func(err error, limits ...any) error {
		if err != nil {
			return err
		}
		for i := 0; i < len(limits); i += 2 {
			if err := limit(limits[i].(string), limits[i+1].(uint64)); err != nil {
				return err
			}
		}
		return nil
	}
	switch kind {
	case "":
		if _, ok := vals["class"]; ok {
			if err := check(want("class", "eflags"), "class", uint64(64), "eflags", uint64(0xffffffff)); err != nil {
				return err
			}
			class, flags := int(vals["class"]), uint32(vals["eflags"])
			if class != 32 && class != 64 {
				return fmt.Errorf("%s class=%d: want 32 or 64", FactsDirective, class)
			}
			if moduleSeen && (class != m.Class || flags&EFSMMask != uint32(m.SM)&EFSMMask ||
				flags != uint32(m.SM)|uint32(m.VirtualSM)<<EFVirtualSMShift|m.Flags) {
				return fmt.Errorf("%s class=%d eflags=%#x differs from the earlier module line", FactsDirective, class, flags)
			}
			if int(flags&EFSMMask) != m.SM {
				return fmt.Errorf("%s eflags=%#x is for sm_%d, the listing for sm_%d", FactsDirective, flags, flags&EFSMMask, m.SM)
			}
			m.Class, m.VirtualSM = class, int(flags>>EFVirtualSMShift)&0xff
			m.Flags = flags &^ (EFSMMask | EFVirtualSMMask)
			return nil
		}
		if err := check(want("registers", "barriers", "parambase", "paramsize", "shared", "local"),
			"registers", uint64(255), "barriers", uint64(shfBarriersMask), "parambase", uint64(0xffff),
			"paramsize", uint64(0xffff), "shared", uint64(1<<32-1), "local", uint64(1<<32-1)); err != nil {
			return err
		}
		k.Registers, k.Barriers = int(vals["registers"]), int(vals["barriers"])
		k.ParamBase, k.ParamSize = uint32(vals["parambase"]), uint32(vals["paramsize"])
		k.SharedSize, k.LocalSize = vals["shared"], vals["local"]
	case "param":
		if err := check(want("ordinal", "offset", "size", "logalign", "space", "cbank", "smem", "index"),
			"ordinal", uint64(0xffff), "offset", uint64(0xffff), "size", uint64(1<<14-1), "logalign", uint64(0xff),
			"space", uint64(0xf), "cbank", uint64(0x1f), "smem", uint64(1), "index", uint64(1<<32-1)); err != nil {
			return err
		}
		k.Params = append(k.Params, Param{Ordinal: int(vals["ordinal"]), Offset: uint32(vals["offset"]),
			Size: uint32(vals["size"]), LogAlign: uint8(vals["logalign"]), Space: uint8(vals["space"]),
			CBank: uint8(vals["cbank"]), SMem: vals["smem"] == 1, Index: uint32(vals["index"])})
	case "const":
		if _, ok := vals["size"]; ok {
			if err := check(want("bank", "size"), "bank", uint64(255), "size", uint64(maxFactConst)); err != nil {
				return err
			}
			for _, c := range k.Constants {
				if c.Bank == int(vals["bank"]) {
					return fmt.Errorf("%s const bank=%d declared twice", FactsDirective, c.Bank)
				}
			}
			k.Constants = append(k.Constants, ConstBank{Bank: int(vals["bank"]), Data: make([]byte, vals["size"])})
			return nil
		}
		if err := check(want("bank", "at", "data"), "bank", uint64(255), "at", uint64(maxFactConst)); err != nil {
			return err
		}
		for i := range k.Constants {
			c := &k.Constants[i]
			if c.Bank != int(vals["bank"]) {
				continue
			}
			at := vals["at"]
			if at+uint64(len(data)) > uint64(len(c.Data)) {
				return fmt.Errorf("%s const bank=%d at=%#x: %d bytes run past the bank's %#x", FactsDirective, c.Bank, at, len(data), len(c.Data))
			}
			copy(c.Data[at:], data)
			return nil
		}
		return fmt.Errorf("%s const bank=%d data before the bank's size line", FactsDirective, vals["bank"])
	default:
		return fmt.Errorf("unknown %s line %q (want a module, kernel, param or const line)", FactsDirective, kind)
	}
	return nil
}
