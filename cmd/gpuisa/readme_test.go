package main

import (
	"os"
	"strings"
	"testing"
)

// The README's command list is `gpuisa help`'s (indented by four instead
// of two), and its first lines are the set-up commands, which work.
func TestREADMEMatchesHelp(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, overview, _ := runCLI(t, "", "help")
	_, list, ok := strings.Cut(overview, "Commands:\n\n")
	if !ok {
		t.Fatal("gpuisa help has no command list")
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var want strings.Builder
	for _, l := range strings.Split(list, "\n") {
		want.WriteString("  " + l + "\n")
	}
	if !strings.Contains(readme, "\n\n"+want.String()+"\n") {
		t.Errorf("README.md's command list differs from gpuisa help; it should read:\n%s", want.String())
	}
	first := "# gpuisa\n\n    go run ./cmd/gpuisa dis examples/tesla/vecadd.cubin\n    go test ./...\n"
	if !strings.HasPrefix(readme, first) {
		t.Errorf("README.md does not start with the set-up commands:\n%s", first)
	}
	if code, out, stderr := runCLI(t, "", "dis", "../../examples/tesla/vecadd.cubin"); code != 0 || !strings.Contains(out, "Function : vecadd") {
		t.Errorf("the README's first command: exit %d %s", code, stderr)
	}
	for _, doc := range []string{"docs/README.md", "docs/launch.md", "examples/README.md"} {
		if !strings.Contains(readme, doc) {
			t.Errorf("README.md does not point to %s", doc)
		}
		if _, err := os.Stat("../../" + doc); err != nil {
			t.Error(err)
		}
	}
}
