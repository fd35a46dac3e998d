package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The -tools mode: every flag set of the nvdisasm and cuobjdump drop-ins
// against the live tools, on every given file; agreement (standard output
// and exit status identical) is reported per flag set.

// nvdisasmFlagSets are the flag combinations compared for nvdisasm: every
// flag of nvdisasm 11.8 alone and in the combinations scripts use, and the
// ones it refuses. "@OPTF" stands for an options file holding "-hex -c".
var nvdisasmFlagSets = []string{
	"", "-hex", "-novliw", "-hex -novliw", "-c", "-sf", "-raw", "-raw -hex", "-ndf",
	"-c -sf -hex", "-fun 1", "-fun 1,3 -c", "-g", "-gi", "-g -hex -c", "-gi -novliw",
	"-g -raw", "-cfg", "-bbcfg", "-cfg -poff", "-bbcfg -poff", "-cfg -novliw", "-cfg -ndf",
	"-bbcfg -ndf", "-cfg -bbcfg", "-cfg -plr", "-poff", "-plr -ndf",
	"-b SM52 -base 0x100 -c", "-optf @OPTF",
	// life ranges last: the slowest for nvdisasm
	"-plr", "-plr -hex", "-plr -novliw", "-lrm count", "-lrm wide", "-lrm narrow",
}

// cuobjdumpFlagSets are the flag combinations compared for cuobjdump; with
// -xelf the files it writes are compared too.
var cuobjdumpFlagSets = []string{
	"-sass", "-symbols", "-res-usage", "-lelf", "-lptx", "-ptx", "-elf", "-all -sass",
	"-sort -sass", "-sass -arch sm_52", "-sass -fun vecadd", "-symbols -res-usage -sass", "-elf -sass",
	"-all -elf", "-elf -arch sm_50", "-fun saxpy -elf", "-xelf all", "-lelf -lptx",
}

// toolsDiff runs the comparison; files are cubins (nvdisasm and cuobjdump)
// or fatbins and host objects (cuobjdump only). gpuisa is the drop-in's
// binary, or several separated by commas (say, before and after a change),
// each compared with the same NVIDIA run; "" builds the current one.
func toolsDiff(nvdisasm, cuobjdump, gpuisa string, files []string, verbose int, only *regexp.Regexp) error {
	dir, err := os.MkdirTemp("", "mxdiff-tools")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if gpuisa == "" {
		gpuisa = filepath.Join(dir, "gpuisa")
		if out, err := exec.Command("go", "build", "-o", gpuisa, "github.com/gpuisa/gpuisa/cmd/gpuisa").CombinedOutput(); err != nil {
			return fmt.Errorf("building gpuisa: %v\n%s", err, out)
		}
	}
	bins := strings.Split(gpuisa, ",")
	optf := filepath.Join(dir, "options")
	if err := os.WriteFile(optf, []byte("-hex -c\n"), 0o644); err != nil {
		return err
	}
	var cubins []string
	for k, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			files[k], f = abs, abs // the tools run in scratch directories
		}
		if strings.HasSuffix(f, ".cubin") {
			cubins = append(cubins, f)
		}
	}
	type job struct {
		tool, nv, flags string
		files           []string
	}
	var jobs []job
	for _, fl := range nvdisasmFlagSets {
		if only == nil || only.MatchString("nvdisasm "+fl) {
			jobs = append(jobs, job{"nvdisasm", nvdisasm, fl, cubins})
		}
	}
	if cuobjdump != "" {
		for _, fl := range cuobjdumpFlagSets {
			if only == nil || only.MatchString("cuobjdump "+fl) {
				jobs = append(jobs, job{"cuobjdump", cuobjdump, fl, files})
			}
		}
	}
	fmt.Printf("%-10s %-28s agree/files (per gpuisa binary: %s)\n", "tool", "flags", strings.Join(bins, ", "))
	total := 0
	agree := make([]int, len(bins))
	type tally struct {
		ok []int
		n  int
	}
	perFlag := map[string]*tally{}
	var flagOrder []string
	for _, j := range jobs {
		ok := make([]int, len(bins))
		bad := make([][]string, len(bins))
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, 6)
		for _, f := range j.files {
			wg.Add(1)
			sem <- struct{}{}
			go func(f string) {
				defer wg.Done()
				defer func() { <-sem }()
				args := strings.Fields(strings.ReplaceAll(j.flags, "@OPTF", optf))
				args = append(args, f)
				want, wcode := runTool(j.nv, args)
				for b, bin := range bins {
					got, gcode := runTool(bin, append([]string{j.tool}, args...))
					mu.Lock()
					if bytes.Equal(want, got) && wcode == gcode {
						ok[b]++
					} else {
						bad[b] = append(bad[b], filepath.Base(f))
					}
					mu.Unlock()
				}
			}(f)
		}
		wg.Wait()
		total += len(j.files)
		cells := make([]string, len(bins))
		for b := range bins {
			agree[b] += ok[b]
			cells[b] = fmt.Sprintf("%d/%d", ok[b], len(j.files))
		}
		for _, fl := range strings.Fields(j.flags) {
			if !strings.HasPrefix(fl, "-") {
				continue
			}
			key := j.tool + " " + fl
			if perFlag[key] == nil {
				perFlag[key] = &tally{ok: make([]int, len(bins))}
				flagOrder = append(flagOrder, key)
			}
			for b := range bins {
				perFlag[key].ok[b] += ok[b]
			}
			perFlag[key].n += len(j.files)
		}
		fmt.Printf("%-10s %-28q %s\n", j.tool, j.flags, strings.Join(cells, "  "))
		last := bad[len(bins)-1]
		for k := 0; k < len(last) && k < verbose; k++ {
			fmt.Printf("           differs: %s\n", last[k])
		}
	}
	cells := make([]string, len(bins))
	for b := range bins {
		cells[b] = fmt.Sprintf("%d/%d", agree[b], total)
	}
	fmt.Printf("all flag sets: %s runs agree\nper flag (every set holding it):\n", strings.Join(cells, "  "))
	for _, k := range flagOrder {
		for b := range bins {
			cells[b] = fmt.Sprintf("%d/%d", perFlag[k].ok[b], perFlag[k].n)
		}
		fmt.Printf("  %-22s %s\n", k, strings.Join(cells, "  "))
	}
	return nil
}

// runTool runs a command in a scratch directory and returns its standard
// output, followed by the files it wrote there (cuobjdump -xelf) with their
// names and contents, and its exit status.
func runTool(name string, args []string) ([]byte, int) {
	dir, err := os.MkdirTemp("", "mxdiff-run")
	if err != nil {
		return []byte(err.Error()), -1
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&out, "\n==> written: %s (%d bytes) <==\n", e.Name(), len(data))
		out.Write(data)
	}
	return out.Bytes(), code
}
