package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpuisa/gpuisa/emu/inject"
)

func injectCommand() *command {
	return &command{
		name:    "inject",
		args:    "CAMPAIGN.json | plan [CAMPAIGN.json] | replay CAMPAIGN.json ID | merge FILE... | summary FILE...",
		summary: "run a fault-injection campaign on a launch file; plan, replay, merge and summarise campaigns",
		doc: `inject CAMPAIGN.json runs a campaign (docs/inject.md): a golden run of its launch file (sm_1x,
sm_2x, sm_5x, launch sequences included, or an SGX543 shader launch), then its injections,
drawn from its seed. In -o DIR it writes golden.json (counts per kernel, static
instruction, opcode and group), results.jsonl (one line per injection, sorted by id) and
summary.md (outcomes with 95% Wilson intervals, per-opcode and per-instruction rates), and
prints the summary. It runs on every core, prints progress to standard error, and resumes:
injections already in the results file are not run again. -shard i/N runs the injections
whose id is i modulo N into results-i-of-N.jsonl, for Slurm arrays, Kubernetes Indexed Jobs
or GNU parallel; merge combines the shards' files into what one process writes, byte for byte.

inject plan says how many injections give a margin of error (-margin, -confidence, -p); with
a campaign file it also gives each experiment's population (finite-population correction).
inject replay CAMPAIGN.json ID reruns one injection, prints the instructions of its warp
around the fault (-window; a shader: the faulty instance's trace) and its result line, and checks it against -results (default:
the campaign's results file, when it has the id). inject summary prints the tables of
results files.`,
		define: defineInject,
	}
}

// injectOptions are inject's flags.
type injectOptions struct {
	out        string
	shard      string
	workers    int
	progress   time.Duration
	full       bool
	margin     float64
	confidence float64
	p          float64
	window     int
	results    string
}

func defineInject(fs *flag.FlagSet) func(*cmdIO, []string) int {
	var o injectOptions
	fs.StringVar(&o.out, "o", "", "write results to `DIR` (default: the campaign file's name with .out); merge: write the merged results to this file (default: standard output)")
	fs.StringVar(&o.shard, "shard", "", "run shard `i/N`: the injections whose id is i modulo N")
	fs.IntVar(&o.workers, "workers", 0, "run `N` injections in parallel (default: all cores)")
	fs.DurationVar(&o.progress, "progress", time.Second, "print progress every `D` to standard error (0: never)")
	fs.BoolVar(&o.full, "full", false, "run every injection from the start, without checkpoints or early stops (to measure what they save; shader campaigns always do)")
	fs.Float64Var(&o.margin, "margin", 0.01, "plan: the margin of error, a fraction")
	fs.Float64Var(&o.confidence, "confidence", 0.95, "plan: the confidence level")
	fs.Float64Var(&o.p, "p", 0.5, "plan: the expected rate (0.5: the worst case)")
	fs.IntVar(&o.window, "window", 20, "replay: trace `N` instructions of the faulty warp before and after the fault")
	fs.StringVar(&o.results, "results", "", "replay: check against the results `FILE`")
	return func(cio *cmdIO, args []string) int {
		c := findCommand("inject")
		if len(args) == 0 {
			return c.usageError(cio.stderr, "want a campaign file or a subcommand")
		}
		switch args[0] {
		case "plan":
			return injectPlan(cio, args[1:], o)
		case "replay":
			if len(args) != 3 {
				return c.usageError(cio.stderr, "replay wants a campaign file and an injection id")
			}
			return injectReplay(cio, args[1], args[2], o)
		case "merge":
			if len(args) < 2 {
				return c.usageError(cio.stderr, "merge wants the shards' results files")
			}
			return injectMerge(cio, args[1:], o)
		case "summary":
			if len(args) < 2 {
				return c.usageError(cio.stderr, "summary wants results files")
			}
			return injectSummary(cio, args[1:])
		}
		if len(args) != 1 {
			return c.usageError(cio.stderr, "want one campaign file, got %d", len(args))
		}
		return injectRun(cio, args[0], o)
	}
}

func injectFail(cio *cmdIO, err error) int {
	fmt.Fprintf(cio.stderr, "gpuisa inject: %s\n", message(err))
	return 1
}

// parseShard reads i/N.
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("-shard %q: want i/N with 0 <= i < N", s)
	}
	return i, n, nil
}

// outDir is where a campaign's files go.
func outDir(campaign, flagDir string) string {
	if flagDir != "" {
		return flagDir
	}
	return strings.TrimSuffix(campaign, filepath.Ext(campaign)) + ".out"
}

func resultsName(shard, shards int) string {
	if shards == 1 {
		return "results.jsonl"
	}
	return fmt.Sprintf("results-%d-of-%d.jsonl", shard, shards)
}

func injectRun(cio *cmdIO, path string, o injectOptions) int {
	shard, shards, err := parseShard(o.shard)
	if err != nil {
		return findCommand("inject").usageError(cio.stderr, "%v", err)
	}
	ld, err := inject.Load(path)
	if err != nil {
		return injectFail(cio, err)
	}
	dir := outDir(path, o.out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return injectFail(cio, err)
	}
	start := time.Now()
	g, err := inject.Profile(ld)
	if err != nil {
		return injectFail(cio, err)
	}
	golden := time.Since(start)
	if err := os.WriteFile(filepath.Join(dir, "golden.json"), ld.Report(g).JSON(), 0o644); err != nil {
		return injectFail(cio, err)
	}
	opt := inject.Options{Shard: shard, Shards: shards, Workers: o.workers, Full: o.full,
		Results: filepath.Join(dir, resultsName(shard, shards))}
	if o.progress > 0 {
		opt.Progress, opt.ProgressEvery = cio.stderr, o.progress
	}
	start = time.Now()
	recs, err := inject.Run(ld, g, opt)
	if err != nil {
		return injectFail(cio, err)
	}
	took := time.Since(start)
	var sum bytes.Buffer
	unit := "warp-instructions"
	if len(g.Launches) > 0 && g.Launches[0].Arch == "sgx543" {
		unit = "instance-instructions" // a shader's ops, one instance at a time
	}
	fmt.Fprintf(&sum, "Campaign %s (%s), seed %d: golden run %d %s (%s), hang budget %g x; shard %d/%d, %d injections.\n\n",
		filepath.Base(path), ld.Hash, ld.Seed, g.Total, unit, golden.Round(time.Millisecond), ld.HangFactor, shard, shards, len(recs))
	inject.WriteSummary(&sum, recs)
	sumName := "summary.md"
	if shards > 1 {
		sumName = fmt.Sprintf("summary-%d-of-%d.md", shard, shards)
	}
	if err := os.WriteFile(filepath.Join(dir, sumName), sum.Bytes(), 0o644); err != nil {
		return injectFail(cio, err)
	}
	cio.stdout.Write(sum.Bytes())
	fmt.Fprintf(cio.stderr, "gpuisa inject: %d injections in %v; results in %s\n", len(recs), took.Round(time.Millisecond), opt.Results)
	return 0
}

func injectPlan(cio *cmdIO, args []string, o injectOptions) int {
	if len(args) > 1 {
		return findCommand("inject").usageError(cio.stderr, "plan takes at most one campaign file")
	}
	pops := map[string]int64{"": 0}
	var names []string
	if len(args) == 1 {
		ld, err := inject.Load(args[0])
		if err != nil {
			return injectFail(cio, err)
		}
		g, err := inject.Profile(ld)
		if err != nil {
			return injectFail(cio, err)
		}
		rep := ld.Report(g)
		pops = rep.Populations
		for _, e := range ld.Experiments {
			if _, ok := pops[e.Name]; ok {
				names = append(names, e.Name)
			}
		}
	} else {
		names = []string{""}
	}
	fmt.Fprintf(cio.stdout, "margin %g at %g confidence, expected rate %g:\n", o.margin, o.confidence, o.p)
	for _, n := range names {
		pl, err := inject.PlanFor(o.margin, o.confidence, o.p, pops[n])
		if err != nil {
			return injectFail(cio, err)
		}
		what := "an infinite population"
		if n != "" {
			what = fmt.Sprintf("%s (population %d)", n, pops[n])
		}
		fmt.Fprintf(cio.stdout, "  %s: %d injections (Wilson interval), %d (normal approximation)\n", what, pl.Wilson, pl.Normal)
	}
	return 0
}

func injectReplay(cio *cmdIO, path, idText string, o injectOptions) int {
	id, err := strconv.Atoi(idText)
	if err != nil {
		return findCommand("inject").usageError(cio.stderr, "injection id %q is not a number", idText)
	}
	ld, err := inject.Load(path)
	if err != nil {
		return injectFail(cio, err)
	}
	if id < 0 || id >= ld.Total() {
		return injectFail(cio, fmt.Errorf("the campaign has injections 0..%d", ld.Total()-1))
	}
	g, err := inject.Profile(ld)
	if err != nil {
		return injectFail(cio, err)
	}
	fmt.Fprintf(cio.stdout, "injection %d of %s: the faulty warp's instructions around the fault (address, text, lanes, registers written):\n", id, filepath.Base(path))
	recs, err := inject.Run(ld, g, inject.Options{Only: []int{id}, Workers: 1, Trace: cio.stdout, TraceWindow: o.window})
	if err != nil {
		return injectFail(cio, err)
	}
	rec := recs[0]
	line := inject.Line(&rec)
	cio.stdout.Write(line)
	results := o.results
	if results == "" {
		results = filepath.Join(outDir(path, o.out), "results.jsonl")
	}
	prev, err := inject.ReadFile(results)
	if err != nil {
		return injectFail(cio, err)
	}
	for i := range prev {
		if prev[i].ID != id {
			continue
		}
		if !bytes.Equal(inject.Line(&prev[i]), line) {
			fmt.Fprintf(cio.stderr, "gpuisa inject: replay differs from %s:\n%s", results, inject.Line(&prev[i]))
			return 1
		}
		fmt.Fprintf(cio.stdout, "identical to %s\n", results)
	}
	return 0
}

func injectMerge(cio *cmdIO, files []string, o injectOptions) int {
	var sets [][]inject.Record
	for _, f := range files {
		recs, err := inject.ReadFile(f)
		if err != nil {
			return injectFail(cio, err)
		}
		if recs == nil {
			return injectFail(cio, fmt.Errorf("%s: no results", f))
		}
		sets = append(sets, recs)
	}
	all, err := inject.Merge(sets...)
	if err != nil {
		return injectFail(cio, err)
	}
	if o.out == "" {
		if err := inject.WriteRecords(cio.stdout, all); err != nil {
			return injectFail(cio, err)
		}
		return 0
	}
	var b bytes.Buffer
	inject.WriteRecords(&b, all)
	if err := os.WriteFile(o.out, b.Bytes(), 0o644); err != nil {
		return injectFail(cio, err)
	}
	inject.WriteSummary(cio.stdout, all)
	return 0
}

func injectSummary(cio *cmdIO, files []string) int {
	var all []inject.Record
	for _, f := range files {
		recs, err := inject.ReadFile(f)
		if err != nil {
			return injectFail(cio, err)
		}
		all = append(all, recs...)
	}
	inject.WriteSummary(cio.stdout, all)
	return 0
}
