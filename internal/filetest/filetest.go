// Package filetest runs file-driven tests: a testdata file is a list of
// cases (a command line, input lines, "----", expected output up to a
// blank line); each case's output is compared with the expectation, and
// the -rewrite flag regenerates the file, to be reviewed as a diff.
package filetest

import (
	"flag"
	"os"
	"strings"
	"testing"
)

// rewrite regenerates the expected output of testdata files.
var rewrite = flag.Bool("rewrite", false, "rewrite testdata expectations")

// tdCase is one block of a testdata file:
//
//	command
//	input lines
//	----
//	expected output lines (up to a blank line)
type tdCase struct {
	cmd, input, want string
}

// Run runs every case of a file through fn, comparing fn's output
// with the expectation (or rewriting the file with -rewrite).
func Run(t *testing.T, path string, fn func(t *testing.T, cmd, input string) string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l + "\n")
			i++
			continue
		}
		c, next := parseCase(lines, i)
		got := strings.TrimRight(fn(t, c.cmd, c.input), "\n")
		if got == "" {
			got = "(empty)"
		}
		if got != c.want && !*rewrite {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, i+1, c.cmd, c.input, got, c.want)
		}
		out.WriteString(c.cmd + "\n" + c.input + "\n----\n" + got + "\n")
		i = next
	}
	if *rewrite {
		s := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func parseCase(lines []string, i int) (tdCase, int) {
	c := tdCase{cmd: lines[i]}
	i++
	var in, want []string
	for i < len(lines) && lines[i] != "----" {
		in = append(in, lines[i])
		i++
	}
	i++ // ----
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
		want = append(want, lines[i])
		i++
	}
	c.input, c.want = strings.Join(in, "\n"), strings.Join(want, "\n")
	return c, i
}
