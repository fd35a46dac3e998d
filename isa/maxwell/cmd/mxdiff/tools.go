package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpuisa/gpuisa/binfmt/cubin"
)

// The -tools mode: every flag set of the nvdisasm and cuobjdump drop-ins
// against the live tools, on every given file; agreement (standard output,
// files written and exit status identical) is reported per flag set and per
// flag.
//
// Placeholders in a flag set: "@OPTF" is an options file holding "-hex -c";
// "@RAW" runs the set on the raw code of each cubin (its functions' code
// back to back) instead of the cubin, with "@SM" standing for its
// architecture (SM52); "@NOFILE" runs the set once, without a file.

// nvdisasmFlagSets are the flag sets compared for nvdisasm on every file:
// every flag of nvdisasm 11.8 alone, raw input, and the refused
// combinations.
var nvdisasmFlagSets = []string{
	"", "-hex", "-novliw", "-c", "-sf", "-raw", "-ndf", "-fun 1", "-g", "-gi",
	"-cfg", "-bbcfg",
	"@NOFILE", "-V @NOFILE", "-h @NOFILE", "-b SM52 @NOFILE", "-lrm @NOFILE", "-lrm bad @NOFILE",
	"-b SM99 @NOFILE", "-bogus @NOFILE", "-cfg -bbcfg @NOFILE",
}

// nvdisasmComboSets are the other flags (-gp, -optf, raw input, -plr and
// -lrm), the combinations scripts use and the ones nvdisasm refuses, run on
// the files -combos selects (default: all; on the shared machine the whole
// matrix over every file takes hours of nvdisasm: -cache, -nvtime).
var nvdisasmComboSets = []string{
	"-cfg -poff", "-bbcfg -poff", "-gp", "-optf @OPTF", "-b @SM @RAW", "-b @SM -hex -novliw @RAW", "-b @SM -bbcfg @RAW",
	"-hex -novliw", "-raw -hex", "-c -sf -hex", "-fun 1,3 -c", "-fun 2 -cfg", "-g -hex -c",
	"-gi -novliw", "-g -raw", "-g -sf -ndf", "-cfg -novliw", "-cfg -hex", "-bbcfg -raw",
	"-cfg -g", "-cfg -ndf", "-bbcfg -ndf", "-cfg -bbcfg", "-cfg -plr", "-poff", "-plr -ndf",
	"-lrm count -ndf", "-b SM52 -base 0x100 -c", "-base 0x100", "-V", "-h",
	"-b @SM -raw @RAW", "-b @SM -base 0x1000 -hex @RAW", "-b @SM -cfg @RAW",
	"-b @SM -bbcfg -poff @RAW", "-b @SM -ndf @RAW", "-b @SM -fun 1 @RAW",
	// life ranges last: the slowest for nvdisasm
	"-plr", "-plr -hex", "-plr -novliw", "-plr -c -sf", "-lrm count", "-lrm wide", "-lrm narrow",
	"-lrm count -hex", "-b @SM -plr @RAW",
}

// cuobjdumpFlagSets are the flag combinations compared for cuobjdump on
// every file; with -xelf, -xptx and -xtext the files it writes are
// compared too.
var cuobjdumpFlagSets = []string{
	"-sass", "-symbols", "-res-usage", "-lelf", "-lptx", "-ptx", "-elf",
	"-V @NOFILE", "@NOFILE", "-bogus @NOFILE",
}

// cuobjdumpComboSets are the other cuobjdump flags and combinations, run
// on the files -combos selects.
var cuobjdumpComboSets = []string{
	"-all -sass",
	"-sort -sass", "-sass -arch sm_52", "-sass -arch sm_50", "-sass -fun vecadd",
	"-sass -fun calls", "-symbols -res-usage -sass", "-elf -sass", "-all -elf", "-all -ptx",
	"-elf -arch sm_50", "-fun saxpy -elf", "-fun jump,loops -elf", "-xelf all", "-xelf sm_52",
	"-xptx all", "-lelf -lptx", "-res-usage -arch sm_53", "-findex 1 -sass", "-optf @OPTF",
	"-V", "-h", "-arch sm_99 -sass", "-xtext all", "-ltext", "-xtext texref,sm_53", "-xtext all -arch sm_50",
}

// toolsConfig is what the -tools mode needs besides the files.
type toolsConfig struct {
	nvdisasm, cuobjdump string
	gpuisa              string         // binaries separated by commas; "" builds one
	only                *regexp.Regexp // flag sets to run (nil: all)
	combos              *regexp.Regexp // files the nvdisasm combination sets run on (nil: all)
	verbose             int            // differing files named per set
	cache               string         // directory keeping NVIDIA's outputs ("": none)
	diffs               string         // directory for both outputs of each difference ("": none)
	nvTime              time.Duration  // after this long, NVIDIA's tools are no longer run (0: no limit)
	cachedOnly          bool           // compare only runs whose NVIDIA output is cached
}

// toolsDiff runs the comparison; files are cubins (nvdisasm and cuobjdump)
// or fatbins and host objects (cuobjdump only). Each gpuisa binary is
// compared with the same NVIDIA run.
func toolsDiff(cfg toolsConfig, files []string) error {
	dir, err := os.MkdirTemp("", "mxdiff-tools")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if cfg.gpuisa == "" {
		cfg.gpuisa = filepath.Join(dir, "gpuisa")
		if out, err := exec.Command("go", "build", "-o", cfg.gpuisa, "github.com/gpuisa/gpuisa/cmd/gpuisa").CombinedOutput(); err != nil {
			return fmt.Errorf("building gpuisa: %v\n%s", err, out)
		}
	}
	bins := strings.Split(cfg.gpuisa, ",")
	optf := filepath.Join(dir, "options")
	if err := os.WriteFile(optf, []byte("-hex -c\n"), 0o644); err != nil {
		return err
	}
	var cubins []string
	raw := map[string]rawCode{}
	for k, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			files[k], f = abs, abs // the tools run in scratch directories
		}
		if strings.HasSuffix(f, ".cubin") {
			cubins = append(cubins, f)
			if rc, err := writeRawCode(f, dir, len(raw)); err == nil {
				raw[f] = rc
			}
		}
	}
	var jobs []toolJob
	add := func(tool, nv, fl string, fs []string) {
		if cfg.only != nil && !cfg.only.MatchString(tool+" "+fl) {
			return
		}
		if strings.Contains(fl, "@NOFILE") {
			fs = []string{""}
		}
		jobs = append(jobs, toolJob{tool, nv, fl, fs})
	}
	for _, fl := range nvdisasmFlagSets {
		add("nvdisasm", cfg.nvdisasm, fl, cubins)
	}
	var some []string
	for _, f := range cubins {
		if cfg.combos == nil || cfg.combos.MatchString(f) {
			some = append(some, f)
		}
	}
	var someFiles []string
	for _, f := range files {
		if cfg.combos == nil || cfg.combos.MatchString(f) {
			someFiles = append(someFiles, f)
		}
	}
	if cfg.cuobjdump != "" {
		for _, fl := range cuobjdumpFlagSets {
			add("cuobjdump", cfg.cuobjdump, fl, files)
		}
		for _, fl := range cuobjdumpComboSets {
			add("cuobjdump", cfg.cuobjdump, fl, someFiles)
		}
	}
	for _, fl := range nvdisasmComboSets {
		add("nvdisasm", cfg.nvdisasm, fl, some)
	}
	results := make([]setTally, len(jobs))
	for k := range results {
		results[k].ok = make([]int, len(bins))
	}
	began := time.Now()
	var mu sync.Mutex
	// stopped early (SIGINT, SIGTERM), the figures of the runs done so far
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		mu.Lock()
		fmt.Println("stopped: the runs compared so far")
		printTally(jobs, results, bins, cfg.verbose)
		os.Exit(1)
	}()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, t := range orderTasks(jobs) {
		j := jobs[t.job]
		f := j.files[t.file]
		args := strings.Fields(strings.ReplaceAll(j.flags, "@OPTF", optf))
		switch {
		case strings.Contains(j.flags, "@NOFILE"):
			args = slicesDelete(args, "@NOFILE")
		case strings.Contains(j.flags, "@RAW"):
			rc, found := raw[f]
			if !found {
				continue // no code to list
			}
			args = slicesDelete(args, "@RAW")
			for k := range args {
				if args[k] == "@SM" {
					args[k] = rc.sm
				}
			}
			args = append(args, rc.path)
		default:
			args = append(args, f)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(r *setTally, j toolJob, f string, args []string) {
			defer wg.Done()
			defer func() { <-sem }()
			live := !cfg.cachedOnly && (cfg.nvTime <= 0 || time.Since(began) < cfg.nvTime)
			want, wcode, found := cachedRun(cfg.cache, j.nv, j.tool, j.flags, f, args, live)
			if !found {
				mu.Lock()
				r.unrun++
				mu.Unlock()
				return
			}
			same := make([]bool, len(bins))
			for b, bin := range bins {
				got, gcode := runTool(bin, append([]string{j.tool}, args...))
				same[b] = bytes.Equal(want, got) && wcode == gcode
				if !same[b] && b == len(bins)-1 && cfg.diffs != "" {
					saveDiff(cfg.diffs, j.tool, j.flags, f, want, wcode, got, gcode)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			r.n++
			for b, ok := range same {
				if ok {
					r.ok[b]++
				} else if b == len(bins)-1 {
					r.bad = append(r.bad, filepath.Base(f))
				}
			}
		}(&results[t.job], j, f, args)
	}
	wg.Wait()
	printTally(jobs, results, bins, cfg.verbose)
	return nil
}

// toolJob is one flag set of one tool and the files it runs on.
type toolJob struct {
	tool, nv, flags string
	files           []string
}

// setTally is a flag set's figures: agreeing runs per gpuisa binary, runs
// compared, runs skipped for want of NVIDIA's output (-nvtime, -cached), and
// the files that differ for the last binary.
type setTally struct {
	ok       []int
	n, unrun int
	bad      []string
}

// toolTask is one run: a flag set (index into the jobs) on one of its files.
type toolTask struct{ job, file int }

// orderTasks lists the runs file by file, every flag set on a file before
// the next file, the files taken in turn from each directory (the oracle's,
// the committed corpora, the fresh builds): a run cut short by -nvtime has
// compared the whole matrix on a sample of every kind of file.
func orderTasks(jobs []toolJob) []toolTask {
	byDir := map[string][]string{}
	var dirs []string
	seen := map[string]bool{}
	for _, j := range jobs {
		for _, f := range j.files {
			if seen[f] {
				continue
			}
			seen[f] = true
			d := filepath.Dir(f)
			if byDir[d] == nil {
				dirs = append(dirs, d)
			}
			byDir[d] = append(byDir[d], f)
		}
	}
	rank := map[string]int{}
	for i := 0; len(rank) < len(seen); i++ {
		for _, d := range dirs {
			if i < len(byDir[d]) {
				rank[byDir[d][i]] = len(rank)
			}
		}
	}
	var tasks []toolTask
	for k, j := range jobs {
		for i := range j.files {
			tasks = append(tasks, toolTask{k, i})
		}
	}
	sort.SliceStable(tasks, func(a, b int) bool {
		return rank[jobs[tasks[a].job].files[tasks[a].file]] < rank[jobs[tasks[b].job].files[tasks[b].file]]
	})
	return tasks
}

// printTally prints agreement per flag set, overall and per flag.
func printTally(jobs []toolJob, results []setTally, bins []string, verbose int) {
	fmt.Printf("%-10s %-34s agree/runs (per gpuisa binary: %s)\n", "tool", "flags", strings.Join(bins, ", "))
	total, unrun := 0, 0
	agree := make([]int, len(bins))
	perFlag := map[string]*setTally{}
	var flagOrder []string
	cells := make([]string, len(bins))
	for k, j := range jobs {
		r := results[k]
		total += r.n
		unrun += r.unrun
		for b := range bins {
			agree[b] += r.ok[b]
			cells[b] = fmt.Sprintf("%d/%d", r.ok[b], r.n)
		}
		for _, key := range flagKeys(j.tool, j.flags) {
			if perFlag[key] == nil {
				perFlag[key] = &setTally{ok: make([]int, len(bins))}
				flagOrder = append(flagOrder, key)
			}
			for b := range bins {
				perFlag[key].ok[b] += r.ok[b]
			}
			perFlag[key].n += r.n
			perFlag[key].unrun += r.unrun
		}
		line := fmt.Sprintf("%-10s %-34q %s", j.tool, j.flags, strings.Join(cells, "  "))
		if r.unrun > 0 {
			line += fmt.Sprintf("  (%d not run)", r.unrun)
		}
		fmt.Println(line)
		sort.Strings(r.bad)
		for i := 0; i < len(r.bad) && i < verbose; i++ {
			fmt.Printf("           differs: %s\n", r.bad[i])
		}
	}
	for b := range bins {
		cells[b] = fmt.Sprintf("%d/%d", agree[b], total)
	}
	fmt.Printf("all flag sets: %s runs agree", strings.Join(cells, "  "))
	if unrun > 0 {
		fmt.Printf(" (%d runs not run: no NVIDIA output cached)", unrun)
	}
	fmt.Printf("\nper flag (every set holding it):\n")
	for _, k := range flagOrder {
		for b := range bins {
			cells[b] = fmt.Sprintf("%d/%d", perFlag[k].ok[b], perFlag[k].n)
		}
		fmt.Printf("  %-24s %s\n", k, strings.Join(cells, "  "))
	}
}

// flagKeys names the flags of a set for the per-flag tally: "-lrm count"
// with its value (the three modes print differently), the placeholders as
// the kind of input ("raw input", "no file").
func flagKeys(tool, flags string) []string {
	var keys []string
	fields := strings.Fields(flags)
	for k, fl := range fields {
		switch {
		case fl == "@RAW":
			keys = append(keys, tool+" (raw input)")
		case fl == "@NOFILE":
			keys = append(keys, tool+" (no file)")
		case fl == "-lrm" && k+1 < len(fields) && !strings.HasPrefix(fields[k+1], "-") && !strings.HasPrefix(fields[k+1], "@"):
			keys = append(keys, tool+" -lrm "+fields[k+1])
		case strings.HasPrefix(fl, "-"):
			keys = append(keys, tool+" "+fl)
		}
	}
	return keys
}

func slicesDelete(args []string, s string) []string {
	out := args[:0]
	for _, a := range args {
		if a != s {
			out = append(out, a)
		}
	}
	return out
}

// rawCode is a cubin's code as a raw file, for the "-b SMxx" sets.
type rawCode struct{ path, sm string }

func writeRawCode(file, dir string, n int) (rawCode, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return rawCode{}, err
	}
	f, err := cubin.Parse(data)
	if err != nil {
		return rawCode{}, err
	}
	var code []byte
	for _, fn := range f.Functions {
		code = append(code, fn.Code[:len(fn.Code)/32*32]...)
	}
	if len(code) == 0 {
		return rawCode{}, fmt.Errorf("%s: no code", file)
	}
	path := filepath.Join(dir, fmt.Sprintf("raw%d.bin", n))
	return rawCode{path, fmt.Sprintf("SM%d", f.SM())}, os.WriteFile(path, code, 0o644)
}

// cachedRun runs an NVIDIA tool (when live), or reads its output from the
// cache, and says whether it has the output. The key is the tool's path,
// the flag set, the file's name and contents (the raw file's too), so a
// changed input or tool gives a new key.
func cachedRun(cache, nv, tool, flags, file string, args []string, live bool) ([]byte, int, bool) {
	if cache == "" {
		out, code := runTool(nv, args)
		return out, code, true
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", nv, flags, file)
	if st, err := os.Stat(nv); err == nil {
		fmt.Fprintf(h, "%d %d\x00", st.Size(), st.ModTime().UnixNano())
	}
	for _, a := range args {
		if data, err := os.ReadFile(a); err == nil && !strings.HasSuffix(a, "options") {
			h.Write(data)
		}
	}
	key := filepath.Join(cache, tool+"-"+hex.EncodeToString(h.Sum(nil))[:32])
	if data, err := os.ReadFile(key); err == nil && len(data) >= 4 {
		code := int(int32(uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24))
		return data[4:], code, true
	}
	if !live {
		return nil, 0, false
	}
	out, code := runTool(nv, args)
	c := uint32(int32(code))
	rec := append([]byte{byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)}, out...)
	if err := os.MkdirAll(cache, 0o755); err == nil {
		tmp := key + ".tmp"
		if os.WriteFile(tmp, rec, 0o644) == nil {
			os.Rename(tmp, key)
		}
	}
	return out, code, true
}

// saveDiff writes both outputs of a differing run, for reading with diff.
func saveDiff(dir, tool, flags, file string, want []byte, wcode int, got []byte, gcode int) {
	name := strings.NewReplacer(" ", "_", "/", "_", "@", "").Replace(tool + flags + "." + filepath.Base(file))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	os.WriteFile(filepath.Join(dir, name+".nv"), append(want, fmt.Sprintf("\n[exit %d]\n", wcode)...), 0o644)
	os.WriteFile(filepath.Join(dir, name+".us"), append(got, fmt.Sprintf("\n[exit %d]\n", gcode)...), 0o644)
}

// runTool runs a command in a scratch directory and returns its standard
// output, followed by the files it wrote there (cuobjdump -xelf) with their
// names and contents, and its exit status. Standard error is compared too,
// after the output: the tools' messages are part of their behaviour.
func runTool(name string, args []string) ([]byte, int) {
	dir, err := os.MkdirTemp("", "mxdiff-run")
	if err != nil {
		return []byte(err.Error()), -1
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errOut
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
	if errOut.Len() > 0 {
		out.WriteString("\n==> standard error <==\n")
		out.Write(errOut.Bytes())
	}
	return out.Bytes(), code
}
