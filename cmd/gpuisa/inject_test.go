package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary run as gpuisa itself, so that tests can
// start separate gpuisa processes (GPUISA_AS_MAIN=1).
func TestMain(m *testing.M) {
	if os.Getenv("GPUISA_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// gpuisaProcess starts gpuisa in a process of its own.
func gpuisaProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GPUISA_AS_MAIN=1")
	return cmd
}

// writeCampaign writes a campaign on the vecadd example into dir.
func writeCampaign(t *testing.T, dir string, n int) string {
	t.Helper()
	launch, err := filepath.Abs("../../examples/tesla/vecadd.json")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`{"launch": %q, "seed": 42, "injections": %d, "experiments": [
		{"model": "flip1", "group": "gp"}, {"model": "random", "group": "ld", "warp": true},
		{"model": "flip2", "group": "st-addr"}, {"model": "rf"}, {"model": "mem-global"},
		{"model": "stuck-unit", "unit": "int", "injections": 10}, {"model": "cf-target"}]}`, launch, n)
	path := filepath.Join(dir, "vecadd.campaign.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A campaign split into 1, 3 and 8 shards, each shard a separate process
// (as a Slurm array or a Kubernetes Indexed Job runs them), merges into
// the single-process results byte for byte.
func TestInjectShardsMerge(t *testing.T) {
	dir := t.TempDir()
	path := writeCampaign(t, dir, 40)
	one := filepath.Join(dir, "one")
	if out, err := gpuisaProcess(t, "inject", "-o", one, "-progress", "0", path).CombinedOutput(); err != nil {
		t.Fatalf("one process: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(one, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(want, []byte("\n")); n != 6*40+10 {
		t.Fatalf("%d results, want %d", n, 6*40+10)
	}
	for _, shards := range []int{1, 3, 8} {
		out := filepath.Join(dir, fmt.Sprint("shards", shards))
		var procs []*exec.Cmd
		var logs []*bytes.Buffer
		for i := range shards {
			cmd := gpuisaProcess(t, "inject", "-o", out, "-shard", fmt.Sprintf("%d/%d", i, shards), "-workers", "1", "-progress", "0", path)
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			procs, logs = append(procs, cmd), append(logs, &log)
		}
		var files []string
		for i, cmd := range procs {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("shard %d/%d: %v\n%s", i, shards, err, logs[i])
			}
			name := "results.jsonl"
			if shards > 1 {
				name = fmt.Sprintf("results-%d-of-%d.jsonl", i, shards)
			}
			files = append(files, filepath.Join(out, name))
		}
		merged := filepath.Join(out, "merged.jsonl")
		args := append([]string{"inject", "merge", "-o", merged}, files...)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("merge: %s", stderr)
		}
		got, _ := os.ReadFile(merged)
		if !bytes.Equal(got, want) {
			t.Errorf("%d shards merged differ from one process", shards)
		}
	}
	// a missing shard is named
	code, _, stderr := runCLI(t, "", "inject", "merge", filepath.Join(dir, "shards3", "results-0-of-3.jsonl"),
		filepath.Join(dir, "shards3", "results-2-of-3.jsonl"))
	if code == 0 || !strings.Contains(stderr, "missing ids include [1 ") {
		t.Errorf("merge without shard 1: %d %s", code, stderr)
	}
}

// replay reruns an injection of a finished campaign identically, with a
// trace; summary and plan print their tables.
func TestInjectReplaySummaryPlan(t *testing.T) {
	dir := t.TempDir()
	path := writeCampaign(t, dir, 5)
	if code, out, stderr := runCLI(t, "", "inject", "-progress", "0", path); code != 0 || !strings.Contains(out, "| flip1-gp | 5 |") {
		t.Fatalf("inject: %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr := runCLI(t, "", "inject", "replay", path, "3")
	if code != 0 || !strings.Contains(out, "identical to") || !strings.Contains(out, "  fault ") {
		t.Fatalf("replay: %d\n%s\n%s", code, out, stderr)
	}
	res := filepath.Join(strings.TrimSuffix(path, ".json")+".out", "results.jsonl")
	if code, out, _ := runCLI(t, "", "inject", "summary", res); code != 0 || !strings.Contains(out, "| experiment |") {
		t.Fatalf("summary: %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "", "inject", "plan", "-margin", "0.05"); code != 0 || !strings.Contains(out, "385 (normal approximation)") {
		t.Fatalf("plan: %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "", "inject", "plan", "-margin", "0.02", path); code != 0 || !strings.Contains(out, "flip1-gp (population") {
		t.Fatalf("plan of a campaign: %d\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, "", "inject", "-shard", "3/3", path); code != 2 || !strings.Contains(stderr, "0 <= i < N") {
		t.Fatalf("bad shard: %d %s", code, stderr)
	}
}

// gpuisaOnPath puts a "gpuisa" that runs this test binary as gpuisa first
// on PATH, so that the job files run as written.
func gpuisaOnPath(t *testing.T) []string {
	t.Helper()
	bin := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nGPUISA_AS_MAIN=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(bin, "gpuisa"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The job files of docs/inject-jobs run a campaign in shards whose merge is
// the single-process results: the Slurm array script (its tasks run one
// after another here, with Slurm's variables), the Kubernetes Indexed
// Job's command (with the completion index), GNU parallel's script (when
// parallel is installed).
func TestInjectJobFiles(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	env := gpuisaOnPath(t)
	dir := t.TempDir()
	path := writeCampaign(t, dir, 12)
	if code, _, stderr := runCLI(t, "", "inject", "-o", filepath.Join(dir, "one"), "-progress", "0", path); code != 0 {
		t.Fatal(stderr)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "one", "results.jsonl"))
	merged := func(out string, n int) {
		t.Helper()
		var files []string
		for i := range n {
			files = append(files, filepath.Join(out, fmt.Sprintf("results-%d-of-%d.jsonl", i, n)))
		}
		args := append([]string{"inject", "merge", "-o", filepath.Join(out, "results.jsonl")}, files...)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("merge: %s", stderr)
		}
		got, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the merged shards differ from one process", out)
		}
	}
	slurm := filepath.Join(dir, "slurm")
	for i := range 3 {
		cmd := exec.Command("sh", "../../docs/inject-jobs/slurm.sh", path, slurm)
		cmd.Env = append(env, fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_ARRAY_TASK_COUNT=3", "SLURM_CPUS_PER_TASK=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("slurm task %d: %v\n%s", i, err, out)
		}
	}
	merged(slurm, 3)

	yaml, err := os.ReadFile("../../docs/inject-jobs/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(yaml), "args:\n            - >-\n")
	line, _, _ := strings.Cut(after, "\n          resources:")
	command := strings.Join(strings.Fields(line), " ")
	if !strings.Contains(command, `-shard "$JOB_COMPLETION_INDEX/32"`) {
		t.Fatalf("the Job's command: %q", command)
	}
	k8s := filepath.Join(dir, "k8s")
	command = strings.NewReplacer("/data/out", k8s, "/data/campaign.json", path, "/32", "/4").Replace(command)
	for i := range 4 {
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = append(env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pod %d: %v\n%s", i, err, out)
		}
	}
	merged(k8s, 4)

	if _, err := exec.LookPath("parallel"); err != nil {
		t.Log("GNU parallel is not installed: parallel.sh not run")
		return
	}
	par := filepath.Join(dir, "parallel")
	cmd := exec.Command("sh", "../../docs/inject-jobs/parallel.sh", path, par, "5")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("parallel.sh: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(par, "results.jsonl"))
	if !bytes.Equal(got, want) {
		t.Error("parallel.sh's merged results differ from one process")
	}
}

// A shader campaign (sgx543) runs from the command line; replay prints the
// faulty instance's trace and finds the same result line.
func TestInjectShader(t *testing.T) {
	dir := t.TempDir()
	launch, _ := filepath.Abs("../../examples/usse/sum_v.json")
	path := filepath.Join(dir, "sum_v.campaign.json")
	text := fmt.Sprintf(`{"launch": %q, "seed": 9, "injections": 20, "experiments": [{"model": "flip1", "kernel": "primary"},
		{"model": "rf", "pc": ["0x8"]}, {"model": "stuck-reg"}, {"model": "mem-shared"}]}`, launch)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "inject", "-progress", "0", path); code != 1 || !strings.Contains(stderr, "mem-shared is not for shaders") {
		t.Fatalf("a model shaders do not take: %d %s", code, stderr)
	}
	text = strings.Replace(text, `, {"model": "mem-shared"}`, "", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "inject", "-progress", "0", path)
	if code != 0 || !strings.Contains(out, "| flip1 | 20 |") || !strings.Contains(out, "| rf | 20 |") {
		t.Fatalf("inject: %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "| DUE: out-of-bounds global read |") {
		t.Errorf("no out-of-bounds read among the DUE causes:\n%s", out)
	}
	code, out, stderr = runCLI(t, "", "inject", "replay", path, "1")
	if code != 0 || !strings.Contains(out, "identical to") || !strings.Contains(out, "the faulty run of instance") ||
		!strings.Contains(out, "primary /*00") {
		t.Fatalf("replay: %d\n%s\n%s", code, out, stderr)
	}
	res, err := os.ReadFile(filepath.Join(dir, "sum_v.campaign.out", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(res)), "\n") {
		if strings.Contains(line, `"exp":"rf"`) && !strings.Contains(line, `"pc":"0x0008"`) {
			t.Errorf("an rf injection outside its pc: %s", line)
		}
	}
}
