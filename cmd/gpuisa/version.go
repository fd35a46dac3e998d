package main

import (
	"flag"
	"fmt"
	"runtime/debug"
)

// versionText names the build: the module version `go install ...@vX` records, or for a
// build from a checkout the VCS revision Go stamps into the binary.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "gpuisa (unknown version: built without module information)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	text := "gpuisa " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		text += fmt.Sprintf(" (%s %s%s)", rev, when, dirty)
	}
	return text + " " + info.GoVersion
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print gpuisa's module version (from the binary's build information)",
		define: func(fs *flag.FlagSet) func(*cmdIO, []string) int {
			return func(io *cmdIO, args []string) int {
				if len(args) != 0 {
					return findCommand("version").usageError(io.stderr, "takes no arguments")
				}
				fmt.Fprintln(io.stdout, versionText())
				return 0
			}
		},
	}
}
