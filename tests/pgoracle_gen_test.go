//go:build linux

package tests

import (
	"fmt"
	"math/rand"
	"strings"
)

// The workload generator of the PostgreSQL oracle test (pgoracle_test.go):
// typed random expressions, DML statements and queries over five tables.
// Everything it writes is meant to be deterministic in PostgreSQL: no
// floats (but t4's, only grouped, joined and counted: see
// pgoracle_keys_test.go, and t5's, never summed: see
// pgoracle_rich_test.go), no volatile functions, no order-dependent
// results, divisors guarded by NULLIF, and magnitudes kept well inside
// integer ranges (but t5's).

// pgoSchema is the DDL both sides run.
var pgoSchema = []string{
	"CREATE TABLE t1 (id int PRIMARY KEY, a int, b bigint, n numeric(12,2), s text, f boolean, d date, ts timestamp)",
	"CREATE TABLE t2 (id int PRIMARY KEY, a int, c int, n numeric, s text, d date)",
	"CREATE TABLE t3 (k int, label text, m numeric)", // no primary key
	"CREATE TABLE t4 (id int PRIMARY KEY, a int, iv interval, n numeric, f float8)",
	pgoRichDDL,
}

type pgoCol struct{ name, typ string }

type pgoTable struct {
	name  string
	cols  []pgoCol // first column is the primary key when pk
	pk    bool
	maxID int
}

var pgoTables = []pgoTable{
	{"t1", []pgoCol{{"id", "int"}, {"a", "int"}, {"b", "bigint"}, {"n", "numeric"}, {"s", "text"}, {"f", "bool"}, {"d", "date"}, {"ts", "timestamp"}}, true, 40},
	{"t2", []pgoCol{{"id", "int"}, {"a", "int"}, {"c", "int"}, {"n", "numeric"}, {"s", "text"}, {"d", "date"}}, true, 30},
	{"t3", []pgoCol{{"k", "int"}, {"label", "text"}, {"m", "numeric"}}, false, 0},
	pgoKeyTable,
	pgoRichTable,
}

// pgoGen generates SQL text from a seeded source.
type pgoGen struct {
	rng   *rand.Rand
	scope []pgoCol // columns expressions may use (qualified names)
}

func (g *pgoGen) n(k int) int       { return g.rng.Intn(k) }
func (g *pgoGen) chance(k int) bool { return g.rng.Intn(k) == 0 }

func (g *pgoGen) pick(xs ...string) string { return xs[g.n(len(xs))] }

var pgoTexts = []string{"apple", "Apple", "banana", "cherry pie", "", " padded ", "O'Brien", "ünï", "abc%", "x_y", "Zed", "apple"}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// value returns a literal for a column of table t.
func (g *pgoGen) value(t pgoTable, c pgoCol) string {
	if c.name == "id" {
		return fmt.Sprint(g.n(t.maxID))
	}
	if t.name == pgoKeyTable.name {
		return g.keyValue(c)
	}
	if t.name == pgoRichTable.name {
		return g.richValue(c)
	}
	if g.chance(7) {
		return "NULL"
	}
	switch c.name {
	case "a", "k":
		return fmt.Sprint(g.n(13) - 3)
	case "c":
		return fmt.Sprint(g.n(21))
	case "b":
		if g.chance(3) {
			return fmt.Sprint((g.rng.Int63n(9e12) + 1e9) * int64(1-2*g.n(2)))
		}
		return fmt.Sprint(g.n(2001) - 1000)
	case "n", "m":
		// 0-3 decimals for numeric(12,2) (rounded on store), up to 4 for
		// plain numeric, where the scale written is kept.
		whole := g.n(2000) - 1000
		switch g.n(5) {
		case 0:
			return fmt.Sprint(whole)
		case 1:
			return fmt.Sprintf("%d.%d", whole, g.n(10))
		case 2:
			return fmt.Sprintf("%d.%02d", whole, g.n(100))
		case 3:
			return fmt.Sprintf("%d.%03d", whole/10, g.n(1000))
		default:
			return fmt.Sprintf("%d.%d0", whole/100, g.n(10))
		}
	case "s", "label":
		return quote(pgoTexts[g.n(len(pgoTexts))])
	case "f":
		return g.pick("true", "false")
	case "d":
		return quote(pgoDate(g.n(110) - 40))
	case "ts":
		ts := fmt.Sprintf("%s %02d:%02d:%02d", pgoDate(g.n(110)-40), g.n(24), g.n(60), g.n(60))
		switch g.n(6) {
		case 0:
			ts += ".5"
		case 1:
			ts += fmt.Sprintf(".%06d", g.n(1000000))
		}
		return quote(ts)
	}
	panic("no value for " + c.name)
}

// pgoDate renders 2024-01-01 plus days.
func pgoDate(days int) string {
	y, m, d := 2024, 1, 1+days
	mdays := func(y, m int) int {
		switch m {
		case 2:
			if y%4 == 0 {
				return 29
			}
			return 28
		case 4, 6, 9, 11:
			return 30
		}
		return 31
	}
	for d < 1 {
		m--
		if m == 0 {
			m, y = 12, y-1
		}
		d += mdays(y, m)
	}
	for d > mdays(y, m) {
		d -= mdays(y, m)
		m++
		if m == 13 {
			m, y = 1, y+1
		}
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// cols returns the scope's columns of type typ.
func (g *pgoGen) cols(typ string) []string {
	var out []string
	for _, c := range g.scope {
		if c.typ == typ {
			out = append(out, c.name)
		}
	}
	return out
}

func (g *pgoGen) col(typ string) (string, bool) {
	cs := g.cols(typ)
	if len(cs) == 0 {
		return "", false
	}
	return cs[g.n(len(cs))], true
}

// expr returns an expression of type typ ("int", "bigint", "numeric",
// "text", "bool", "date", "timestamp", or one of pgoRichTypes) over the
// scope.
func (g *pgoGen) expr(typ string, depth int) string {
	if pgoRichTypes[typ] {
		return g.richExpr(typ, depth)
	}
	if depth <= 0 || g.chance(3) {
		if c, ok := g.col(typ); ok && !g.chance(5) {
			return c
		}
		return g.literal(typ)
	}
	d := depth - 1
	if e, ok := g.richOf(typ, d); ok {
		return e
	}
	switch typ {
	case "int":
		switch g.n(14) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr("int", d), g.expr("int", d))
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr("int", d), g.expr("int", d))
		case 2:
			return fmt.Sprintf("(%s * %d)", g.expr("int", d), g.n(7)-2)
		case 3:
			return fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("int", d), g.expr("int", d))
		case 4:
			return fmt.Sprintf("(%s %% NULLIF(%s, 0))", g.expr("int", d), g.expr("int", d))
		case 5:
			return fmt.Sprintf("abs(%s)", g.expr("int", d))
		case 6:
			return fmt.Sprintf("length(%s)", g.expr("text", d))
		case 7:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("int", d), g.expr("int", d))
		case 8:
			return fmt.Sprintf("NULLIF(%s, %d)", g.expr("int", d), g.n(5))
		case 9:
			return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.expr("int", d), g.expr("int", d))
		case 10:
			return fmt.Sprintf("(%s - %s)", g.expr("date", d), g.expr("date", d))
		case 11: // rounds half away from zero
			return fmt.Sprintf("CAST(%s::numeric / 4 AS integer)", g.expr("int", d))
		case 12:
			return fmt.Sprintf("%s(%s, %s)", g.pick("GREATEST", "LEAST"), g.expr("int", d), g.expr("int", d))
		default:
			return fmt.Sprintf("-(%s)", g.expr("int", d))
		}
	case "bigint":
		switch g.n(7) {
		case 6:
			return fmt.Sprintf("CAST(%s AS bigint)", g.expr("numeric", d))
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr("bigint", d), g.expr("int", d))
		case 1:
			return fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("bigint", d), g.expr("int", d))
		case 2:
			return fmt.Sprintf("(%s %% 1000)", g.expr("bigint", d))
		case 3:
			return fmt.Sprintf("%s::bigint", g.expr("int", d))
		case 4:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("bigint", d), g.expr("int", d))
		default:
			return fmt.Sprintf("(%s * %d)", g.expr("bigint", d), g.n(5)-2)
		}
	case "numeric":
		switch g.n(12) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr("numeric", d), g.expr(g.pick("numeric", "int"), d))
		case 1:
			return fmt.Sprintf("(%s * %s)", g.expr("numeric", d), g.pick("2", "0.5", "-1.25", "3"))
		case 2:
			return fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("numeric", d), g.expr(g.pick("numeric", "int"), d))
		case 3:
			return fmt.Sprintf("round(%s, %d)", g.expr("numeric", d), g.n(4))
		case 4:
			return fmt.Sprintf("%s(%s)", g.pick("trunc", "round", "abs", "ceil", "floor"), g.expr("numeric", d))
		case 5:
			return fmt.Sprintf("CAST(%s AS numeric)", g.expr(g.pick("int", "bigint"), d))
		case 6:
			return fmt.Sprintf("extract(%s from %s)", g.pick("year", "month", "day"), g.expr("date", d))
		case 7:
			return fmt.Sprintf("extract(%s from %s)", g.pick("hour", "minute", "second", "day"), g.expr("timestamp", d))
		case 8:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("numeric", d), g.literal("numeric"))
		case 9:
			return fmt.Sprintf("(%s %% %s)", g.expr("numeric", d), g.pick("3", "0.7", "2.5"))
		case 10:
			return fmt.Sprintf("%s::numeric / %d", g.expr("int", d), 1+g.n(7))
		default:
			return fmt.Sprintf("(%s - %s)", g.expr("numeric", d), g.expr("numeric", d))
		}
	case "text":
		switch g.n(13) {
		case 0:
			return fmt.Sprintf("upper(%s)", g.expr("text", d))
		case 1:
			return fmt.Sprintf("lower(%s)", g.expr("text", d))
		case 2:
			return fmt.Sprintf("(%s || %s)", g.expr("text", d), g.expr("text", d))
		case 3:
			return fmt.Sprintf("(%s || %s)", g.expr("text", d), g.expr(g.pick("int", "numeric", "date", "bool"), d))
		case 4:
			return fmt.Sprintf("substr(%s, %d, %d)", g.expr("text", d), g.n(4), g.n(4))
		case 5:
			return fmt.Sprintf("replace(%s, %s, %s)", g.expr("text", d), g.pick("'a'", "'p'", "' '"), g.pick("'xy'", "''", "'A'"))
		case 6:
			return fmt.Sprintf("trim(%s)", g.expr("text", d))
		case 7:
			return fmt.Sprintf("%s(%s, %d)", g.pick("left", "right"), g.expr("text", d), g.n(5)-1)
		case 8:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("text", d), g.literal("text"))
		case 9:
			return fmt.Sprintf("CAST(%s AS text)", g.expr(g.pick("int", "bigint", "numeric", "date", "timestamp", "bool"), d))
		case 10:
			return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.expr("text", d), g.expr("text", d))
		case 11:
			return fmt.Sprintf("lpad(%s, %d, '*')", g.expr("text", d), g.n(8))
		default:
			return fmt.Sprintf("concat(%s, %s)", g.expr("text", d), g.expr(g.pick("int", "text", "numeric"), d))
		}
	case "bool":
		switch g.n(12) {
		case 0, 1:
			t := g.pick("int", "int", "bigint", "numeric", "text", "date", "timestamp")
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.pick("=", "<>", "<", "<=", ">", ">="), g.expr(t, d))
		case 2:
			return fmt.Sprintf("(%s AND %s)", g.expr("bool", d), g.expr("bool", d))
		case 3:
			return fmt.Sprintf("(%s OR %s)", g.expr("bool", d), g.expr("bool", d))
		case 4:
			return fmt.Sprintf("(NOT %s)", g.expr("bool", d))
		case 5:
			t := g.pick("int", "text", "numeric", "date", "bool")
			return fmt.Sprintf("(%s IS %sNULL)", g.expr(t, d), g.pick("", "NOT "))
		case 6:
			return fmt.Sprintf("(%s BETWEEN %d AND %d)", g.expr("int", d), g.n(6)-3, g.n(8))
		case 7:
			vals := []string{fmt.Sprint(g.n(10) - 3), fmt.Sprint(g.n(10) - 3)}
			if g.chance(3) {
				vals = append(vals, "NULL")
			}
			return fmt.Sprintf("(%s %sIN (%s))", g.expr("int", d), g.pick("", "NOT "), strings.Join(vals, ", "))
		case 8:
			return fmt.Sprintf("(%s %s %s)", g.expr("text", d), g.pick("LIKE", "NOT LIKE", "ILIKE"), g.pick("'a%'", "'%e%'", "'_pple'", "'%'", "'O%'", "'%i_'"))
		case 9:
			return fmt.Sprintf("(%s IS %s)", g.expr("bool", d), g.pick("TRUE", "NOT TRUE", "FALSE", "NOT FALSE", "UNKNOWN"))
		case 10:
			t := g.pick("int", "text", "date")
			// The right side in parentheses; the unparenthesized form
			// is covered by pgoFixedQueries (distinct_from_left).
			return fmt.Sprintf("(%s IS %sDISTINCT FROM (%s))", g.expr(t, d), g.pick("", "NOT "), g.expr(t, d))
		default:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("bool", d), g.pick("true", "false"))
		}
	case "date":
		switch g.n(5) {
		case 0:
			return fmt.Sprintf("(%s + %d)", g.expr("date", d), g.n(60)-20)
		case 1:
			return fmt.Sprintf("(%s - %s)", g.expr("date", d), g.expr("int", d))
		case 2:
			return fmt.Sprintf("CAST(%s AS date)", g.expr("timestamp", d))
		case 3:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("date", d), g.literal("date"))
		default:
			return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.expr("date", d), g.expr("date", d))
		}
	case "timestamp":
		switch g.n(5) {
		case 0:
			return fmt.Sprintf("(%s %s interval '%s')", g.expr("timestamp", d), g.pick("+", "-"), g.pick("1 day", "2 hours", "1 month", "90 minutes", "1 year 2 mons", "36 hours"))
		case 1:
			return fmt.Sprintf("(%s + interval '%s')", g.expr("date", d), g.pick("1 month", "12 hours", "1 day"))
		case 2:
			return fmt.Sprintf("CAST(%s AS timestamp)", g.expr("date", d))
		case 3:
			return fmt.Sprintf("date_trunc('%s', %s)", g.pick("day", "month", "hour", "year", "minute"), g.expr("timestamp", d))
		default:
			return fmt.Sprintf("COALESCE(%s, %s)", g.expr("timestamp", d), g.literal("timestamp"))
		}
	}
	panic("no expression of type " + typ)
}

func (g *pgoGen) literal(typ string) string {
	switch typ {
	case "int":
		return fmt.Sprint(g.n(12) - 3)
	case "bigint":
		return g.pick("0", "1000", "-5", "10000000000")
	case "numeric":
		return g.pick("1.5", "0.25", "-3", "100.125", "2.50", "0")
	case "text":
		return quote(g.pick("apple", "x", "", "Apple", "cherry pie"))
	case "bool":
		return g.pick("true", "false", "NULL::boolean")
	case "date":
		return "DATE " + quote(pgoDate(g.n(100)-30))
	case "timestamp":
		return "TIMESTAMP " + quote(pgoDate(g.n(100)-30)+" 12:30:00")
	}
	panic(typ)
}

func (g *pgoGen) withScope(scope []pgoCol, f func() string) string {
	old := g.scope
	g.scope = scope
	defer func() { g.scope = old }()
	return f()
}

// tableScope returns t's columns as expression scope, qualified by alias
// when alias is not empty. numeric(12,2) and numeric share a type here.
func tableScope(t pgoTable, alias string) []pgoCol {
	var out []pgoCol
	for _, c := range t.cols {
		name := c.name
		if alias != "" {
			name = alias + "." + c.name
		}
		out = append(out, pgoCol{name, c.typ})
	}
	return out
}

// dml returns one random INSERT, UPDATE or DELETE.
func (g *pgoGen) dml() string {
	t := pgoTables[g.n(len(pgoTables))]
	switch r := g.n(100); {
	case r < 38: // INSERT VALUES, 1-4 rows, all or some columns
		cols := t.cols
		if g.chance(4) {
			cols = nil
			for i, c := range t.cols {
				if i == 0 || g.chance(2) {
					cols = append(cols, c)
				}
			}
			g.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		}
		var rows []string
		for i := 0; i < 1+g.n(4); i++ {
			var vals []string
			for _, c := range cols {
				vals = append(vals, g.value(t, c))
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
		list := ""
		if len(cols) != len(t.cols) {
			var names []string
			for _, c := range cols {
				names = append(names, c.name)
			}
			list = " (" + strings.Join(names, ", ") + ")"
		}
		return fmt.Sprintf("INSERT INTO %s%s VALUES %s", t.name, list, strings.Join(rows, ", "))
	case r < 44: // INSERT ... SELECT into t3
		src := pgoTables[g.n(2)]
		lo := g.n(src.maxID)
		return fmt.Sprintf("INSERT INTO t3 SELECT a, s, n FROM %s WHERE id BETWEEN %d AND %d", src.name, lo, lo+g.n(4))
	case r < 70: // UPDATE of one or two non-key columns
		var sets []string
		set := map[string]bool{}
		for i := 0; i < 1+g.n(2); i++ {
			c := t.cols[1+g.n(len(t.cols)-1)]
			if !t.pk {
				c = t.cols[g.n(len(t.cols))]
			}
			if set[c.name] {
				continue
			}
			set[c.name] = true
			e := g.withScope(tableScope(t, ""), func() string { return g.updateExpr(t, c) })
			sets = append(sets, c.name+" = "+e)
		}
		return fmt.Sprintf("UPDATE %s SET %s WHERE %s", t.name, strings.Join(sets, ", "), g.dmlPred(t))
	case r < 74: // move a row to another key
		if !t.pk {
			return fmt.Sprintf("UPDATE t3 SET k = %d WHERE k = %d", g.n(13)-3, g.n(13)-3)
		}
		return fmt.Sprintf("UPDATE %s SET id = %d WHERE id = %d", t.name, g.n(t.maxID), g.n(t.maxID))
	case r < 94:
		if !t.pk && g.chance(2) {
			return fmt.Sprintf("DELETE FROM t3 WHERE k = %d OR k IS NULL", g.n(13)-3)
		}
		return fmt.Sprintf("DELETE FROM %s WHERE %s", t.name, g.dmlPred(t))
	default: // statements that fail in PostgreSQL, or may
		if t.name == pgoRichTable.name {
			return pgoRichFailing[g.n(len(pgoRichFailing))]
		}
		return g.pick(
			"INSERT INTO t1 (id, a) VALUES (NULL, 1)",
			"INSERT INTO t1 (id, a) VALUES (1000, 'x1')",
			"INSERT INTO t2 (id, d) VALUES (1000, '2024-02-30')",
			"INSERT INTO t1 (id, n) VALUES (1000, 123456789012.5)",
			fmt.Sprintf("UPDATE t1 SET a = a / 0 WHERE id = %d", g.n(40)),
			fmt.Sprintf("UPDATE t1 SET a = a * 100000 WHERE id = %d AND a <> 0", g.n(40)),
			fmt.Sprintf("INSERT INTO t2 VALUES (%d, 1, 1, 1, 'dup', NULL), (%[1]d, 2, 2, 2, 'dup', NULL)", 100+g.n(5)),
			"UPDATE t2 SET c = c + 2147483647 WHERE c > 0",
			"INSERT INTO t1 (id, b) VALUES (1000, 9223372036854775808)",
		)
	}
}

// updateExpr is a new value for column c of t.
func (g *pgoGen) updateExpr(t pgoTable, c pgoCol) string {
	if t.name == pgoKeyTable.name {
		return g.keyUpdateExpr(c)
	}
	if t.name == pgoRichTable.name {
		return g.richUpdateExpr(c)
	}
	if g.chance(3) {
		return g.value(t, c)
	}
	switch c.name {
	case "a", "k":
		return strings.ReplaceAll(g.pick("a + 1", "a - 2", "COALESCE(a, 0) + 1", "-a", "a % 5", "NULL"), "a", c.name)
	case "s", "label":
		return g.pick(c.name+" || 'x'", "upper("+c.name+")", "substr("+c.name+", 2)", "NULL", "'zz'")
	}
	if c.typ == "int" && t.name == "t2" {
		return g.pick("c + 1", "c * 2 % 17", "abs(c - 10)")
	}
	return g.expr(c.typ, 2)
}

// dmlPred is a WHERE clause for an UPDATE or DELETE: mostly narrow.
func (g *pgoGen) dmlPred(t pgoTable) string {
	key := t.cols[0].name
	switch g.n(6) {
	case 0, 1:
		if t.pk {
			return fmt.Sprintf("id = %d", g.n(t.maxID))
		}
		return fmt.Sprintf("k = %d", g.n(13)-3)
	case 2:
		return fmt.Sprintf("%s %% %d = %d", key, 3+g.n(5), g.n(3))
	case 3:
		lo := g.n(t.maxID + 10)
		return fmt.Sprintf("%s BETWEEN %d AND %d", key, lo, lo+2)
	default:
		return g.withScope(tableScope(t, ""), func() string { return g.expr("bool", 2) })
	}
}

// pgoQuery is one query the oracle compares.
type pgoQuery struct {
	name    string
	sql     string
	ordered bool   // ORDER BY: compared in order, and made a view only with a LIMIT
	known   string // a known difference: why (see pgoFixedQueries)
	// keepView keeps the view of a known difference that shows only
	// after later writes (the views of the others are dropped).
	keepView bool
	// noView: compared as a query only (a projection row by row, whose
	// functions the random queries also make views of; fewer views keep
	// the default run short).
	noView bool
}

// queries returns the random queries of this seed (the fixed ones are in
// pgoFixedQueries).
func (g *pgoGen) queries(n int) []pgoQuery {
	var out []pgoQuery
	for i := 0; len(out) < n; i++ {
		q := g.query()
		q.name = fmt.Sprintf("rq%d", i)
		out = append(out, q)
	}
	return out
}

var pgoJoins = []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}

func (g *pgoGen) query() pgoQuery {
	if g.chance(3) {
		return g.richQuery()
	}
	if g.chance(5) {
		return g.keyQuery()
	}
	t := pgoTables[g.n(2)]
	single := tableScope(t, "")
	from := t.name
	scope := single
	joinPart := func() {
		u := pgoTables[1+g.n(2)] // t2 or t3
		on := "x.a = y.a"
		if u.name == "t3" {
			on = "x.a = y.k"
		}
		if g.chance(3) {
			on += " AND " + g.withScope(append(tableScope(t, "x"), tableScope(u, "y")...), func() string { return g.expr("bool", 1) })
		}
		from = fmt.Sprintf("%s x %s %s y ON %s", t.name, pgoJoins[g.n(len(pgoJoins))], u.name, on)
		scope = append(tableScope(t, "x"), tableScope(u, "y")...)
	}
	g.scope = scope
	defer func() { g.scope = nil }()
	where := func() string {
		if g.chance(3) {
			return ""
		}
		return " WHERE " + g.expr("bool", 2)
	}
	types := []string{"int", "int", "bigint", "numeric", "text", "text", "bool", "date", "timestamp"}
	outputs := func(k int) []string {
		var out []string
		for i := 0; i < k; i++ {
			out = append(out, fmt.Sprintf("%s AS c%d", g.expr(types[g.n(len(types))], 2), i+1))
		}
		return out
	}
	switch g.n(12) {
	case 10, 11: // window functions, Top-N and DISTINCT ON
		return g.windowQuery(t, types)
	case 9: // subqueries: [NOT] EXISTS and IN (semi and anti joins in
		// views, or left joins where they are values), NOT IN, and scalar
		// subqueries, correlated or not
		u := pgoTables[1+g.n(2)] // t2 or t3
		ukey := "a"
		if u.name == "t3" {
			ukey = "k"
		}
		outer := tableScope(t, "x")
		g.scope = outer
		outs := []string{"x.id AS c0"}
		for i := range 1 + g.n(2) {
			outs = append(outs, fmt.Sprintf("%s AS c%d", g.expr(types[g.n(len(types))], 1), i+1))
		}
		outerWhere := ""
		if g.chance(3) {
			outerWhere = " AND " + g.expr("bool", 1)
		}
		var sub string
		switch g.n(6) {
		case 3: // scalar subqueries, correlated and not, as values
			var subs []string
			for i := range 1 + g.n(2) {
				g.scope = tableScope(u, "y")
				agg := g.agg()
				cond := ""
				if g.chance(2) {
					cond = fmt.Sprintf(" WHERE y.%s = x.a", ukey)
					if g.chance(2) {
						cond += " AND " + g.expr("bool", 1)
					}
				} else if g.chance(2) {
					cond = " WHERE " + g.expr("bool", 1)
				}
				having := ""
				if g.chance(5) {
					having = fmt.Sprintf(" HAVING count(*) > %d", g.n(2))
				}
				subs = append(subs, fmt.Sprintf("(SELECT %s FROM %s y%s%s) AS s%d", agg, u.name, cond, having, i))
			}
			g.scope = outer
			if g.chance(2) {
				outerWhere = " AND x.a > (SELECT min(y." + ukey + ") FROM " + u.name + " y)"
			}
			return pgoQuery{sql: fmt.Sprintf("SELECT %s, %s FROM %s x WHERE true%s", strings.Join(outs, ", "), strings.Join(subs, ", "), t.name, outerWhere)}
		case 4: // [NOT] IN and EXISTS as values, and under OR
			where := ""
			if g.chance(2) {
				g.scope = tableScope(u, "y")
				where = " WHERE " + g.expr("bool", 1)
			}
			g.scope = outer
			in := fmt.Sprintf("%s %sIN (SELECT y.%s FROM %s y%s)", g.pick("x.a", "x.id", "x.a + 1"), g.pick("", "NOT "), ukey, u.name, where)
			exists := fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s y WHERE y.%s = x.a%s)", g.pick("", "NOT "), u.name, ukey, strings.ReplaceAll(where, " WHERE ", " AND "))
			if g.chance(2) {
				outs = append(outs, in+" AS i", exists+" AS e")
				return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s x WHERE true%s", strings.Join(outs, ", "), t.name, outerWhere)}
			}
			return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s x WHERE %s OR %s", strings.Join(outs, ", "), t.name, g.pick(in, exists, "x.a > 5"), g.pick(in, exists))}
		case 5: // NOT IN in WHERE
			where := ""
			if g.chance(2) {
				g.scope = tableScope(u, "y")
				where = " WHERE " + g.expr("bool", 1)
			}
			sub = fmt.Sprintf("x.a NOT IN (SELECT y.%s FROM %s y%s)", ukey, u.name, where)
		case 0, 1:
			inner := fmt.Sprintf("y.%s = x.a", ukey)
			if g.chance(2) {
				g.scope = tableScope(u, "y")
				inner += " AND " + g.expr("bool", 1)
			}
			if g.chance(3) {
				g.scope = append(tableScope(t, "x"), tableScope(u, "y")...)
				inner += " AND " + g.expr("bool", 1)
			}
			sub = fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s y WHERE %s)", g.pick("", "NOT "), u.name, inner)
		default:
			where := ""
			if g.chance(2) {
				g.scope = tableScope(u, "y")
				where = " WHERE " + g.expr("bool", 1)
			}
			sub = fmt.Sprintf("x.a IN (SELECT y.%s FROM %s y%s)", ukey, u.name, where)
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s x WHERE %s%s", strings.Join(outs, ", "), t.name, sub, outerWhere)}
	case 8: // set operations: branches of the same output types
		// (no numeric: of equal values that differ in scale, which one
		// INTERSECT or UNION shows is up to the plan).
		var ts []string
		for range 1 + g.n(2) {
			ts = append(ts, g.pick("int", "bigint", "text", "bool", "date"))
		}
		branch := func() string {
			bt := pgoTables[g.n(2)]
			g.scope = tableScope(bt, "")
			var outs []string
			for i, typ := range ts {
				outs = append(outs, fmt.Sprintf("%s AS c%d", g.expr(typ, 1), i+1))
			}
			return fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(outs, ", "), bt.name, where())
		}
		// A branch of constant rows (VALUES), of literals cast to the
		// branch types.
		values := func() string {
			var rows, names []string
			for range 1 + g.n(3) {
				var vals []string
				for _, typ := range ts {
					vals = append(vals, g.literal(typ)+"::"+typ)
				}
				rows = append(rows, "("+strings.Join(vals, ", ")+")")
			}
			for i := range ts {
				names = append(names, fmt.Sprintf("c%d", i+1))
			}
			return fmt.Sprintf("SELECT * FROM (VALUES %s) AS v(%s)", strings.Join(rows, ", "), strings.Join(names, ", "))
		}
		q := branch()
		for range 1 + g.n(2) {
			next := branch
			if g.chance(4) {
				next = values
			}
			q += " " + g.pick("UNION ALL", "UNION", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL") + " " + next()
		}
		return pgoQuery{sql: q}
	case 0, 1: // projection and filter
		if g.chance(5) { // a set-returning function: select list or FROM
			lo, hi := g.pick("0", "1", "a % 3", "-1"), g.pick("a % 4", "2", "id % 3", "NULL::int")
			if g.chance(2) {
				return pgoQuery{sql: fmt.Sprintf("SELECT id, generate_series(%s, %s) AS g, %s AS c1 FROM %s%s", lo, hi, g.expr("int", 1), t.name, where())}
			}
			g.scope = append(tableScope(t, "x"), pgoCol{"g", "int"})
			return pgoQuery{sql: fmt.Sprintf("SELECT x.id, g, %s AS c1 FROM %s x, generate_series(%s, %s) AS g%s",
				g.expr("int", 1), t.name, qualify(lo, "x"), qualify(hi, "x"), where())}
		}
		if g.chance(3) {
			joinPart()
			g.scope = scope
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(outputs(1+g.n(3)), ", "), from, where())}
	case 2, 3: // GROUP BY with aggregates and maybe HAVING
		if g.chance(3) {
			joinPart()
			g.scope = scope
		}
		gt := g.pick("int", "text", "bool", "date", "int")
		key := g.expr(gt, 1)
		aggs := []string{"count(*) AS cnt"}
		for i := 0; i < 1+g.n(4); i++ {
			aggs = append(aggs, fmt.Sprintf("%s AS a%d", g.agg(), i+1))
		}
		having := ""
		if g.chance(3) {
			having = fmt.Sprintf(" HAVING count(*) %s %d", g.pick(">", ">=", "<"), 1+g.n(3))
			if g.chance(2) {
				having += fmt.Sprintf(" OR %s IS NULL", g.agg())
			}
		}
		groupBy := g.pick(key, key, "1", "g")
		return pgoQuery{sql: fmt.Sprintf("SELECT %s AS g, %s FROM %s%s GROUP BY %s%s", key, strings.Join(aggs, ", "), from, where(), groupBy, having)}
	case 4: // global aggregate
		var aggs []string
		for i := 0; i < 1+g.n(4); i++ {
			aggs = append(aggs, fmt.Sprintf("%s AS a%d", g.agg(), i+1))
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT count(*) AS cnt, %s FROM %s%s", strings.Join(aggs, ", "), from, where())}
	case 5: // DISTINCT
		if g.chance(3) {
			joinPart()
			g.scope = scope
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT DISTINCT %s FROM %s%s", strings.Join(outputs(1+g.n(2)), ", "), from, where())}
	default: // ORDER BY every output column, LIMIT/OFFSET
		if g.chance(3) {
			joinPart()
			g.scope = scope
		}
		outs := outputs(1 + g.n(3))
		var keys []string
		for i := range outs {
			keys = append(keys, fmt.Sprintf("c%d%s", i+1, g.pick("", " DESC", " ASC", " NULLS FIRST", " DESC NULLS LAST")))
		}
		g.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		distinct := ""
		if g.chance(4) {
			distinct = "DISTINCT "
		}
		limit := ""
		switch g.n(3) {
		case 0:
			limit = fmt.Sprintf(" LIMIT %d", 1+g.n(10))
		case 1:
			limit = fmt.Sprintf(" LIMIT %d OFFSET %d", 1+g.n(10), g.n(10))
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT %s%s FROM %s%s ORDER BY %s%s", distinct, strings.Join(outs, ", "), from, where(), strings.Join(keys, ", "), limit), ordered: true}
	}
}

// windowQuery returns a query of window functions over t (t1 or t2, with
// an id key), or a Top-N of one. Every window's ORDER BY ends with id, so
// the results do not depend on how PostgreSQL orders peers; no function
// returns a float.
func (g *pgoGen) windowQuery(t pgoTable, types []string) pgoQuery {
	g.scope = tableScope(t, "")
	part := ""
	if !g.chance(3) {
		part = "PARTITION BY " + g.expr(g.pick("int", "text", "bool", "int"), 1) + " "
	}
	order := func() string {
		var keys []string
		for range g.n(3) {
			keys = append(keys, g.expr(g.pick("int", "text", "date", "bigint"), 1)+g.pick("", " DESC", " NULLS FIRST", " DESC NULLS LAST"))
		}
		return strings.Join(append(keys, "id"+g.pick("", " DESC")), ", ")
	}
	win := func() string { return "(" + part + "ORDER BY " + order() + ")" }
	frame := func() string {
		switch g.n(5) {
		case 0:
			return fmt.Sprintf(" ROWS BETWEEN %d PRECEDING AND %d FOLLOWING", g.n(3), g.n(3))
		case 1:
			return " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		case 2:
			return " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"
		case 3:
			return fmt.Sprintf(" ROWS BETWEEN %d FOLLOWING AND %d FOLLOWING", 1+g.n(2), 3+g.n(2))
		}
		return ""
	}
	fn := func() string {
		typ := g.pick("int", "bigint", "numeric", "text", "date")
		switch g.n(9) {
		case 0:
			return "row_number() OVER " + win()
		case 1:
			return g.pick("rank", "dense_rank") + "() OVER " + win()
		case 2:
			return fmt.Sprintf("ntile(%d) OVER %s", 1+g.n(4), win())
		case 3:
			def, val := "", g.expr(typ, 1)
			if g.chance(2) {
				// The value and the default resolve to their common
				// type, an int value with a bigint default to bigint
				// (lag_default_type).
				def = ", " + g.literal(typ)
			}
			return fmt.Sprintf("%s(%s, %d%s) OVER %s", g.pick("lag", "lead"), val, g.n(3), def, win())
		case 4:
			w := win()
			if f := frame(); f != "" {
				w = w[:len(w)-1] + f + ")"
			}
			if g.chance(3) {
				return fmt.Sprintf("nth_value(%s, %d) OVER %s", g.expr(typ, 1), 1+g.n(3), w)
			}
			return fmt.Sprintf("%s(%s) OVER %s", g.pick("first_value", "last_value"), g.expr(typ, 1), w)
		case 5:
			return "count(*) OVER (" + strings.TrimSuffix(part, " ") + ")"
		}
		w := win()
		if f := frame(); f != "" {
			w = w[:len(w)-1] + f + ")"
		}
		if typ == "text" || typ == "date" {
			return fmt.Sprintf("%s(%s) OVER %s", g.pick("min", "max", "count"), g.expr(typ, 1), w)
		}
		return fmt.Sprintf("%s(%s) OVER %s", g.pick("sum", "avg", "min", "max", "count"), g.expr(typ, 1), w)
	}
	where := ""
	if g.chance(3) {
		where = " WHERE " + g.expr("bool", 2)
	}
	switch g.n(4) {
	case 0: // a Top-N of a ranking function
		outs := []string{"id AS c0", g.expr(types[g.n(len(types))], 1) + " AS c1"}
		rank := g.pick("row_number", "rank", "dense_rank")
		cmp := g.pick(fmt.Sprintf("r <= %d", 1+g.n(4)), fmt.Sprintf("r < %d", 2+g.n(3)), "r = 1")
		return pgoQuery{sql: fmt.Sprintf("SELECT * FROM (SELECT %s, %s() OVER %s AS r FROM %s%s) x WHERE %s",
			strings.Join(outs, ", "), rank, win(), t.name, where, cmp)}
	case 1: // DISTINCT ON
		key := g.expr(g.pick("int", "text", "bool"), 1)
		if pgoBareLiteral.MatchString(key) && !pgoIntLiteral.MatchString(key) {
			// A constant other than an integer (a column position,
			// distinct_on_position) is an error.
			key = g.pick("a", "s")
		}
		return pgoQuery{sql: fmt.Sprintf("SELECT DISTINCT ON (%s) %s AS c0, id AS c1, %s AS c2 FROM %s%s ORDER BY %s, %s",
			key, key, g.expr(types[g.n(len(types))], 1), t.name, where, key, order())}
	}
	outs := []string{"id AS c0"}
	for i := range 1 + g.n(3) {
		outs = append(outs, fmt.Sprintf("%s AS c%d", fn(), i+1))
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(outs, ", "), t.name, where)}
}

// agg returns an aggregate call over the scope.
func (g *pgoGen) agg() string {
	t := g.pick("int", "bigint", "numeric", "text", "date", "timestamp", "bool")
	switch t {
	case "text", "date", "timestamp":
		if g.chance(3) {
			return fmt.Sprintf("count(DISTINCT %s)", g.expr(t, 1))
		}
		return fmt.Sprintf("%s(%s)", g.pick("min", "max", "count"), g.expr(t, 1))
	case "bool":
		return fmt.Sprintf("count(%s)", g.expr("bool", 1))
	}
	if g.chance(6) {
		return fmt.Sprintf("count(DISTINCT %s)", g.expr(t, 1))
	}
	return fmt.Sprintf("%s(%s)", g.pick("sum", "avg", "min", "max", "count"), g.expr(t, 1))
}

// qualify prefixes the column names a and id of a series bound with alias.
func qualify(e, alias string) string {
	r := strings.NewReplacer("a %", alias+".a %", "id %", alias+".id %")
	return r.Replace(e)
}
