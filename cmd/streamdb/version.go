package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// runVersion runs `streamdb version`.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: streamdb version\n\n%s\n", versionSummary)
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "streamdb version takes no arguments, got %q\n", fs.Args())
		return usageError{errors.New("version: unexpected arguments")}
	}
	fmt.Fprintln(stdout, version())
	return nil
}

// version describes the build: the main module's version and, when the
// binary was built from a git checkout, the commit and whether the tree
// had uncommitted changes.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return formatVersion(nil)
	}
	return formatVersion(info)
}

// formatVersion formats what version reports; info may be nil.
func formatVersion(info *debug.BuildInfo) string {
	v, commit, modified, goVersion := "(devel)", "", false, ""
	if info != nil {
		goVersion = info.GoVersion
		if info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := "streamdb " + v
	switch {
	case commit == "":
		out += ", commit unknown"
	case modified:
		out += ", commit " + commit + " (with uncommitted changes)"
	default:
		out += ", commit " + commit
	}
	if goVersion != "" {
		out += fmt.Sprintf(", built with %s", goVersion)
	}
	return out
}
