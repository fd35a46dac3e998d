// Package usse decodes, prints, parses and encodes the PowerVR SGX543 USSE
// instruction set (the PS Vita GPU) in Sony's psp2shaderperf spelling.
//
// Everything about the encoding lives in usse.spec; `go generate` turns it
// into tables.go. An instruction is one little-endian 64-bit word; op1 (bits
// 63..59) indexes the table of forms, and the first form of that group whose
// fixed bits match decodes the word. Every bit of a decoded word is printed
// (fields Sony's tool hides become mnemonic suffixes such as ".nosched"), so
// parse(print(w)) encodes back to w for every word Decode accepts.
package usse

//go:generate go run ./internal/gen/cmd/gentables
