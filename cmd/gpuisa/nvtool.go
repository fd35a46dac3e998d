package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuisa/gpuisa/internal/safeio"
)

// The command lines of NVIDIA's tools, shared by the nvdisasm and cuobjdump
// drop-ins: every option has a long spelling (--name, also --name=value) and
// a short one (-n, also -n=value); a value follows as the next argument;
// list options take comma-separated values and may repeat; -optf FILE reads
// more options from a file. Problems are reported as the tools report them:
// "TOOL fatal   : MESSAGE" on standard error and exit status 1.

// toolOpt is one option of an NVIDIA tool.
type toolOpt struct {
	long, short string
	arg         string   // the value as the help names it, e.g. "<SMxy>"; "" for a switch
	list        bool     // comma-separated values; the option may repeat
	allowed     []string // the values the option takes, when it is a fixed set
	usage       string
}

// toolValue is what the command line gave one option.
type toolValue struct {
	opt  *toolOpt
	set  bool
	vals []string
}

func (v *toolValue) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(v.vals, ",")
}

func (v *toolValue) Set(s string) error {
	v.set = true
	switch {
	case v.opt.arg == "":
	case v.opt.list:
		v.vals = append(v.vals, strings.Split(s, ",")...)
	default:
		v.vals = []string{s}
	}
	return nil
}

func (v *toolValue) IsBoolFlag() bool { return v.opt.arg == "" }

// nvTool is one tool's options and, once parsed, their values.
type nvTool struct {
	name  string // "nvdisasm"
	usage string // what follows the name on the help's Usage line
	opts  []toolOpt
	vals  map[string]*toolValue // by long name
	// optfDepth is how deep -optf files are nested now (a file that names
	// itself would otherwise recurse until the stack runs out)
	optfDepth int
}

// maxOptionsFileBytes bounds an -optf file, and maxOptionsFileDepth how
// deep such files may name each other.
const (
	maxOptionsFileBytes = 1 << 20
	maxOptionsFileDepth = 8
)

// define adds both spellings of every option to fs (gpuisa help lists them)
// and binds them to t's values.
func (t *nvTool) define(fs *flag.FlagSet) {
	t.vals = map[string]*toolValue{}
	for i := range t.opts {
		o := &t.opts[i]
		v := &toolValue{opt: o}
		t.vals[o.long] = v
		usage := o.usage
		if len(o.allowed) > 0 {
			usage += " (one of " + strings.Join(o.allowed, ", ") + ")"
		}
		if o.arg != "" {
			usage = "`" + strings.Trim(o.arg, "<>") + "`: " + usage
		}
		fs.Var(v, o.long, usage)
		if o.short != o.long {
			fs.Var(v, o.short, "same as -"+o.long)
		}
	}
}

// toolFatal is a fatal command-line error, printed as the tool prints it.
type toolFatal string

func (e toolFatal) Error() string { return string(e) }

// parse reads the command line into t's values and returns the file
// arguments.
func (t *nvTool) parse(args []string) ([]string, error) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			files = append(files, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[1:], "=")
		var o *toolOpt
		for k := range t.opts {
			p := &t.opts[k]
			if strings.HasPrefix(name, "-") && name[1:] == p.long || name == p.short {
				o = p
				break
			}
		}
		if o == nil {
			return nil, toolFatal(fmt.Sprintf("Unknown option '%s'", name))
		}
		spelled := "-" + name
		switch {
		case o.arg == "" && hasValue:
			return nil, toolFatal(fmt.Sprintf("no argument expected after '%s'", spelled))
		case o.arg != "" && !hasValue:
			if i+1 >= len(args) {
				return nil, toolFatal(fmt.Sprintf("argument expected after '%s'", spelled))
			}
			i++
			value = args[i]
		}
		if o.long == "options-file" {
			if t.optfDepth >= maxOptionsFileDepth {
				return nil, toolFatal(fmt.Sprintf("Options files nested more than %d deep at '%s'", maxOptionsFileDepth, value))
			}
			more, err := readOptionsFiles(value)
			if err != nil {
				return nil, err
			}
			t.optfDepth++
			rest, err := t.parse(more)
			t.optfDepth--
			if err != nil {
				return nil, err
			}
			files = append(files, rest...)
			continue
		}
		if len(o.allowed) > 0 {
			for _, v := range strings.Split(value, ",") {
				if !contains(o.allowed, v) {
					return nil, toolFatal(fmt.Sprintf("Value '%s' is not defined for option '%s'", v, o.long))
				}
			}
		}
		t.vals[o.long].Set(value)
	}
	return files, nil
}

// readOptionsFiles reads the whitespace-separated options of each file.
func readOptionsFiles(list string) ([]string, error) {
	var args []string
	for _, name := range strings.Split(list, ",") {
		data, err := safeio.ReadFile(name, maxOptionsFileBytes)
		if err != nil {
			if tooLarge(err) {
				return nil, toolFatal(err.Error())
			}
			return nil, toolFatal(fmt.Sprintf("Could not open options file '%s'", name))
		}
		args = append(args, strings.Fields(string(data))...)
	}
	return args, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (t *nvTool) has(long string) bool { return t.vals[long].set }

func (t *nvTool) value(long string) string {
	if v := t.vals[long].vals; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func (t *nvTool) list(long string) []string { return t.vals[long].vals }

// number parses a numeric option value as the tools do (decimal, 0x hex).
func number(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, toolFatal(fmt.Sprintf("'%s': expected a number", s))
	}
	return n, nil
}

// report prints a message in the tool's form: kind is "fatal", "error" or
// "warning".
func (t *nvTool) report(w io.Writer, kind, msg string) {
	// "%s %-7s : %s\n" without fmt: a damaged file may have a message
	// for every word; a name from the file may hold a newline
	msg = safeio.Printable(msg)
	b := make([]byte, 0, len(t.name)+len(msg)+14)
	b = append(append(append(b, t.name...), ' '), kind...)
	for i := len(kind); i < 7; i++ {
		b = append(b, ' ')
	}
	b = append(append(append(b, " : "...), msg...), '\n')
	w.Write(b)
}

// writeHelp prints the tool's help in its layout: the usage line, then each
// option's long spelling, value and short spelling, and its description.
func (t *nvTool) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "\nUsage  : %s %s\n\nOptions\n=======\n\n", t.name, t.usage)
	width := 0
	heads := make([]string, len(t.opts))
	for i, o := range t.opts {
		heads[i] = "--" + o.long
		if o.arg != "" {
			heads[i] += " " + o.arg
			if o.list {
				heads[i] += ",..."
			}
		}
		width = max(width, len(heads[i]))
	}
	for i, o := range t.opts {
		fmt.Fprintf(w, "%-*s  (-%s)\n", width+1, heads[i], o.short)
		text := o.usage
		if len(o.allowed) > 0 {
			text += " Allowed values for this option: '" + strings.Join(o.allowed, "','") + "'."
		}
		for _, l := range wrapWords(text, 80) {
			fmt.Fprintf(w, "        %s\n", l)
		}
		fmt.Fprintln(w)
	}
}

// wrapWords breaks text into lines of at most width bytes.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
