package sql

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// rewritten returns the text the TiDB parser gets for a one-statement query.
func rewritten(t *testing.T, query string) (string, error) {
	t.Helper()
	toks, err := Lex(query)
	if err != nil {
		return "", err
	}
	s := &stmtParser{p: NewParser(), query: query, st: &Statement{}}
	rw, err := rewrite(query, toks)
	if err != nil {
		return "", err
	}
	if rw, err = s.rewriteTableFuncs(rw); err != nil {
		return "", err
	}
	if rw, err = s.rewriteDerivedColumns(rw); err != nil {
		return "", err
	}
	return render(rw).text, nil
}

// asPgErr fails the test unless err is a positioned *pgerr.Error.
func asPgErr(t *testing.T, err error) *pgerr.Error {
	t.Helper()
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *pgerr.Error", err, err)
	}
	if pe.Position <= 0 {
		t.Fatalf("error %q has no position", pe.Message)
	}
	return pe
}
