package inject

import (
	"bytes"
	"os"
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
