package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpuisa/gpuisa/emu"
)

// exitInternal is the exit status of an internal error: a panic that
// reached the top of a command (a bug in gpuisa, never an input's fault).
const exitInternal = 3

// guard runs a command and turns a panic into one line on stderr and exit
// status 3: the last line of defence, not a way to handle bad input (bad
// input ends with exit 1 and a message that says where).
func guard(stderr io.Writer, command string, f func() int) (status int) {
	defer func() {
		if v := recover(); v != nil {
			reportInternal(stderr, command, fmt.Sprint(v), emu.PanicSite())
			status = exitInternal
		}
	}()
	return f()
}

func reportInternal(stderr io.Writer, command, what, where string) {
	if where != "" {
		what += " at " + where
	}
	fmt.Fprintf(stderr, "gpuisa: internal error: %s: %s (please report)\n", command, what)
}

// internalRunError reports a panic that a run's worker recovered (the
// engine returns it as an *emu.PanicError) and returns exit status 3;
// for other errors it returns 0.
func internalRunError(stderr io.Writer, err error) int {
	var pe *emu.PanicError
	if !errors.As(err, &pe) {
		return 0
	}
	reportInternal(stderr, "run", fmt.Sprint(pe.Value), pe.Where)
	return exitInternal
}
