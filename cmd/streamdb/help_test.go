package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// runCapture runs the command line and returns its exit code, stdout and
// stderr.
func runCapture(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkCommandList checks that out lists every command with an example,
// and serve's flags.
func checkCommandList(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range commands {
		if !strings.Contains(out, "  "+c.name+" ") || !strings.Contains(out, c.summary) || !strings.Contains(out, "e.g. "+c.example) {
			t.Errorf("%s: command %s, its summary or its example missing:\n%s", what, c.name, out)
		}
	}
	for _, flag := range []string{"-listen", "-data-dir", "-password", "-tls-cert", "-tls-key", "-require-tls"} {
		if !strings.Contains(out, flag) {
			t.Errorf("%s: serve flag %s missing:\n%s", what, flag, out)
		}
	}
}

func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "help"}} {
		code, stdout, stderr := runCapture(args...)
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
		checkCommandList(t, strings.Join(args, " "), stdout)
	}
}

func TestUnknownCommand(t *testing.T) {
	code, stdout, stderr := runCapture("frobnicate", "x")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	checkCommandList(t, "unknown command", stderr)
	if code, _, stderr := runCapture("help", "frobnicate"); code != exitUsage || !strings.Contains(stderr, "serve, slt, bench, version") {
		t.Errorf("help frobnicate: exit %d, stderr %q", code, stderr)
	}
}

// TestCommandHelp checks that each command's --help (and help COMMAND)
// says what its arguments are, on stdout, with exit status 0.
func TestCommandHelp(t *testing.T) {
	for cmd, want := range map[string][]string{
		"serve":   {"usage: streamdb [serve] [flags]", serveSummary, "-tls-cert file", "-require-tls"},
		"slt":     {"usage: streamdb slt [flags] FILE...", "FILE... are sqllogictest files", "example: streamdb slt", "-url URL"},
		"bench":   {"usage: streamdb bench [flags] [SCENARIO...]", "SCENARIO... names the scenarios", "nexmark/QUERY", "example: streamdb bench", "-rows"},
		"version": {"usage: streamdb version", versionSummary},
	} {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			code, stdout, stderr := runCapture(args...)
			if code != 0 || stderr != "" {
				t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
			}
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("%q: output lacks %q:\n%s", args, w, stdout)
				}
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"slt"}, "no files given"},
		{[]string{"slt", "--bogus"}, "usage: streamdb slt"},
		{[]string{"bench", "--bogus"}, "usage: streamdb bench"},
		{[]string{"version", "extra"}, "version takes no arguments"},
	} {
		code, stdout, stderr := runCapture(tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runCapture("version")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "streamdb ") || !strings.Contains(stdout, "commit ") {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "streamdb (devel), commit unknown"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"streamdb (devel), commit unknown, built with go1.26.0"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			"streamdb v1.2.3, commit abc123, built with go1.26.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203-abc123+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}},
			"streamdb v0.0.0-20261203-abc123+dirty, commit abc123 (with uncommitted changes)"},
	} {
		if got := formatVersion(tc.info); got != tc.want {
			t.Errorf("formatVersion(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestVersionFromGit builds the binary with VCS stamping and checks that
// `streamdb version` names the checkout's commit.
func TestVersionFromGit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "streamdb")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("streamdb version: %v", err)
	}
	if want := "commit " + strings.TrimSpace(string(head)); !strings.Contains(string(out), want) {
		t.Errorf("streamdb version = %q, want it to contain %q", out, want)
	}
}

func TestServeTLSFlagErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--require-tls"}, "--require-tls needs a certificate"},
		{[]string{"--tls-cert", missing}, "both a certificate file and a key file"},
		{[]string{"--tls-key", missing}, "both a certificate file and a key file"},
		{[]string{"--tls-cert", missing, "--tls-key", missing}, "loading TLS certificate " + missing},
	} {
		code, _, stderr := runCapture(append([]string{"serve", "--data-dir", ":memory:", "--listen", "127.0.0.1:0"}, tc.args...)...)
		if code != exitFailure || !strings.Contains(stderr, tc.want) {
			t.Errorf("serve %q: exit %d, stderr %q; want exit 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
