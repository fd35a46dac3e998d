package inject

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A campaign file of any bytes is read or refused with an error, never a
// panic; what is read passes its own checks again.
func FuzzParseCampaign(f *testing.F) {
	for _, p := range []string{"testdata/vecadd.campaign.json", "../../examples/inject/maxwell/matmul.campaign.json",
		"../../examples/inject/flexgrip/mxm_tiled.campaign.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"launch": "x.json", "experiments": [{"model": "flip1", "bit": 40}]}`))
	f.Add([]byte(`{"launch": "x.json", "experiments": [{"model": "stuck-unit", "unit": "fp32", "lane": 3, "value": 1, "window": [5, 2]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCampaign(data)
		if err != nil {
			return
		}
		if c.Total() < 0 || len(c.Experiments) == 0 {
			t.Fatalf("accepted %q", data)
		}
		if err := c.check(); err != nil {
			t.Fatalf("a checked campaign fails its check again: %v", err)
		}
	})
}

// Results files of any bytes read without panicking; what is read writes
// back and reads the same.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"campaign":"c","id":0,"of":1,"exp":"e","model":"flip1","outcome":"Masked"}` + "\n"))
	f.Add([]byte("{\"campaign\":\"c\",\"id\":3}\n{\"campaign\":\"c\",\"id\":1}\n{broken"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadRecords(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteRecords(&b, recs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadRecords(&b)
		if err != nil || len(again) != len(recs) {
			t.Fatalf("%d records read back as %d (%v)", len(recs), len(again), err)
		}
	})
}

// A shader campaign with any experiments runs or is refused with an
// error, never a panic (experiments capped at a few injections).
func FuzzShaderCampaign(f *testing.F) {
	for _, p := range []string{"../../examples/inject/usse/sum_v.campaign.json", "../../examples/inject/usse/tint_f.campaign.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte(`{"launch": "x", "experiments": [{"model": "flip2", "group": "pr", "bit": 31}, {"model": "rf", "bits": 2, "window": [3, 9]}]}`), uint8(1))
	f.Add([]byte(`{"launch": "x", "experiments": [{"model": "stuck-reg", "lane": 3, "value": 1, "bit": 0}, {"model": "random", "group": "st-addr"}]}`), uint8(2))
	launches := []string{"../../examples/usse/sum_v.json", "../../examples/usse/tint_f.json", "../../examples/usse/scale_v.json"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		c, err := ParseCampaign(data)
		if err != nil || len(c.Experiments) > 12 {
			return
		}
		for i := range c.Experiments {
			c.Experiments[i].Injections = min(c.Experiments[i].Injections, 3)
		}
		c.HangFactor = min(c.HangFactor, 4)
		c.Launch, _ = filepath.Abs(launches[int(which)%len(launches)])
		ld, err := LoadCampaign(c, "fuzz.campaign.json")
		if err != nil {
			return
		}
		g, err := Profile(ld)
		if err != nil {
			return
		}
		if _, err := Run(ld, g, Options{Workers: 1}); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
	})
}
