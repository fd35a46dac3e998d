//go:build unix

// Command listspeed times `BIN dis -arch ARCH FILE` for several gpuisa
// binaries side by side: RUNS rounds, each running every binary once in
// turn, each run writing to a new regular file (the last one removed, then
// sync) with standard error discarded. Alternating cancels most of a
// shared machine's drift. For each binary it prints the median, first
// quartile and best wall time, the median user and system CPU time, the
// line count and lines a second by the median, and whether its listing
// (and standard error) is byte for byte the first binary's.
//
//	go run ./tools/listspeed RUNS ARCH FILE BIN...
//	go run ./tools/listspeed 21 sgx543 /tmp/lb/sgx543_valid.bin /tmp/gpuisa-old /tmp/gpuisa-new
//
// Inputs: tools/listbench writes them. The output files go to
// $LISTSPEED_DIR (default /tmp/listspeed): a regular filesystem, as users
// list to.
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// result is one binary's runs.
type result struct {
	wall, user, sys []time.Duration
	lines           int
	sum             [32]byte // of the last run's listing and standard error
}

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: listspeed RUNS ARCH FILE BIN...")
		os.Exit(2)
	}
	runs, err := strconv.Atoi(os.Args[1])
	if err != nil || runs < 1 {
		fmt.Fprintf(os.Stderr, "listspeed: RUNS %q is not a positive number\n", os.Args[1])
		os.Exit(2)
	}
	arch, file, bins := os.Args[2], os.Args[3], os.Args[4:]
	dir := os.Getenv("LISTSPEED_DIR")
	if dir == "" {
		dir = "/tmp/listspeed"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "listspeed:", err)
		os.Exit(1)
	}
	results := make([]result, len(bins))
	for range runs {
		for k, bin := range bins {
			if err := runOnce(&results[k], bin, arch, file, filepath.Join(dir, "out.txt")); err != nil {
				fmt.Fprintln(os.Stderr, "listspeed:", err)
				os.Exit(1)
			}
		}
	}
	for k, bin := range bins {
		r := &results[k]
		wall := sorted(r.wall)
		same := "same output as " + filepath.Base(bins[0])
		if k == 0 {
			same = "reference output"
		} else if r.sum != results[0].sum {
			same = "OUTPUT DIFFERS from " + filepath.Base(bins[0])
		}
		med := wall[(len(wall)-1)/2]
		fmt.Printf("%s: wall median %.1f ms, first quartile %.1f, best %.1f; user %.1f ms, sys %.1f; %d lines, %.1fM lines/s by the median; %s\n",
			filepath.Base(bin), ms(med), ms(wall[(len(wall)-1)/4]), ms(wall[0]),
			ms(sorted(r.user)[(runs-1)/2]), ms(sorted(r.sys)[(runs-1)/2]),
			r.lines, float64(r.lines)/med.Seconds()/1e6, same)
	}
}

// runOnce runs bin once into a new file out and records its times, lines
// and output.
func runOnce(r *result, bin, arch, file, out string) error {
	os.Remove(out)
	syscall.Sync()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "dis", "-arch", arch, file)
	cmd.Stdout, cmd.Stderr = f, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return err // not started (an exit status of 1 is decode errors)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return fmt.Errorf("%s: no resource usage", bin)
	}
	r.wall = append(r.wall, wall)
	r.user = append(r.user, time.Duration(ru.Utime.Nano()))
	r.sys = append(r.sys, time.Duration(ru.Stime.Nano()))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	lines := 0
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	h.Write(stderr.Bytes())
	r.lines = lines
	copy(r.sum[:], h.Sum(nil))
	return nil
}

func sorted(d []time.Duration) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
