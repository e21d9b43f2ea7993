package main

import (
	"fmt"
	"io"
	"strings"
)

// One-line summaries of the commands, shared by the command list and each
// command's own usage.
const (
	serveSummary   = "Serve a database over the Postgres wire protocol (the default command)."
	sltSummary     = "Run sqllogictest files, in-process or against a server (--url)."
	benchSummary   = "Run benchmark scenarios, optionally side by side with PostgreSQL."
	versionSummary = "Print the version and the commit streamdb was built from."
)

// command is one entry of the command list.
type command struct {
	name, summary, example string
}

// commands lists the commands in the order help shows them.
var commands = []command{
	{"serve", serveSummary, "streamdb serve --listen 127.0.0.1:4566 --data-dir ./streamdb-data"},
	{"slt", sltSummary, "streamdb slt tests/slt/*.slt"},
	{"bench", benchSummary, "streamdb bench --rows 1000000 --compare postgres load"},
	{"version", versionSummary, "streamdb version"},
}

// printUsage writes the command list and serve's flags.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "streamdb is an embedded SQL stream engine: tables, materialized views kept up to date\n"+
		"as rows arrive, and a Postgres wire server.\n\n"+
		"usage: streamdb [COMMAND] [flags] [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n  %-8s   e.g. %s\n", c.name, c.summary, "", c.example)
	}
	fmt.Fprint(w, "  help     Print this help; \"streamdb help COMMAND\" or \"streamdb COMMAND --help\"\n"+
		"           describes a command.\n\n"+
		"Without a command streamdb serves. Flags of serve:\n")
	fs := serveFlags(new(serveConfig))
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runHelp runs `streamdb help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stdout)
		return 0
	}
	if args[0] == "help" {
		printUsage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return run([]string{c.name, "--help"}, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "streamdb help: unknown command %q (commands: %s)\n", args[0], commandNames())
	return exitUsage
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}
