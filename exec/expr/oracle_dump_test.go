package expr

import (
	"fmt"
	"os"
	"testing"
)

// TestOracleDump is a scratch harness (removed before hand-off).
func TestOracleDump(t *testing.T) {
	out, err := os.Create("/tmp/oracle/expr_mine.txt")
	if err != nil {
		t.Skip()
	}
	sqlf, _ := os.Create("/tmp/oracle/expr_sql.txt")
	for _, tab := range allCaseTables() {
		for _, c := range tab {
			fmt.Fprintln(sqlf, c.n.sql())
			fmt.Fprintln(out, result(c.n))
		}
	}
}
