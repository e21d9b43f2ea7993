package slt

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Run runs files in order and returns what passed and failed. Each file
// gets its own connections from open, opened on first use and closed when
// the file ends. A failing record never stops a run; Run returns an error
// only when ctx ends, along with the summary so far.
func Run(ctx context.Context, open func(context.Context) (Conn, error), files []string, opts Options) (Summary, error) {
	opts.EnsureDefaults()
	var s Summary
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		runFile(ctx, open, f, &opts, &s)
	}
	return s, ctx.Err()
}

// runFile loads and runs one file, adding its outcome to s.
func runFile(ctx context.Context, open func(context.Context) (Conn, error), path string, opts *Options, s *Summary) {
	recs, err := loadFile(path)
	if err != nil {
		s.fail(opts, loadFailure(path, err))
		return
	}
	fr := &fileRun{opts: opts, labels: opts.labelSet(), open: open, conns: map[string]Conn{}, summary: s}
	defer fr.close()
	progress(opts, s, path, 0, len(recs))
	for i, rec := range recs {
		if ctx.Err() != nil {
			return
		}
		next := fr.apply(ctx, rec)
		progress(opts, s, path, i+1, len(recs))
		if next == stop {
			return
		}
	}
}

// progress reports done of total records of file to opts.OnProgress.
func progress(opts *Options, s *Summary, file string, done, total int) {
	if opts.OnProgress != nil {
		opts.OnProgress(Progress{File: file, Done: done, Total: total, Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped})
	}
}

// loadFailure turns an error loading path into a Failure.
func loadFailure(path string, err error) Failure {
	var pe *ParseError
	if errors.As(err, &pe) {
		return Failure{File: pe.File, Line: pe.Line, IncludedFrom: pe.IncludedFrom, Message: "parse error: " + pe.Msg}
	}
	return Failure{File: path, Message: fmt.Sprintf("load: %v", err)}
}

// fail records a failure.
func (s *Summary) fail(opts *Options, f Failure) {
	s.Failed++
	s.Failures = append(s.Failures, f)
	if opts.OnFailure != nil {
		opts.OnFailure(f)
	}
}

// flow says whether the file goes on after a record.
type flow bool

const (
	proceed flow = true
	stop    flow = false
)

// fileRun is the state of one file being run: its connections and the
// settings its control records change. It lives on Run's goroutine.
type fileRun struct {
	opts    *Options
	labels  map[string]bool
	open    func(context.Context) (Conn, error)
	summary *Summary

	conns     map[string]Conn // by name; "" is the default connection
	connOrder []string        // names in opening order, for close

	sortMode   SortMode // for queries that name none
	substitute bool     // `control substitution on`
	tempDir    string   // $__TEST_DIR__ when created here
}

// conn returns the connection called name, opening it on first use.
func (fr *fileRun) conn(ctx context.Context, name string) (Conn, error) {
	if c, ok := fr.conns[name]; ok {
		return c, nil
	}
	c, err := fr.open(ctx)
	if err != nil {
		return nil, err
	}
	fr.conns[name] = c
	fr.connOrder = append(fr.connOrder, name)
	return c, nil
}

// close closes every connection the file opened and removes its temporary
// directory. Close errors are not failures of the file.
func (fr *fileRun) close() {
	for _, name := range fr.connOrder {
		_ = fr.conns[name].Close()
	}
	fr.conns, fr.connOrder = nil, nil
	if fr.tempDir != "" {
		_ = os.RemoveAll(fr.tempDir)
	}
}

// lookup resolves a substitution variable.
func (fr *fileRun) lookup(name string) (string, bool) {
	if name != testDirVar {
		return fr.opts.LookupEnv(name)
	}
	if fr.opts.TestDir != "" {
		return fr.opts.TestDir, true
	}
	if fr.tempDir == "" {
		dir, err := os.MkdirTemp("", "slt-test-dir-")
		if err != nil {
			return "", false
		}
		fr.tempDir = dir
	}
	return fr.tempDir, true
}

// sqlText returns the SQL to send for sql, substituted when enabled.
func (fr *fileRun) sqlText(sql string) (string, error) {
	if !fr.substitute {
		return sql, nil
	}
	return substitute(sql, fr.lookup)
}

// skipped reports whether conditions skip a record under the run's labels.
func (fr *fileRun) skipped(conditions []condition) bool {
	for _, c := range conditions {
		if c.skips(fr.labels) {
			return true
		}
	}
	return false
}
