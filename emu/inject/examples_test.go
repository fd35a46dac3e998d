package inject

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

// Every example campaign (examples/inject/*/) loads, runs a few
// injections of each experiment, and has its summary in
// docs/inject-examples.md (the FlexGripPlus ones need the shared oracle).
func TestExampleCampaigns(t *testing.T) {
	paths, err := filepath.Glob("../../examples/inject/*/*.campaign.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example campaigns: %v", err)
	}
	doc, err := os.ReadFile("../../docs/inject-examples.md")
	if err != nil {
		t.Fatal(err)
	}
	shared := oracle.SharedDir()
	if shared != "" {
		t.Setenv("GPUISA_SHARED", shared)
	}
	ran := 0
	for _, path := range paths {
		rel := strings.TrimPrefix(filepath.ToSlash(path), "../../examples/inject/")
		if !strings.Contains(string(doc), "`gpuisa inject examples/inject/"+rel+"`") {
			t.Errorf("%s: no summary in docs/inject-examples.md (sh examples/inject/run.sh writes it)", rel)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "$GPUISA_SHARED") && shared == "" {
			continue
		}
		c, err := ParseCampaign(data)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for i := range c.Experiments {
			c.Experiments[i].Injections = 2
		}
		ld, err := LoadCampaign(c, path)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		g, err := Profile(ld)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		recs := run(t, ld, g, Options{Workers: 1})
		if len(recs) != ld.Total() {
			t.Errorf("%s: %d records of %d injections", rel, len(recs), ld.Total())
		}
		ran++
	}
	t.Logf("%d of %d example campaigns ran", ran, len(paths))
}
