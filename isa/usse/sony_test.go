package usse

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuisa/gpuisa/internal/oracle"
)

var sonyLine = regexp.MustCompile(`^\s*\d+:\s+(\+?)(.*?)\s*$`)

// TestSonySample measures how much of Sony's Razor listing (text only, no
// hex, so it cannot be checked bit for bit) our assembler accepts as written
// and lists the mnemonics it does not; every accepted line must print to a
// text that assembles to the same word, and coverage must not drop below
// what was reached when the test was written.
func TestSonySample(t *testing.T) {
	data, err := os.ReadFile(oracle.Path(t, "oracle/usse/sony_razor_disasm_sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Sony lists a dual-issue word on two lines, the second starting with
	// '+'; we print it on one: "first +second".
	var stmts []string
	for _, line := range strings.Split(string(data), "\n") {
		m := sonyLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.Join(strings.Fields(m[2]), " ")
		if m[1] == "+" && len(stmts) > 0 {
			stmts[len(stmts)-1] += " +" + text
			continue
		}
		stmts = append(stmts, text)
	}
	total, ok, same := 0, 0, 0
	missing := map[string]int{}
	var differ []string
	for _, text := range stmts {
		total++
		if in, err := ParseInst(text); err == nil {
			ok++
			if back, err := ParseInst(Print(in, 0)); err != nil || back.Raw != in.Raw {
				t.Errorf("%q: our reprint %q does not assemble to %016x", text, Print(in, 0), in.Raw)
			}
			if Print(in, 0) == text {
				same++
			} else {
				differ = append(differ, text+" => "+Print(in, 0))
			}
			continue
		}
		missing[strings.Fields(text)[0]]++
	}
	var names []string
	for k, v := range missing {
		names = append(names, k+"×"+strconv.Itoa(v))
	}
	sort.Strings(names)
	t.Logf("Sony sample: %d/%d lines assemble as written, %d of them print back identically; not accepted: %s", ok, total, same, strings.Join(names, " "))
	for _, d := range differ {
		t.Logf("reprinted differently: %s", d)
	}
	// regression floor: what this package achieved when the test was written
	if total != 188 || ok < 188 || same < 188 {
		t.Errorf("Sony sample coverage dropped: %d/%d accepted, %d identical (want 188, 188 of 188)", ok, total, same)
	}
}
