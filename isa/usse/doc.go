// Package usse decodes, prints, parses and encodes the PowerVR SGX543 USSE
// instruction set (the PS Vita GPU) in Sony's psp2shaderperf spelling.
//
// Everything about the encoding lives in usse.spec; `go generate` turns it
// into tables.go. An instruction is one little-endian 64-bit word; op1 (bits
// 63..59) indexes the table of forms, and the first form of that group whose
// fixed bits match decodes the word. Groups 0x16, 0x17, 0x18 and 0x1B hold no
// instructions; words there, and field values the spec marks invalid, are
// decode errors.
//
// # Decoding
//
// Decoder{}.Decode(code, addr) decodes the instruction at address addr of
// code, the shape every ISA package of gpuisa shares; DecodeWord decodes a
// word. A decoded Inst exposes its operands as typed values (Inst.Operands)
// and its field values (Inst.Field) for tools that want values rather than
// text.
//
// # Text
//
// The text is Sony's (mad.f32, lda32.fetch4 r24, [sa116, 0x24],
// cmov.ltzero.f32, !p0 kill, tex2DBias.f16) with three additions that make
// it name exactly one word, so that parse(print(w)) encodes back to w for
// every word Decode accepts:
//
//   - Fields Sony's tool does not show (scheduling bits such as skipinv,
//     nosched, syncstart, repeat counts, unknown bits) are mnemonic suffixes:
//     ".name" for a set one-bit field, ".name=N" otherwise, printed only when
//     they differ from their default (0, or what usse.spec's "defaults" line
//     gives: skipinv is 1 in all compiler output here), e.g. mad.f32.nosched.
//   - Don't-care bits of a form are the pseudo-fields dc, dca, ... (at most 32
//     bits each), printed the same way (emitvtx.end.dc=2069 0x0).
//   - Where two encodings would print alike, one carries a marker: VMAD vec3
//     ".vec3" (unless its swizzles already rule out vec4), VMAD2 with two
//     internal-register or constant sources ".vmad2", and VPCK with equal
//     f16/f32 formats keeps its second source unless a '-' hole in its
//     selects rules VMOV out.
//   - Sum-of-products operands (no Sony sample exists) are our spelling:
//     registers, then colour factors, alpha operation, alpha factors.
//   - Dual issue (op1 0x04, 0x05) is one line, the second operation after
//     " +" (Sony: a second line starting with '+'); where the operands do not
//     name one word, markers after the operations (.scalar, .ssq, .vec4, then
//     layout fields) say which; see dual.go.
//   - Constant operands print as Sony prints them ({0}, {1, 1}) only for the
//     encoding the parser picks back; other encodings keep the register form.
//
// Words that are not instructions are listed as ".quad 0x...", which the
// assembler accepts. Listings use the NVIDIA line shape
// "/*0008*/ text ; /* 0x... */"; the assembler accepts it with or without the
// columns, plus labels for ba (absolute) and br (relative) targets.
package usse

//go:generate go run ./internal/gen/cmd/gentables
//go:generate go test -tags initboot -run TestInitTables -inittables
