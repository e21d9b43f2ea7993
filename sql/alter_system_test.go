package sql

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestAlterSystem: ALTER SYSTEM SET takes = and TO, numbers, strings and
// DEFAULT; RESET is SET ... DEFAULT; anything else after ALTER SYSTEM is
// a positioned 0A000 or a syntax error.
func TestAlterSystem(t *testing.T) {
	p := NewParser()
	for q, want := range map[string]AlterSystemStmt{
		"ALTER SYSTEM SET barrier_interval_ms = 100":       {Name: "barrier_interval_ms", Value: "100"},
		"alter system set Barrier_Interval_MS to '250'":    {Name: "barrier_interval_ms", Value: "250"},
		"ALTER SYSTEM SET barrier_interval_ms TO DEFAULT":  {Name: "barrier_interval_ms", Default: true},
		"ALTER SYSTEM RESET barrier_interval_ms":           {Name: "barrier_interval_ms", Default: true},
		"ALTER SYSTEM SET barrier_interval_ms = -5;":       {Name: "barrier_interval_ms", Value: "-5"},
		"ALTER SYSTEM SET checkpoint_frequency = 'x'":      {Name: "checkpoint_frequency", Value: "x"},
		"ALTER SYSTEM SET barrier_interval_ms = default  ": {Name: "barrier_interval_ms", Default: true},
	} {
		st, err := p.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		a, ok := st[0].Node.(*AlterSystemStmt)
		if !ok || *a != want {
			t.Fatalf("%s: %#v, want %#v", q, st[0].Node, want)
		}
	}
	for q, code := range map[string]string{
		"ALTER SYSTEM SET barrier_interval_ms":       pgerr.SyntaxError,
		"ALTER SYSTEM SET barrier_interval_ms 100":   pgerr.SyntaxError,
		"ALTER SYSTEM SET = 100":                     pgerr.SyntaxError,
		"ALTER SYSTEM RESET":                         pgerr.SyntaxError,
		"ALTER SYSTEM RESET a b":                     pgerr.SyntaxError,
		"ALTER SYSTEM":                               pgerr.SyntaxError,
		"ALTER SYSTEM SWITCH barrier_interval_ms":    pgerr.FeatureNotSupported,
		"ALTER SYSTEM SET barrier_interval_ms = 1 2": pgerr.SyntaxError,
	} {
		_, err := p.Parse(q)
		if pe := asPgErr(t, err); pe.Code != code || pe.Position == 0 {
			t.Errorf("%s: %v (position %d), want %s", q, err, pe.Position, code)
		}
	}
}
