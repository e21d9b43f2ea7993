package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestStatementTimeout: SET statement_timeout cancels a statement that
// runs longer with 57014 and Postgres's message; the session goes on, 0
// turns it off, and a bad value is 22023.
func TestStatementTimeout(t *testing.T) {
	db, err := Open(":memory:", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s := db.NewSession()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, k int)",
		"INSERT INTO t SELECT g, g % 4 FROM generate_series(1, 40000) AS g",
		"SET statement_timeout = '50ms'",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	start := time.Now()
	_, err = s.Exec(ctx, "SELECT count(*) FROM t a JOIN t b ON a.k = b.k") // 400M rows
	if pe := pgerr.As(err); pe.Code != pgerr.QueryCanceled || pe.Message != "canceling statement due to statement timeout" {
		t.Fatalf("a long SELECT under statement_timeout: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("the timeout took %v", el)
	}
	// The session goes on; a short statement is not cut.
	if _, err := s.Exec(ctx, "INSERT INTO t VALUES (0, 0)"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0", "DEFAULT"} {
		if _, err := s.Exec(ctx, "SET statement_timeout = "+v); err != nil {
			t.Fatal(err)
		}
		if s.statementTimeout() != 0 {
			t.Fatalf("statement_timeout %s left a timeout", v)
		}
	}
	_, err = s.Exec(ctx, "SET statement_timeout = 'soon'")
	if pe := pgerr.As(err); pe.Code != pgerr.InvalidParameterValue || !strings.Contains(pe.Message, `"statement_timeout"`) {
		t.Fatalf("bad statement_timeout: %v", err)
	}
	for v, want := range map[string]time.Duration{"250": 250 * time.Millisecond, "'2s'": 2 * time.Second, "'1.5min'": 90 * time.Second, "'300us'": 300 * time.Microsecond} {
		if got, err := parseTimeout("statement_timeout", v); err != nil || got != want {
			t.Errorf("parseTimeout(%s) = %v, %v; want %v", v, got, err, want)
		}
	}
}
