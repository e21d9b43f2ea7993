package sql

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestAlterRateLimitValues: every SET *_RATE_LIMIT takes = n, TO n,
// DEFAULT and UNLIMITED (a word or a string); a negative value parses
// (the executor rejects it with 22023); a value that is not an integer
// is a positioned 22023.
func TestAlterRateLimitValues(t *testing.T) {
	p := NewParser()
	for q, want := range map[string]int64{
		"alter table t set dml_rate_limit to 5":                  5,
		"alter table t set dml_rate_limit = +5":                  5,
		"alter table t set dml_rate_limit to -5":                 -5,
		"alter materialized view v set backfill_rate_limit to 0": 0,
		"alter source s set source_rate_limit to 12":             12,
	} {
		st, err := p.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if a := st[0].Node.(*AlterStmt); a.Value != want || a.Default || a.Unlimited {
			t.Fatalf("%s: %#v", q, a)
		}
	}
	for _, q := range []string{"alter materialized view v set backfill_rate_limit = unlimited",
		"alter materialized view v set backfill_rate_limit to 'UNLIMITED'", "alter table t set dml_rate_limit = unlimited"} {
		st, err := p.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if a := st[0].Node.(*AlterStmt); !a.Unlimited || a.Default || a.Adaptive || a.Value != 0 {
			t.Fatalf("%s: %#v", q, a)
		}
	}
	for _, q := range []string{"alter table t set dml_rate_limit to 1.5", "alter table t set dml_rate_limit = -2.5"} {
		_, err := p.Parse(q)
		if pe := asPgErr(t, err); pe.Code != pgerr.InvalidParameterValue {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{"alter table t set dml_rate_limit to", "alter table t set dml_rate_limit to - x", "alter table t set dml_rate_limit to 'x'"} {
		_, err := p.Parse(q)
		if pe := asPgErr(t, err); pe.Code != pgerr.SyntaxError {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
