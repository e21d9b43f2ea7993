//go:build linux

package tests

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// oracleResult is what one side answered to one statement, as text.
type oracleResult struct {
	cols []string
	rows [][]*string
	tag  string
	code string // SQLSTATE when the statement failed
	msg  string
}

func (r oracleResult) failed() bool { return r.code != "" }

// runPG runs one statement on PostgreSQL (simple protocol: text values).
func runPG(ctx context.Context, conn *pgx.Conn, sql string) oracleResult {
	var res oracleResult
	rows, err := conn.Query(ctx, sql)
	if err == nil {
		for _, fd := range rows.FieldDescriptions() {
			res.cols = append(res.cols, fd.Name)
		}
		for rows.Next() {
			raw := rows.RawValues()
			row := make([]*string, len(raw))
			for i, v := range raw {
				if v != nil {
					s := string(v)
					row[i] = &s
				}
			}
			res.rows = append(res.rows, row)
		}
		rows.Close()
		err = rows.Err()
		res.tag = rows.CommandTag().String()
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return oracleResult{code: pe.Code, msg: pe.Message}
		}
		return oracleResult{code: "conn", msg: err.Error()}
	}
	return res
}

// runSDB runs one statement on streamdb.
func runSDB(ctx context.Context, db *streamdb.DB, sql string) oracleResult {
	rows, err := db.Query(ctx, sql)
	if err != nil {
		return oracleResult{code: pgerr.Code(err), msg: err.Error()}
	}
	var res oracleResult
	for _, c := range rows.Columns {
		res.cols = append(res.cols, c.Name)
	}
	for rows.Next() {
		res.rows = append(res.rows, rows.Text())
	}
	res.tag = rows.Tag
	return res
}

// rowLines renders rows as "v1|v2" lines ("NULL" for nulls), sorted
// unless ordered.
func rowLines(rows [][]*string, ordered bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			if v == nil {
				parts[j] = "NULL"
			} else {
				parts[j] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	if !ordered {
		sort.Strings(out)
	}
	return out
}

// diffResults describes how two results differ, or returns "" when they
// agree: both failed with the same SQLSTATE, or both succeeded with the
// same command tag, columns (when checkCols) and rows.
func diffResults(pg, sdb oracleResult, ordered, checkCols bool) string {
	switch {
	case pg.failed() && sdb.failed():
		if pg.code != sdb.code {
			return fmt.Sprintf("both failed, SQLSTATE differs:\n  postgres: %s %s\n  streamdb: %s %s", pg.code, pg.msg, sdb.code, sdb.msg)
		}
		return ""
	case pg.failed():
		return fmt.Sprintf("postgres failed, streamdb did not:\n  postgres: %s %s\n  streamdb: %s", pg.code, pg.msg, summarize(sdb, ordered))
	case sdb.failed():
		return fmt.Sprintf("streamdb failed, postgres did not:\n  postgres: %s\n  streamdb: %s %s", summarize(pg, ordered), sdb.code, sdb.msg)
	}
	if pg.tag != sdb.tag {
		return fmt.Sprintf("command tag differs: postgres %q, streamdb %q", pg.tag, sdb.tag)
	}
	if checkCols && strings.Join(pg.cols, ",") != strings.Join(sdb.cols, ",") {
		return fmt.Sprintf("column names differ:\n  postgres: %v\n  streamdb: %v", pg.cols, sdb.cols)
	}
	return diffRows(rowLines(pg.rows, ordered), rowLines(sdb.rows, ordered))
}

// diffRows compares row lines; when they differ it lists the rows only
// one side has (or both in full when ordered).
func diffRows(pg, sdb []string) string {
	if strings.Join(pg, "\n") == strings.Join(sdb, "\n") && len(pg) == len(sdb) {
		return ""
	}
	if numericEqual(pg, sdb) {
		return ""
	}
	count := map[string]int{}
	for _, l := range pg {
		count[l]++
	}
	for _, l := range sdb {
		count[l]--
	}
	var onlyPG, onlySDB []string
	for l, n := range count {
		for ; n > 0; n-- {
			onlyPG = append(onlyPG, l)
		}
		for ; n < 0; n++ {
			onlySDB = append(onlySDB, l)
		}
	}
	sort.Strings(onlyPG)
	sort.Strings(onlySDB)
	var b strings.Builder
	fmt.Fprintf(&b, "rows differ (postgres %d rows, streamdb %d rows)", len(pg), len(sdb))
	if len(onlyPG) == 0 && len(onlySDB) == 0 {
		fmt.Fprintf(&b, ", order differs:\n  postgres: %s\n  streamdb: %s", clip(pg), clip(sdb))
		return b.String()
	}
	fmt.Fprintf(&b, "\n  only postgres: %s\n  only streamdb: %s", clip(onlyPG), clip(onlySDB))
	return b.String()
}

// numericEqual is the tolerance rule for values that are not exact: two
// row lists agree when every field is textually equal, or both fields
// parse as numbers in floating-point notation (an exponent, or
// Infinity/NaN) that agree to 12 significant digits. The oracle uses no
// float columns, so this only matters for float-valued functions.
func numericEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		fa, fb := strings.Split(a[i], "|"), strings.Split(b[i], "|")
		if len(fa) != len(fb) {
			return false
		}
		for j := range fa {
			if fa[j] == fb[j] {
				continue
			}
			if !strings.ContainsAny(fa[j]+fb[j], "eE") {
				return false
			}
			x, _, err1 := big.ParseFloat(fa[j], 10, 100, big.ToNearestEven)
			y, _, err2 := big.ParseFloat(fb[j], 10, 100, big.ToNearestEven)
			if err1 != nil || err2 != nil {
				return false
			}
			if x.Text('g', 12) != y.Text('g', 12) {
				return false
			}
		}
	}
	return true
}

func clip(lines []string) string {
	const max = 12
	s := "[" + strings.Join(lines[:min(len(lines), max)], "; ")
	if len(lines) > max {
		s += fmt.Sprintf("; ... %d more", len(lines)-max)
	}
	return s + "]"
}

func summarize(r oracleResult, ordered bool) string {
	if r.tag != "" && len(r.cols) == 0 {
		return r.tag
	}
	return fmt.Sprintf("%s %v", r.tag, clip(rowLines(r.rows, ordered)))
}

// TestPGOracleScript runs the statements of the file named by
// STREAMDB_PG_ORACLE_SCRIPT (one per line; blank lines and -- comments
// skipped) on PostgreSQL and on streamdb and prints both answers: the tool
// for turning a difference the oracle finds into a minimal repro. A
// CREATE MATERIALIZED VIEW runs on both, but PostgreSQL never refreshes
// its copy: compare a streamdb view with its query, not with PostgreSQL's
// view.
func TestPGOracleScript(t *testing.T) {
	file := os.Getenv("STREAMDB_PG_ORACLE_SCRIPT")
	if file == "" {
		t.Skip("set STREAMDB_PG_ORACLE_SCRIPT to a file of SQL statements, one per line")
	}
	script, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg := startPostgres(t)
	conn, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	db := openMem(t)
	for _, line := range strings.Split(string(script), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		p, s := runPG(ctx, conn, line), runSDB(ctx, db, line)
		ordered := strings.Contains(strings.ToUpper(line), "ORDER BY")
		d := diffResults(p, s, ordered, true)
		mark := "same"
		if d != "" {
			mark = "DIFF"
		}
		t.Logf("%s %s\n  postgres: %s\n  streamdb: %s", mark, line, render(p, ordered), render(s, ordered))
	}
}

func render(r oracleResult, ordered bool) string {
	if r.failed() {
		return "ERROR " + r.code + ": " + r.msg
	}
	if len(r.cols) == 0 {
		return r.tag
	}
	return fmt.Sprintf("%v %v", r.cols, rowLines(r.rows, ordered))
}
