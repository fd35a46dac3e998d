package maxwell

import (
	"bytes"
	"testing"

	"github.com/gpuisa/gpuisa/internal/gentest"
	"github.com/gpuisa/gpuisa/isa/maxwell/internal/spec"
)

// TestTablesUpToDate: tables.go, print_gen.go and operands_gen.go are what the generator makes of spec.txt.
func TestTablesUpToDate(t *testing.T) {
	s := specForms(t)
	want, err := spec.Generate(s)
	gentest.Current(t, "tables.go", want, err, "./isa/maxwell")
	printers, err := spec.GeneratePrinters(s)
	gentest.Current(t, "print_gen.go", printers, err, "./isa/maxwell")
	operands, err := spec.GenerateOperands(s)
	gentest.Current(t, "operands_gen.go", operands, err, "./isa/maxwell")
}

// TestSeedOpcodes: every opcode of NVIDIA's Maxwell list (seed 004) has a form.
func TestSeedOpcodes(t *testing.T) {
	seed := "AL2P ALD AST ATOM ATOMS B2R BAR BFE BFI BPT BRA BRK BRX CAL CCTL CCTLL CCTLT CONT CS2R CSET CSETP DADD DEPBAR DFMA DMNMX DMUL DSET DSETP EXIT F2F F2I FADD FADD32I FCHK FCMP FFMA FFMA32I FLO FMNMX FMUL FMUL32I FSET FSETP FSWZADD GETCRSPTR GETLMEMBASE HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2 I2F I2I IADD IADD3 IADD32I ICMP IDE IMAD IMAD32I IMADSP IMNMX IMUL IMUL32I IPA ISBERD ISCADD ISCADD32I ISET ISETP JCAL JMP JMX KIL LD LDC LDG LDL LDS LEA LEPC LONGJMP LOP LOP3 LOP32I MEMBAR MOV MOV32I MUFU NOP OUT P2R PBK PCNT PEXIT PIXLD PLONGJMP POPC PRET PRMT PSET PSETP R2B R2P RAM RED RET RRO RTT S2R SAM SEL SETCRSPTR SETLMEMBASE SHF SHFL SHL SHR SSY ST STG STL STP STS SUATOM SULD SURED SUST SYNC TEX TEXS TLD TLD4 TLD4S TLDS TMML TXA TXD TXQ VABSDIFF VABSDIFF4 VADD VMAD VMNMX VOTE VSET VSETP VSHL VSHR XMAD"
	var missing []string
	for _, op := range bytes.Fields([]byte(seed)) {
		if _, ok := formsByName()[string(op)]; !ok {
			missing = append(missing, string(op))
		}
	}
	t.Logf("%d opcodes missing: %v", len(missing), missing)
	if len(missing) > maxMissingOpcodes {
		t.Errorf("%d seed opcodes have no form (allowed %d): %v", len(missing), maxMissingOpcodes, missing)
	}
}

const maxMissingOpcodes = 0
