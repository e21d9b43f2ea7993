package sql

import (
	"strings"
	"testing"
	"time"
)

// TestLargeStatements guards against rewrites that are quadratic in the
// number of constructs: each of these took seconds with splice-as-you-go
// passes.
func TestLargeStatements(t *testing.T) {
	rows := strings.TrimSuffix(strings.Repeat("('1'::int, date '2024-01-01', cast($1 as text)), ", 3000), ", ")
	for _, q := range []string{
		"insert into t values " + rows,
		"select x from t order by " + strings.Repeat("a nulls first, ", 2000) + "b",
		"select * from a " + strings.Repeat("full join b on x ", 500),
		"select 1 from t where " + strings.Repeat("a is not distinct from b and ", 2000) + "true",
	} {
		start := time.Now()
		if _, err := NewParser().Parse(q); err != nil {
			t.Errorf("%.40s...: %v", q, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%.40s...: took %v", q, d)
		}
	}
}
