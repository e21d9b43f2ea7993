//go:build linux

package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Random queries over t5 (pgoracle_rich_test.go): projections, grouping
// with the aggregates richAgg makes, grouping sets (over t1, t2 and t5),
// set-returning functions in the select list and in FROM, joins and
// Top-N. The rules that keep them deterministic are in
// pgoracle_rich_gen_test.go.

// pgoRichOutTypes are the types a t5 query shows.
var pgoRichOutTypes = []string{"int", "text", "text", "bool", "numeric", "date", "timestamp",
	"jsonb", "int[]", "text[]", "interval", "float", "hugenum", "timestamptz"}

// pgoDistinctTypes are the types whose equal values have one spelling,
// which SELECT DISTINCT shows as they are (not jsonb: to_jsonb(1.0) equals
// to_jsonb(1)).
var pgoDistinctTypes = []string{"int", "text", "bool", "date", "int[]", "text[]", "timestamptz"}

// pgoRichKeys are group keys over t5 and how a query shows them.
var pgoRichKeys = []struct{ key, out string }{
	{"a", "a"}, {"s", "s"}, {"j", "j"}, {"ia", "ia"}, {"ta", "ta"}, {"tz", "tz"},
	{"f", "f + 0"}, {"iv", "justify_interval(iv)"}, {"hn", "round(hn, 9)"},
	{"jsonb_typeof(j)", "jsonb_typeof(j)"}, {"j -> 'a'", "j -> 'a'"}, {"j ->> 'k'", "j ->> 'k'"},
	{"cardinality(ia)", "cardinality(ia)"}, {"date_trunc('day', tz)", "date_trunc('day', tz)"}, {"a % 3", "a % 3"},
}

// richQuery returns a random query over t5, or grouping sets over t1, t2
// or t5.
func (g *pgoGen) richQuery() pgoQuery {
	g.scope = tableScope(pgoRichTable, "")
	defer func() { g.scope = nil }()
	switch g.n(10) {
	case 0, 1:
		return g.richProjection()
	case 2, 3:
		return g.richGroupQuery()
	case 4:
		return g.richGlobalAgg()
	case 5:
		return g.groupingSetsQuery()
	case 6, 7:
		return g.richSRFQuery()
	case 8:
		return g.richJoinQuery()
	}
	return g.richTopN()
}

func (g *pgoGen) richWhere() string {
	if g.chance(2) {
		return ""
	}
	return " WHERE " + g.expr("bool", 2)
}

// richOutputs returns k outputs of the types, named c<from>, c<from+1>...
func (g *pgoGen) richOutputs(k, from int, types []string) []string {
	var out []string
	for i := range k {
		out = append(out, fmt.Sprintf("%s AS c%d", g.expr(types[g.n(len(types))], 2), from+i))
	}
	return out
}

func (g *pgoGen) richProjection() pgoQuery {
	if g.chance(4) {
		outs := g.richOutputs(1+g.n(2), 1, pgoDistinctTypes)
		return pgoQuery{sql: fmt.Sprintf("SELECT DISTINCT %s FROM t5%s", strings.Join(outs, ", "), g.richWhere())}
	}
	outs := append([]string{"id AS c0"}, g.richOutputs(1+g.n(3), 1, pgoRichOutTypes)...)
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM t5%s", strings.Join(outs, ", "), g.richWhere())}
}

func (g *pgoGen) richAggs(tie string) []string {
	var out []string
	for i := range 1 + g.n(3) {
		out = append(out, fmt.Sprintf("%s AS a%d", g.richAgg(tie), i+1))
	}
	return out
}

func (g *pgoGen) richGroupQuery() pgoQuery {
	var keys, outs []string
	for i := range 1 + g.n(2) {
		k := pgoRichKeys[g.n(len(pgoRichKeys))]
		if e := g.expr(g.pick("int", "text", "bool", "date", "timestamptz"), 1); g.chance(4) && !pgoBareLiteral.MatchString(e) {
			k.key, k.out = e, e
		}
		keys = append(keys, k.key)
		outs = append(outs, fmt.Sprintf("%s AS g%d", k.out, i+1))
	}
	outs = append(append(outs, "count(*) AS cnt"), g.richAggs("id")...)
	having := ""
	if g.chance(4) {
		having = fmt.Sprintf(" HAVING count(*) > %d", g.n(2))
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM t5%s GROUP BY %s%s", strings.Join(outs, ", "), g.richWhere(), strings.Join(keys, ", "), having)}
}

func (g *pgoGen) richGlobalAgg() pgoQuery {
	return pgoQuery{sql: fmt.Sprintf("SELECT count(*) AS cnt, %s FROM t5%s", strings.Join(g.richAggs("id"), ", "), g.richWhere())}
}

// pgoBareLiteral matches the literals expr makes, pgoIntLiteral the
// integer ones.
var (
	pgoBareLiteral = regexp.MustCompile(`^(-?\d+|true|false|NULL::boolean|'[^']*'|DATE '[^']*')$`)
	pgoIntLiteral  = regexp.MustCompile(`^-?\d+$`)
)

// groupingSetsQuery groups t1, t2 or t5 by ROLLUP, CUBE or GROUPING
// SETS, showing grouping() of the keys.
func (g *pgoGen) groupingSetsQuery() pgoQuery {
	t := []pgoTable{pgoTables[0], pgoTables[1], pgoRichTable}[g.n(3)]
	g.scope = tableScope(t, "")
	var keys, outs, byPos []string
	for i := range 2 + g.n(2) {
		typ := g.pick("int", "text", "bool", "date")
		k := g.expr(typ, g.n(2))
		if pgoBareLiteral.MatchString(k) {
			// A constant is no key (an integer one is a column
			// position, below).
			k = g.typeIn(typ, "int", "text")
			k, _ = g.col(k)
		}
		if t.name == "t5" && g.chance(2) {
			rk := pgoRichKeys[g.n(len(pgoRichKeys))]
			keys, outs = append(keys, rk.key), append(outs, fmt.Sprintf("%s AS g%d", rk.out, i+1))
			byPos = append(byPos, rk.key)
			continue
		}
		keys, outs = append(keys, k), append(outs, fmt.Sprintf("%s AS g%d", k, i+1))
		byPos = append(byPos, strconv.Itoa(i+1))
	}
	byKeys := keys
	if g.chance(3) {
		// Keys by output column position, as PostgreSQL reads an
		// integer in ROLLUP, CUBE and GROUPING SETS; grouping() still
		// names the expressions.
		byKeys = byPos
	}
	outs = append(outs, fmt.Sprintf("grouping(%s) AS gg", strings.Join(keys, ", ")), "count(*) AS cnt")
	outs = append(outs, g.richAggs("id")...)
	k0, k1, rest := byKeys[0], byKeys[1], byKeys[2:]
	var by string
	switch g.n(6) {
	case 0:
		by = "ROLLUP (" + strings.Join(byKeys, ", ") + ")"
	case 1:
		by = "CUBE (" + strings.Join(byKeys, ", ") + ")"
	case 2:
		by = fmt.Sprintf("GROUPING SETS ((%s), (%s), ())", strings.Join(byKeys, ", "), k0)
	case 3:
		by = fmt.Sprintf("GROUPING SETS ((%s), (%s))", k0, strings.Join(byKeys[1:], ", "))
	case 4:
		by = fmt.Sprintf("%s, ROLLUP (%s)", k0, strings.Join(byKeys[1:], ", "))
	default:
		by = fmt.Sprintf("ROLLUP ((%s), %s)", strings.Join(append([]string{k0}, rest...), ", "), k1)
	}
	having := ""
	if g.chance(4) {
		having = " HAVING count(*) > 1"
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s GROUP BY %s%s", strings.Join(outs, ", "), t.name, g.richWhere(), by, having)}
}

// richSRFQuery puts unnest or jsonb_array_elements_text in the select
// list or in FROM (WITH ORDINALITY, then grouped by the element).
func (g *pgoGen) richSRFQuery() pgoQuery {
	switch g.n(4) {
	case 0:
		srf := g.pick("unnest("+g.richExpr("int[]", 1)+")", "unnest("+g.richExpr("text[]", 1)+")", "jsonb_array_elements_text("+g.jsonArr(1)+")")
		outs := []string{"id AS c0", srf + " AS u"}
		if g.chance(2) {
			outs = append(outs, g.pick("unnest(ta)", "unnest(ia)", "generate_series(1, 2)")+" AS u2")
		}
		outs = append(outs, g.richOutputs(g.n(2), 1, pgoRichOutTypes)...)
		return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM t5%s", strings.Join(outs, ", "), g.richWhere())}
	}
	outer := tableScope(pgoRichTable, "x")
	g.scope = outer
	var from, ut string
	switch g.n(3) {
	case 0:
		from, ut = "unnest("+g.richExpr("int[]", 1)+")", "int"
	case 1:
		from, ut = "unnest("+g.richExpr("text[]", 1)+")", "text"
	default:
		from, ut = "jsonb_array_elements_text("+g.jsonArr(1)+")", "text"
	}
	from = fmt.Sprintf("t5 x, %s WITH ORDINALITY AS u(v, o)", from)
	g.scope = append(outer, pgoCol{"u.v", ut}, pgoCol{"u.o", "bigint"})
	if g.chance(2) {
		outs := append([]string{"x.id AS c0", "u.v AS c1", "u.o AS c2"}, g.richOutputs(g.n(2), 3, pgoRichOutTypes)...)
		return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(outs, ", "), from, g.richWhere())}
	}
	outs := append([]string{"u.v AS g", "count(*) AS cnt"}, g.richAggs("x.id, u.o")...)
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s%s GROUP BY u.v", strings.Join(outs, ", "), from, g.richWhere())}
}

// richJoinQuery joins t5 with itself or with t1 on a key of a rich type.
func (g *pgoGen) richJoinQuery() pgoQuery {
	kind := pgoJoins[g.n(len(pgoJoins))]
	other, key := pgoRichTable, pgoRichKeys[g.n(9)] // a plain column
	on := fmt.Sprintf("x.%s = y.%s", key.key, key.key)
	if g.chance(3) {
		other = pgoTables[0]
		key = pgoRichKeys[g.n(2)] // a or s
		on = fmt.Sprintf("x.%s = y.%s", key.key, key.key)
		if g.chance(3) {
			on = "x.tz = y.ts"
		}
	}
	g.scope = append(tableScope(pgoRichTable, "x"), tableScope(other, "y")...)
	if g.chance(3) {
		on += " AND " + g.expr("bool", 1)
		if kind == "FULL JOIN" && strings.HasPrefix(on, "x.tz = y.ts") {
			// PostgreSQL merges timestamptz = timestamp but cannot
			// hash it, and a merge FULL JOIN takes no other condition
			// (0A000; streamdb can).
			kind = "LEFT JOIN"
		}
	}
	from := fmt.Sprintf("t5 x %s %s y ON %s", kind, other.name, on)
	if g.chance(2) {
		out := strings.ReplaceAll(key.out, key.key, "x."+key.key)
		if key.key == key.out {
			out = "x." + key.key
		}
		outs := append([]string{out + " AS k", "count(*) AS cnt", "count(y.id) AS cy"}, g.richAggs("x.id, y.id")...)
		return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s GROUP BY x.%s", strings.Join(outs, ", "), from, key.key)}
	}
	outs := append([]string{"x.id AS c0", "y.id AS c1"}, g.richOutputs(1+g.n(2), 2, pgoRichOutTypes)...)
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM %s", strings.Join(outs, ", "), from)}
}

// pgoSortTypes are the types a Top-N orders by.
var pgoSortTypes = []string{"int", "text", "bool", "numeric", "date", "timestamp", "jsonb", "interval", "float", "hugenum", "timestamptz",
	"int[]", "text[]"}

// richTopN orders t5 by rich outputs, id last, with a LIMIT: a Top-N view.
func (g *pgoGen) richTopN() pgoQuery {
	outs := append([]string{"id AS c0"}, g.richOutputs(1+g.n(2), 1, pgoSortTypes)...)
	var keys []string
	for i := 1; i < len(outs); i++ {
		keys = append(keys, fmt.Sprintf("c%d%s", i, g.pick("", " DESC", " NULLS FIRST", " DESC NULLS LAST")))
	}
	keys = append(keys, "c0"+g.pick("", " DESC"))
	limit := fmt.Sprintf(" LIMIT %d", 1+g.n(8))
	if g.chance(3) {
		limit += fmt.Sprintf(" OFFSET %d", g.n(5))
	}
	return pgoQuery{sql: fmt.Sprintf("SELECT %s FROM t5%s ORDER BY %s%s", strings.Join(outs, ", "), g.richWhere(), strings.Join(keys, ", "), limit), ordered: true}
}

// typeIn returns one of types that the scope has a column of, or any of
// them when it has none.
func (g *pgoGen) typeIn(types ...string) string {
	var have []string
	for _, t := range types {
		if _, ok := g.col(t); ok {
			have = append(have, t)
		}
	}
	if len(have) == 0 {
		have = types
	}
	return have[g.n(len(have))]
}

// richAgg returns an aggregate over the scope; tie is a unique key of the
// rows, the last sort key of every ordered aggregate.
func (g *pgoGen) richAgg(tie string) string {
	switch g.n(14) {
	case 0:
		return fmt.Sprintf("%s(%s)", g.pick("bool_and", "bool_or", "every"), g.expr("bool", 1))
	case 1:
		return fmt.Sprintf("%s(%s)", g.pick("bit_and", "bit_or", "bit_xor"), g.expr(g.pick("int", "int", "bigint"), 1))
	case 2:
		if g.chance(3) {
			x := typed(g.expr("text", 1))
			return fmt.Sprintf("string_agg(DISTINCT %s, %s ORDER BY %s%s)", x, g.pick("','", "''", "' | '"), x, g.pick("", " DESC"))
		}
		x := g.expr("text", 1)
		return fmt.Sprintf("string_agg(%s, %s ORDER BY %s%s, %s)", x, g.pick("','", "''", "'é'"), g.pick(x, g.expr(g.typeIn("int", "timestamptz"), 1)), g.pick("", " DESC", " NULLS FIRST"), tie)
	case 3:
		if g.chance(3) {
			return fmt.Sprintf("array_agg(DISTINCT %s)", g.typedAgg(g.expr(g.pick("int", "text", "date", "timestamptz", "bool"), 1)))
		}
		x := g.typedAgg(g.expr(g.typeIn("int", "text", "timestamptz", "jsonb", "float", "interval", "date"), 1))
		return fmt.Sprintf("array_agg(%s ORDER BY %s%s, %s)", x, x, g.pick("", " DESC", " NULLS FIRST"), tie)
	case 4:
		t := g.typeIn("jsonb", "int", "text", "hugenum", "float", "interval", "timestamptz", "int[]", "text[]")
		x := g.typedAgg(g.expr(t, 1))
		return fmt.Sprintf("jsonb_agg(%s ORDER BY %s)", x, g.pick(tie, x+", "+tie, tie+" DESC"))
	case 5:
		f := " FILTER (WHERE " + g.expr("bool", 1) + ")"
		return g.pick("count(*)"+f, "sum("+g.expr("int", 1)+")"+f, "max("+g.expr("text", 1)+")"+f,
			"count(DISTINCT "+g.expr(g.typeIn("jsonb", "int[]", "float", "interval"), 1)+")"+f)
	case 6:
		x := g.expr(g.typeIn("int", "bigint", "hugenum", "numeric"), 1)
		return fmt.Sprintf("%s(%s)", g.pick("var_samp", "var_pop", "stddev_samp", "stddev_pop", "variance", "stddev"), x)
	case 7:
		x := g.typedAgg(g.expr(g.typeIn("int", "text", "timestamptz", "date"), 1))
		return fmt.Sprintf("percentile_disc(%s) WITHIN GROUP (ORDER BY %s%s)", g.pick("0.5", "0", "0.25", "1", "0.9"), x, g.pick("", " DESC"))
	case 8:
		x := g.typedAgg(g.expr(g.typeIn("int", "text", "timestamptz", "date", "bool"), 1))
		return fmt.Sprintf("mode() WITHIN GROUP (ORDER BY %s%s)", x, g.pick("", " DESC"))
	case 9:
		return fmt.Sprintf("count(DISTINCT %s)", g.expr(g.typeIn("jsonb", "int[]", "text[]", "float", "interval", "hugenum", "timestamptz"), 1))
	case 10:
		return g.canonMinMax()
	case 11:
		x := g.expr(g.typeIn("hugenum", "interval"), 1)
		return fmt.Sprintf("%s(%s)", g.pick("sum", "avg"), x)
	}
	return g.agg()
}

// typed gives a string literal a type.
func typed(x string) string {
	if strings.HasPrefix(x, "'") && pgoBareLiteral.MatchString(x) {
		return x + "::text"
	}
	return x
}

// typedAgg is typed for the argument of a polymorphic aggregate
// (array_agg, jsonb_agg, mode, percentile_disc), but now and then leaves a
// literal unknown: PostgreSQL resolves no such aggregate over an unknown,
// and streamdb fails the same way (agg_unknown_literal), failing the whole
// query.
func (g *pgoGen) typedAgg(x string) string {
	if g.chance(10) {
		return x
	}
	return typed(x)
}

// canonMinMax is min or max of a rich type, shown through an expression
// equal for every spelling of the value.
func (g *pgoGen) canonMinMax() string {
	m := g.pick("min", "max")
	switch t := g.typeIn("float", "interval", "hugenum", "timestamptz", "int[]", "text[]"); t {
	case "float":
		return fmt.Sprintf("%s(%s) + 0", m, g.expr(t, 1))
	case "interval":
		return fmt.Sprintf("justify_interval(%s(%s))", m, g.expr(t, 1))
	case "hugenum":
		return fmt.Sprintf("round(%s(%s), 9)", m, g.expr(t, 1))
	default:
		return fmt.Sprintf("%s(%s)", m, g.expr(t, 1))
	}
}
