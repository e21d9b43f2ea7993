package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/slt"
)

// fakeTerminal is a progress line that takes its writer for a terminal,
// on a clock the test moves.
func fakeTerminal(buf *bytes.Buffer) (*progressLine, *time.Time) {
	now := time.Unix(0, 0)
	return &progressLine{w: buf, tty: true, now: func() time.Time { return now }}, &now
}

func TestProgressLineRedraws(t *testing.T) {
	var buf bytes.Buffer
	p, now := fakeTerminal(&buf)
	p.Update("a.slt: 0/10 records, 0 failed", true)
	p.Update("a.slt: 1/10 records, 0 failed", false) // too soon: not drawn
	*now = now.Add(minRedraw)
	p.Update("a.slt: 2/10 records, 1 failed", false)
	p.Update("b.slt: 0/3 records, 1 failed", true) // shorter: padded over the old one
	p.Clear()
	p.Clear() // nothing shown: nothing written
	want := "\ra.slt: 0/10 records, 0 failed" +
		"\ra.slt: 2/10 records, 1 failed" +
		"\rb.slt: 0/3 records, 1 failed " +
		"\r" + strings.Repeat(" ", len("a.slt: 2/10 records, 1 failed")) + "\r"
	if got := buf.String(); got != want {
		t.Errorf("wrote %q\nwant  %q", got, want)
	}
}

func TestProgressLineTruncates(t *testing.T) {
	var buf bytes.Buffer
	p, _ := fakeTerminal(&buf)
	long := strings.Repeat("dir/", 30) + "file.slt: 5/9 records, 0 failed"
	p.Update(long, true)
	got := strings.TrimPrefix(buf.String(), "\r")
	if len([]rune(got)) != progressWidth || !strings.HasPrefix(got, "...") || !strings.HasSuffix(long, got[3:]) {
		t.Errorf("drew %q (%d runes), want the last %d runes of the line", got, len([]rune(got)), progressWidth)
	}
}

// TestProgressLineNotTerminal: on a pipe or a buffer nothing is written.
func TestProgressLineNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressLine(&buf)
	p.Update(sltProgress(slt.Progress{File: "a.slt", Done: 1, Total: 2}), true)
	p.Clear()
	if buf.Len() != 0 || p.tty {
		t.Errorf("wrote %q on a buffer", buf.String())
	}
}

// TestSLTQuietWhenPiped: `streamdb slt` on a non-terminal stderr prints
// no progress: stderr stays empty.
func TestSLTQuietWhenPiped(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/a.slt"
	if err := os.WriteFile(path, []byte("statement ok\nCREATE TABLE t (a int)\n\nquery I\nSELECT count(*) FROM t\n----\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCapture("slt", path)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "2 passed") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestBenchProgress: on a (fake) terminal a log line clears the progress
// line first and the line is drawn again below it; Stop erases it.
func TestBenchProgress(t *testing.T) {
	var buf bytes.Buffer
	line, now := fakeTerminal(&buf)
	b := &benchProgress{line: line, stderr: &buf}
	b.Step("streamdb", "load/copy")
	*now = now.Add(3 * time.Second)
	fmt.Fprintf(b.Log(), "postgres: load...\n")
	b.Stop()
	step := "streamdb: load/copy (0s)"
	want := "\r" + step +
		"\r" + strings.Repeat(" ", len(step)) + "\r" + "postgres: load...\n" +
		"\rstreamdb: load/copy (3s)" +
		"\r" + strings.Repeat(" ", len(step)) + "\r"
	if got := buf.String(); got != want {
		t.Errorf("wrote %q\nwant  %q", got, want)
	}
}

// TestBenchProgressNotTerminal: not on a terminal, the log goes to stderr
// as it is, and nothing else is written or started.
func TestBenchProgressNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := startBenchProgress(&buf)
	b.Step("streamdb", "load")
	fmt.Fprintf(b.Log(), "streamdb: load...\n")
	b.Stop()
	if buf.String() != "streamdb: load...\n" || b.done != nil {
		t.Errorf("wrote %q", buf.String())
	}
}
