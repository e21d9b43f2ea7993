//go:build linux

package tests

import (
	"fmt"
	"strings"
)

// Key types in the PostgreSQL oracle: table t4 holds values that are equal
// in SQL but spelled differently (intervals '1 mon' = '30 days' = '720
// hours', numerics 1 = 1.0 = 1.00, floats 0 = -0, NaN = NaN), and the
// queries group, join and count DISTINCT on them, so a view that keys
// such values by their spelling differs from PostgreSQL.
//
// A group shows one of its spellings, and which one is PostgreSQL's
// choice of row order; so the queries output a key through an expression
// equal for every spelling: extract(epoch from iv) (the span: no
// spelling has 12 months or more, where epoch counts a year as 365.25
// days), round(n, 3) (no value has more than 2 decimals), f + 0 (-0 + 0
// is 0). Floats are only grouped, joined and counted, never summed.

// pgoKeyTable is t4 (see pgoSchema).
var pgoKeyTable = pgoTable{"t4", []pgoCol{{"id", "int"}, {"a", "int"}, {"iv", "interval"}, {"n", "numeric"}, {"f", "float"}}, true, 30}

// The spellings of t4's values: each line of a list is one value.
var (
	pgoIntervals = []string{
		"'1 mon'", "'30 days'", "'720 hours'", "'29 days 24:00:00'",
		"'1 day'", "'24 hours'", "'1440 minutes'", "'86400 seconds'",
		"'2 mons'", "'60 days'", "'1 mon 30 days'",
		"'00:00:00'", "'1 mon -30 days'", "'1 day -24:00:00'",
		"'-1 day'", "'-24:00:00'",
		"'36 hours'", "'1 day 12:00:00'",
		"'1 mon 1 day'", "'31 days'",
		"'3000000 hours'", "'125000 days'", // past 292 years of nanoseconds
	}
	pgoKeyNumerics = []string{"1", "1.0", "1.00", "2.5", "2.50", "0", "0.00", "-0.0", "-1.5", "-1.50", "'NaN'"}
	pgoFloats      = []string{"0", "'-0'", "'NaN'", "1.5", "-1.5", "'Infinity'", "'-Infinity'", "2"}
)

// keyValue returns a literal for column c of t4.
func (g *pgoGen) keyValue(c pgoCol) string {
	if g.chance(8) {
		return "NULL"
	}
	switch c.name {
	case "iv":
		return pgoIntervals[g.n(len(pgoIntervals))]
	case "n":
		return pgoKeyNumerics[g.n(len(pgoKeyNumerics))]
	case "f":
		return pgoFloats[g.n(len(pgoFloats))]
	}
	return fmt.Sprint(g.n(7) - 2) // a
}

// keyUpdateExpr is a new value for column c of t4: another spelling of
// the value, or of another one.
func (g *pgoGen) keyUpdateExpr(c pgoCol) string {
	if g.chance(2) {
		return g.keyValue(c)
	}
	switch c.name {
	case "iv":
		return g.pick("iv + interval '1 day'", "iv - interval '24 hours'", "-iv", "iv + interval '1 mon' - interval '30 days'")
	case "n":
		return g.pick("n * 1.0", "n + 0.00", "-n", "round(n, 1)", "trunc(n)")
	case "f":
		return g.pick("-f", "f * 2", "f + 0", "-f * 0")
	}
	return g.pick("a + 1", "a - 1", "NULL")
}

// pgoKeyQueries are the fixed queries over t4.
var pgoKeyQueries = []pgoQuery{
	{name: "key_group_iv", sql: "SELECT extract(epoch from iv) AS e, count(*) AS c, count(DISTINCT n) AS cn, sum(a) AS sa FROM t4 GROUP BY iv"},
	{name: "key_group_n", sql: "SELECT round(n, 3) AS r, count(*) AS c, count(DISTINCT iv) AS civ FROM t4 GROUP BY n"},
	{name: "key_group_f", sql: "SELECT f + 0 AS g, count(*) AS c, count(DISTINCT iv) AS civ, count(DISTINCT n) AS cn FROM t4 GROUP BY f"},
	{name: "key_group_all", sql: "SELECT count(*) AS c, sum(a) AS sa FROM t4 GROUP BY iv, n, f"},
	{name: "key_distinct", sql: "SELECT count(*) AS c, count(DISTINCT iv) AS civ, count(DISTINCT n) AS cn, count(DISTINCT f) AS cf FROM t4"},
	{name: "key_join_iv", sql: "SELECT x.id, y.id AS yid FROM t4 x JOIN t4 y ON x.iv = y.iv"},
	{name: "key_join_nf", sql: "SELECT x.id, y.id AS yid FROM t4 x LEFT JOIN t4 y ON x.n = y.n AND x.f = y.f"},
	{name: "key_join_t1", sql: "SELECT x.id, y.id AS yid FROM t1 x FULL JOIN t4 y ON x.n = y.n"},
	{name: "key_join_group", sql: "SELECT extract(epoch from x.iv) AS e, count(*) AS c, count(DISTINCT y.f) AS cf FROM t4 x JOIN t4 y ON x.iv = y.iv GROUP BY x.iv"},
}

// pgoKeyCanon is, per t4 column, an expression of it equal for every
// spelling of its value (%s is the qualified column).
var pgoKeyCanon = map[string]string{"iv": "extract(epoch from %s)", "n": "round(%s, 3)", "f": "(%s + 0)", "a": "%s"}

// keyQuery returns a random query that groups, joins or counts DISTINCT
// over t4's key columns.
func (g *pgoGen) keyQuery() pgoQuery {
	switch g.n(3) {
	case 0:
		return g.keyGroupQuery()
	case 1:
		return g.keyJoinQuery()
	}
	var aggs []string
	for i, c := range []string{"iv", "n", "f", "a"} {
		if g.chance(2) || i == 0 {
			aggs = append(aggs, fmt.Sprintf("count(DISTINCT %s) AS d%d", c, i))
		}
	}
	group, key := "", ""
	if g.chance(2) {
		group, key = " GROUP BY a", "a, "
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %scount(*) AS c, %s FROM t4%s%s", key, strings.Join(aggs, ", "), g.keyWhere(), group)}
}

// keyColumns returns one or two of t4's key columns.
func (g *pgoGen) keyColumns(cols ...string) []string {
	g.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	return cols[:1+g.n(2)]
}

func (g *pgoGen) keyGroupQuery() pgoQuery {
	keys := g.keyColumns("iv", "n", "f", "a")
	var outs []string
	for i, k := range keys {
		if g.chance(3) {
			continue // grouped by, not shown
		}
		outs = append(outs, fmt.Sprintf(pgoKeyCanon[k]+" AS k%d", k, i))
	}
	outs = append(outs, "count(*) AS c")
	for i, c := range []string{"iv", "n", "f"} {
		if g.chance(3) {
			outs = append(outs, fmt.Sprintf("count(DISTINCT %s) AS d%d", c, i))
		}
	}
	if g.chance(2) {
		outs = append(outs, "sum(a) AS sa")
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM t4%s GROUP BY %s", strings.Join(outs, ", "), g.keyWhere(), strings.Join(keys, ", "))}
}

func (g *pgoGen) keyJoinQuery() pgoQuery {
	kind := pgoJoins[g.n(len(pgoJoins))]
	other, keys := "t4", g.keyColumns("iv", "n", "f")
	if g.chance(4) {
		other, keys = "t1", []string{"n"} // numeric(12,2) against numeric
	}
	var on []string
	for _, k := range keys {
		on = append(on, fmt.Sprintf("x.%s = y.%s", k, k))
	}
	from := fmt.Sprintf("t4 x %s %s y ON %s", kind, other, strings.Join(on, " AND "))
	if g.chance(3) {
		k := keys[0]
		return pgoQuery{sql: fmt.Sprintf("SELECT "+pgoKeyCanon[k]+" AS k, count(*) AS c, count(y.id) AS cy FROM %s GROUP BY x.%s", "x."+k, from, k)}
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT x.id, y.id AS yid FROM %s", from)}
}

// keyWhere is an optional filter over t4.
func (g *pgoGen) keyWhere() string {
	if g.chance(2) {
		return ""
	}
	return " WHERE " + g.withScope(tableScope(pgoKeyTable, ""), func() string { return g.expr("bool", 1) })
}
