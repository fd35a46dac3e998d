package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// A command of the gpuisa tool. Its flags are defined once, by define, and
// everything the user reads about it (gpuisa help, -h, usage errors) is made
// from that flag set and the texts here: there is no second copy to drift.
type command struct {
	name    string
	args    string // what follows the flags in the synopsis, e.g. "FILE..."
	summary string // one line for the list of commands
	doc     string // paragraphs after the synopsis in `gpuisa help NAME`
	// define adds the command's flags to fs and returns the function that
	// runs the command once fs is parsed, given the positional arguments.
	define func(fs *flag.FlagSet) func(io *cmdIO, args []string) int
	// ownArgs: the command parses its arguments itself, with the flags
	// define made (drop-ins for NVIDIA's tools take their command lines)
	ownArgs bool
}

// cmdIO is a command's standard streams.
type cmdIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	inputLimit     int64 // bytes a command reads from a file at most; 0: maxInputBytes
}

// commands lists the tool's commands in the order `gpuisa help` shows them.
// It is built on each call so no package state is shared by tests.
func commands() []*command {
	return []*command{
		disCommand(),
		asCommand(),
		checkCommand(),
		runCommand(),
		launchCommand(),
		injectCommand(),
		nvdisasmCommand(),
		cuobjdumpCommand(),
		archsCommand(),
		versionCommand(),
		helpCommand(),
	}
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// flagSet makes c's flag set; its errors go to stderr, its help is ours.
func (c *command) flagSet(stderr io.Writer) (*flag.FlagSet, func(*cmdIO, []string) int) {
	fs := flag.NewFlagSet("gpuisa "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	return fs, c.define(fs)
}

// invoke parses args (flags may come before and after positional
// arguments; "--" ends the flags) and runs the command. -h prints the help
// to stdout and exits 0; a usage error names the problem, prints the
// synopsis to stderr and exits 2.
func (c *command) invoke(args []string, io *cmdIO) int {
	fs, runIt := c.flagSet(io.stderr)
	if c.ownArgs {
		return runIt(io, args)
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.writeHelp(io.stdout)
		return 0
	}
	if err != nil {
		// the flag package has printed the reason
		c.usageHint(io.stderr)
		return 2
	}
	return runIt(io, pos)
}

// parseInterspersed parses flags wherever they appear among the arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at the first non-flag argument, or after "--"
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError reports a misuse of c (exit status 2) with the synopsis.
func (c *command) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "gpuisa %s: %s\n", c.name, fmt.Sprintf(format, a...))
	c.usageHint(stderr)
	return 2
}

func (c *command) usageHint(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\nRun 'gpuisa help %s' for the flags.\n", c.synopsis(), c.name)
}

func (c *command) synopsis() string {
	fs, _ := c.flagSet(io.Discard)
	s := "gpuisa " + c.name
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		s += " [flags]"
	}
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

// writeHelp prints c's synopsis, description and every flag.
func (c *command) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n", c.synopsis())
	fmt.Fprintf(w, "%s\n", c.summary)
	if c.doc != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.doc, "\n"))
	}
	fs, _ := c.flagSet(io.Discard)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintf(w, "\nFlags:\n")
			first = false
		}
		writeFlag(w, f)
	})
}

// writeFlag prints one flag as `-name ARG` and its indented description.
// Unlike flag.PrintDefaults, a boolean flag never shows an argument, even
// when its text quotes something in backquotes.
func writeFlag(w io.Writer, f *flag.Flag) {
	argName, usage := flag.UnquoteUsage(f)
	if isBoolFlag(f) {
		argName, usage = "", f.Usage
	}
	line := "  -" + f.Name
	if argName != "" {
		line += " " + argName
	}
	fmt.Fprintln(w, line)
	text := usage
	if def := f.DefValue; def != "" && def != "false" && def != "0" && !strings.Contains(usage, "default") {
		text += fmt.Sprintf(" (default %s)", def)
	}
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "    \t%s\n", l)
	}
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// writeOverview prints the list of commands for `gpuisa help` and misuse.
func writeOverview(w io.Writer) {
	fmt.Fprintf(w, "gpuisa disassembles, assembles and runs GPU machine code: NVIDIA Tesla (sm_10..sm_13),\n"+
		"Fermi (sm_20/21), Maxwell (sm_50/52/53) and PowerVR SGX543 USSE.\n\nUsage:\n\n  gpuisa COMMAND [flags] [arguments]\n\nCommands:\n\n")
	cmds := commands()
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'gpuisa help COMMAND' (or 'gpuisa COMMAND -h') for a command's flags.\n"+
		"'-' names standard input wherever a file is read.\n")
}

func helpCommand() *command {
	return &command{
		name:    "help",
		args:    "[COMMAND]",
		summary: "describe the commands, or one command and all its flags",
		define: func(fs *flag.FlagSet) func(*cmdIO, []string) int {
			return func(io *cmdIO, args []string) int {
				switch len(args) {
				case 0:
					writeOverview(io.stdout)
					return 0
				case 1:
					c := findCommand(args[0])
					if c == nil {
						fmt.Fprintf(io.stderr, "gpuisa help: unknown command %q (commands: %s)\n", args[0], commandNames())
						return 2
					}
					c.writeHelp(io.stdout)
					return 0
				}
				return findCommand("help").usageError(io.stderr, "one command at a time")
			}
		},
	}
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
