package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// Every command appears in `gpuisa help`, and every flag of every command in
// `gpuisa help NAME` and `gpuisa NAME -h` (stdout, exit 0), because both are
// made from the flag sets; this test keeps it so.
func TestHelpCoversEveryCommandAndFlag(t *testing.T) {
	code, overview, _ := runCLI(t, "", "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(overview, "\n  "+c.name+" ") {
			t.Errorf("gpuisa help does not list %s", c.name)
		}
		code, help, errText := runCLI(t, "", "help", c.name)
		if code != 0 || errText != "" {
			t.Errorf("help %s: exit %d, stderr %q", c.name, code, errText)
		}
		code, dashH, _ := runCLI(t, "", c.name, "-h")
		switch {
		case c.ownArgs:
			// a drop-in prints its tool's help (nvdisasm -h), made from the same flags
			fs, _ := c.flagSet(io.Discard)
			fs.VisitAll(func(f *flag.Flag) {
				if !strings.HasPrefix(f.Usage, "same as -") && !strings.Contains(dashH, "--"+f.Name) {
					t.Errorf("%s -h lacks --%s", c.name, f.Name)
				}
			})
			if code != 0 {
				t.Errorf("%s -h: exit %d", c.name, code)
			}
		case code != 0 || dashH != help:
			t.Errorf("%s -h: exit %d, and differs from gpuisa help %s", c.name, code, c.name)
		}
		fs, _ := c.flagSet(io.Discard)
		fs.VisitAll(func(f *flag.Flag) {
			line := "\n  -" + f.Name
			i := strings.Index(help, line)
			if i < 0 {
				t.Errorf("help %s lacks -%s", c.name, f.Name)
				return
			}
			// a boolean flag shows no argument
			rest := help[i+len(line):]
			if isBoolFlag(f) && !strings.HasPrefix(rest, "\n") {
				t.Errorf("help %s shows an argument for boolean -%s: %q", c.name, f.Name, strings.SplitN(rest, "\n", 2)[0])
			}
		})
	}
	if code, _, _ := runCLI(t, "", "help", "nosuch"); code != 2 {
		t.Errorf("help nosuch: exit %d, want 2", code)
	}
	for _, h := range []string{"-h", "--help"} {
		if code, out, _ := runCLI(t, "", h); code != 0 || out != overview {
			t.Errorf("gpuisa %s: exit %d, differs from gpuisa help", h, code)
		}
	}
}

// Flags may follow file names; "--" ends the flags.
func TestFlagsAfterFiles(t *testing.T) {
	in := "\x00\x82\x00\x10"
	code, out, errText := runCLI(t, in, "dis", "-", "-arch", "sm_10", "-base", "0x40")
	if code != 0 || !strings.Contains(out, "/*0040*/") {
		t.Fatalf("dis - -arch sm_10 -base 0x40: exit %d %q %q", code, out, errText)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	v := fs.Bool("v", false, "")
	pos, err := parseInterspersed(fs, []string{"a", "-v", "b", "--", "-c", "d"})
	if err != nil || !*v || strings.Join(pos, " ") != "a b -c d" {
		t.Fatalf("parseInterspersed: %v %v %q", err, *v, pos)
	}
}

// A misuse names the problem and the synopsis on stderr, exit 2.
func TestUsageErrorNamesSynopsis(t *testing.T) {
	code, _, errText := runCLI(t, "", "as", "-o", "x")
	if code != 2 || !strings.Contains(errText, "usage: gpuisa as [flags] FILE") {
		t.Fatalf("exit %d, stderr %q", code, errText)
	}
}
