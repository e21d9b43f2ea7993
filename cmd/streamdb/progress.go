package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/slt"
)

// progressLine is a status line redrawn in place (\r) on a terminal: slt
// shows the file it runs and its records done, bench the step it runs.
// On anything but a terminal (a pipe, a file, a test's buffer) it writes
// nothing, so what a script reads is what it read before. Redraws come
// at most every minRedraw; Clear erases the line before other output.
// Its methods may be called from several goroutines.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	shown int       // columns the line takes on screen now; 0: none
	drawn time.Time // when the line was last drawn
	now   func() time.Time
}

// progressWidth is the most runes a line takes, so it never wraps (which
// would break the redraw) in an 80-column terminal.
const progressWidth = 79

// minRedraw spaces redraws: a fast run would otherwise spend its time
// writing to the terminal.
const minRedraw = 50 * time.Millisecond

// newProgressLine returns a progress line on w, drawn only when w is a
// terminal.
func newProgressLine(w io.Writer) *progressLine {
	return &progressLine{w: w, tty: isTerminal(w), now: time.Now}
}

// isTerminal reports whether w is a character device (a terminal; also
// /dev/null, where drawing is harmless).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Update redraws the line as s, unless it was drawn less than minRedraw
// ago and force is false.
func (p *progressLine) Update(s string, force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty {
		return
	}
	now := p.now()
	if !force && p.shown > 0 && now.Sub(p.drawn) < minRedraw {
		return
	}
	s = truncateLeft(strings.ReplaceAll(s, "\n", " "), progressWidth)
	n := utf8.RuneCountInString(s)
	pad := ""
	if p.shown > n {
		pad = strings.Repeat(" ", p.shown-n)
	}
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
	// The screen holds the longer of the two lines, the rest blanks.
	p.shown, p.drawn = max(n, p.shown, 1), now
}

// Clear erases the line, leaving the cursor at the start of it.
func (p *progressLine) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty || p.shown == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.shown))
	p.shown = 0
}

// truncateLeft keeps the last width runes of s, marking a cut with "...":
// the end of a long path is the part that tells files apart.
func truncateLeft(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n <= width {
		return s
	}
	r := []rune(s)
	return "..." + string(r[n-width+3:])
}

// sltProgress is the progress line of `streamdb slt`.
func sltProgress(p slt.Progress) string {
	return fmt.Sprintf("%s: %d/%d records, %d failed", p.File, p.Done, p.Total, p.Failed)
}

// benchProgress is the progress line of `streamdb bench` on a terminal:
// the step or measured part running and how long it has run, redrawn
// every second by a goroutine that Stop ends and joins. The run's log
// lines go through Log, which clears the line before each one. Not on a
// terminal, it starts nothing and Log is stderr itself.
type benchProgress struct {
	line   *progressLine
	stderr io.Writer
	stop   chan struct{}
	done   chan struct{}

	mu    sync.Mutex // orders log writes and redraws
	step  string
	since time.Time
}

// startBenchProgress starts the progress line on stderr.
func startBenchProgress(stderr io.Writer) *benchProgress {
	b := &benchProgress{line: newProgressLine(stderr), stderr: stderr}
	if b.line.tty {
		b.stop, b.done = make(chan struct{}), make(chan struct{})
		go b.tick()
	}
	return b
}

// tick redraws the line every second until Stop.
func (b *benchProgress) tick() {
	defer close(b.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.redraw()
			b.mu.Unlock()
		}
	}
}

// redraw draws the line (with b.mu held).
func (b *benchProgress) redraw() {
	if b.step != "" {
		b.line.Update(fmt.Sprintf("%s (%s)", b.step, b.line.now().Sub(b.since).Truncate(time.Second)), true)
	}
}

// Step notes that scenario started on system (bench.Config.Progress).
func (b *benchProgress) Step(system, scenario string) {
	if !b.line.tty {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.step, b.since = system+": "+scenario, b.line.now()
	b.redraw()
}

// Log returns the writer for the run's log lines.
func (b *benchProgress) Log() io.Writer {
	if !b.line.tty {
		return b.stderr
	}
	return progressLog{b}
}

// Stop ends the redraws and erases the line.
func (b *benchProgress) Stop() {
	if b.stop != nil {
		close(b.stop)
		<-b.done
		b.stop = nil
	}
	b.line.Clear()
}

// progressLog writes log lines under a progress line: the line is
// cleared, the log written, and the line drawn again below it.
type progressLog struct{ b *benchProgress }

func (l progressLog) Write(p []byte) (int, error) {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	l.b.line.Clear()
	n, err := l.b.stderr.Write(p)
	l.b.redraw()
	return n, err
}
