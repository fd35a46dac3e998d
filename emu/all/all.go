// Package all is the registry of the architectures gpuisa can run, and the
// library's entry point for running a kernel: Run runs one job, NewDevice
// makes a device for a sequence of them. The registry is built by Emulators
// on every call (no mutable global state); emulator packages add their
// entry there.
package all

import (
	"github.com/gpuisa/gpuisa/emu"
	"github.com/gpuisa/gpuisa/emu/fermi"
	"github.com/gpuisa/gpuisa/emu/maxwell"
	"github.com/gpuisa/gpuisa/emu/tesla"
)

// Emulators lists every emulator, in architecture order.
func Emulators() []emu.Emulator {
	return []emu.Emulator{
		tesla.Emulator(),
		fermi.Emulator(),
		maxwell.Emulator(),
	}
}

// NewDevice makes a device that runs every architecture of Emulators.
func NewDevice() *emu.Device { return emu.NewDevice(Emulators()) }

// Run runs one job on a fresh device: the architecture is the program's
// (Job.Program.Arch, else the cubin's own), the result holds the memory
// after the run (Result.Buffer reads a buffer). A fault is returned with
// the result so far; a job that cannot start returns a nil result.
func Run(j *emu.Job) (*emu.Result, error) { return NewDevice().Run(j) }

// Runnable lists the architectures that can be run.
func Runnable() []string { return NewDevice().Runnable() }
