package usse

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gpuisa/internal/oracle"
)

var sonyLine = regexp.MustCompile(`^\s*\d+:\s+(\+?)(.*?)\s*$`)

// TestSonySample measures how much of Sony's Razor listing (text only, no
// hex, so it cannot be checked bit for bit) our assembler accepts as written
// and lists the mnemonics it does not. It is a measurement (see the log); it
// fails only when the sample cannot be read.
func TestSonySample(t *testing.T) {
	data, err := os.ReadFile(oracle.Path(t, "oracle/usse/sony_razor_disasm_sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	total, ok := 0, 0
	missing := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		m := sonyLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		total++
		if _, err := ParseInst(m[2]); err == nil {
			ok++
			continue
		}
		missing[strings.Fields(m[2])[0]]++
	}
	var names []string
	for k, v := range missing {
		names = append(names, k+"×"+strconv.Itoa(v))
	}
	sort.Strings(names)
	t.Logf("Sony sample: %d/%d lines assemble as written; not accepted: %s", ok, total, strings.Join(names, " "))
	if total == 0 {
		t.Fatal("no lines read")
	}
}
