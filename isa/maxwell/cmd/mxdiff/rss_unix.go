//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSSMB is a finished process's peak resident memory in MB (Linux
// reports it in KB).
func peakRSSMB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) / 1024
	}
	return 0
}
