package slt

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// apply runs one record and records its outcome.
func (fr *fileRun) apply(ctx context.Context, rec record) flow {
	switch r := rec.(type) {
	case *statementRecord:
		return fr.check(ctx, &r.common, func() string { return fr.statement(ctx, r) })
	case *queryRecord:
		return fr.check(ctx, &r.common, func() string { return fr.query(ctx, r) })
	case *systemRecord:
		return fr.check(ctx, &r.common, func() string { return "system commands are not supported" })
	case *haltRecord:
		if fr.skipped(r.conditions) {
			return proceed
		}
		return stop
	case *sleepRecord:
		if fr.opts.Sleep(ctx, r.d) != nil {
			return stop
		}
	case *sortModeRecord:
		fr.sortMode = r.mode
	case *substitutionRecord:
		fr.substitute = r.on
	}
	return proceed
}

// check runs a statement or query (attempt returns "" on success or what
// went wrong), retrying as the record says, and counts the outcome.
func (fr *fileRun) check(ctx context.Context, c *common, attempt func() string) flow {
	if fr.skipped(c.conditions) {
		fr.summary.Skipped++
		return proceed
	}
	msg := attempt()
	tries := 1
	for ; msg != "" && tries <= c.retry.attempts && ctx.Err() == nil; tries++ {
		if fr.opts.Sleep(ctx, c.retry.backoff) != nil {
			break
		}
		msg = attempt()
	}
	if ctx.Err() != nil {
		return stop
	}
	if msg == "" {
		fr.summary.Passed++
		return proceed
	}
	if tries > 1 {
		msg += fmt.Sprintf("\n[Attempts] %d", tries)
	}
	fr.summary.fail(fr.opts, Failure{File: c.File, Line: c.Line, IncludedFrom: c.includedFrom, SQL: c.sql, Message: msg})
	return proceed
}

// prepare substitutes the SQL of c and finds its connection.
func (fr *fileRun) prepare(ctx context.Context, c *common) (Conn, string, error) {
	sql, err := fr.sqlText(c.sql)
	if err != nil {
		return nil, "", err
	}
	conn, err := fr.conn(ctx, c.connection)
	if err != nil {
		return nil, "", fmt.Errorf("open connection %q: %w", connName(c.connection), err)
	}
	return conn, sql, nil
}

func connName(name string) string {
	if name == "" {
		return "default"
	}
	return name
}

// statement runs a statement record once.
func (fr *fileRun) statement(ctx context.Context, r *statementRecord) string {
	conn, sql, err := fr.prepare(ctx, &r.common)
	if err != nil {
		return err.Error()
	}
	if !r.hasCount {
		return expectOutcome("statement", r.expectErr, conn.Exec(ctx, sql))
	}
	counter, ok := conn.(RowCounter)
	if !ok {
		return "statement count needs a connection that reports affected rows (RowCounter)"
	}
	n, err := counter.ExecCount(ctx, sql)
	if msg := expectOutcome("statement", nil, err); msg != "" {
		return msg
	}
	if n != r.count {
		return fmt.Sprintf("statement count mismatch\n[Expected] %d\n[Actual] %d", r.count, n)
	}
	return ""
}

// query runs a query record once.
func (fr *fileRun) query(ctx context.Context, r *queryRecord) string {
	conn, sql, err := fr.prepare(ctx, &r.common)
	if err != nil {
		return err.Error()
	}
	rows, err := conn.Query(ctx, sql)
	if r.expectErr != nil || err != nil {
		return expectOutcome("query", r.expectErr, err)
	}
	mode := fr.sortMode
	if r.hasSort {
		mode = r.sortMode
	}
	want := arrange(expectedLines(r.rows), mode)
	got := arrange(actualLines(rows), mode)
	if !slices.Equal(want, got) {
		return resultMismatch(want, got)
	}
	return ""
}

// expectOutcome compares an execution error with the expectation: want
// nil means it must succeed.
func expectOutcome(kind string, want *errorExpect, err error) string {
	switch {
	case want == nil && err != nil:
		return fmt.Sprintf("%s failed: %v", kind, err)
	case want == nil:
		return ""
	case err == nil:
		return fmt.Sprintf("%s is expected to fail, but actually succeed\n[Expected] %s", kind, want)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s interrupted: %v", kind, err)
	case !want.matches(err.Error()):
		return errorMismatch(*want, err)
	}
	return ""
}
