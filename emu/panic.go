package emu

import (
	"fmt"
	"path"
	"runtime"
	"strings"
)

// PanicError is a panic in a worker of Run, recovered so that it reaches
// the caller as an error instead of ending the process: a bug in an
// emulator (never the kernel's fault, which is a *Fault), which the tool
// reports as an internal error.
type PanicError struct {
	Value any
	Where string // file:line of the code that panicked
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: %v at %s", e.Value, e.Where)
}

// recoverWorker turns a worker's panic into *err.
func recoverWorker(err *error) {
	v := recover()
	if v == nil {
		return
	}
	*err = &PanicError{Value: v, Where: PanicSite()}
}

// PanicSite is file:line (package directory and file) of the code that
// panicked, for a function deferred by the frame that recovers, which calls
// it directly: the first frame below the runtime's panic machinery.
func PanicSite() string {
	pc := make([]uintptr, 32)
	n := runtime.Callers(3, pc)
	frames := runtime.CallersFrames(pc[:n])
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			return path.Join(path.Base(path.Dir(f.File)), path.Base(f.File)) + fmt.Sprintf(":%d", f.Line)
		}
		if !more {
			return ""
		}
	}
}
