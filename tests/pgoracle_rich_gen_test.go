//go:build linux

package tests

import "fmt"

// Expressions and queries over the rich types of t5 (see
// pgoracle_rich_test.go), and the string, date/time, jsonb and array
// functions that expr uses for the plain types.
//
// What keeps them deterministic and comparable in PostgreSQL:
//   - no expression fails for some rows with one SQLSTATE and for others
//     with another (which one a query reports would depend on row order):
//     jsonb operators that fail on the wrong kind of document get a
//     document of the right kind (jsonObj, jsonArr), casts that can fail
//     are left out, and only hugenum expressions can be NaN or infinite;
//   - floats are never summed or averaged;
//   - every ordered aggregate (string_agg, array_agg, jsonb_agg) orders by
//     a unique key last;
//   - group keys, min/max and DISTINCT avoid types whose equal values are
//     spelled differently, or show them through pgoRichCanon.

// hasRich reports whether the scope has a column of a rich type.
func (g *pgoGen) hasRich() bool {
	for _, c := range g.scope {
		if pgoRichTypes[c.typ] {
			return true
		}
	}
	return false
}

// richLiteral returns a literal of a rich type.
func (g *pgoGen) richLiteral(typ string) string {
	switch typ {
	case "jsonb":
		return quote(g.jsonText(2)) + "::jsonb"
	case "int[]":
		return g.intArray() + "::int[]"
	case "text[]":
		return g.textArray() + "::text[]"
	case "interval":
		return "interval " + quote(pgoRichIntervals[g.n(len(pgoRichIntervals))])
	case "float":
		return pgoRichFloats[g.n(len(pgoRichFloats))] + "::float8"
	case "hugenum":
		return pgoHugeNumerics[g.n(len(pgoHugeNumerics))] + "::numeric"
	case "timestamptz":
		return "TIMESTAMPTZ " + quote(pgoTimestamptzs[g.n(len(pgoTimestamptzs))])
	}
	panic("no literal of type " + typ)
}

// richExpr returns an expression of a rich type over the scope.
func (g *pgoGen) richExpr(typ string, depth int) string {
	if depth <= 0 || g.chance(3) {
		if c, ok := g.col(typ); ok && !g.chance(4) {
			return c
		}
		return g.richLiteral(typ)
	}
	d := depth - 1
	switch typ {
	case "jsonb":
		return g.jsonbExpr(d)
	case "int[]":
		return g.intArrayExpr(d)
	case "text[]":
		return g.textArrayExpr(d)
	case "interval":
		return g.intervalExpr(d)
	case "float":
		return g.floatExpr(d)
	case "hugenum":
		return g.hugeExpr(d)
	case "timestamptz":
		return g.timestamptzExpr(d)
	}
	panic("no expression of type " + typ)
}

func (g *pgoGen) jsonKey() string { return quote(pgoJSONKeys[g.n(len(pgoJSONKeys))]) }

func (g *pgoGen) jsonPath() string {
	return quote("{" + g.pick("a,b", "a,0", "k", "a,b,1", "0,a", "n", "\"a b\"") + "}")
}

func (g *pgoGen) jsonbExpr(d int) string {
	switch g.n(12) {
	case 0:
		return fmt.Sprintf("(%s -> %s)", g.richExpr("jsonb", d), g.pick(g.jsonKey(), "0", "1", "-1"))
	case 1:
		return fmt.Sprintf("(%s #> %s)", g.richExpr("jsonb", d), g.jsonPath())
	case 2:
		return fmt.Sprintf("(%s || %s)", g.richExpr("jsonb", d), g.richExpr("jsonb", d))
	case 3:
		return fmt.Sprintf("(%s - %s)", g.jsonObj(d), g.jsonKey())
	case 4:
		return fmt.Sprintf("(%s - %d)", g.jsonArr(d), g.n(4)-2)
	case 5:
		return fmt.Sprintf("jsonb_set(%s, '{%s}', %s%s)", g.jsonObj(d), g.pick("k", "a", "new", ""), g.jsonKVal(d), g.pick("", ", false", ", true"))
	case 6:
		return fmt.Sprintf("jsonb_set(%s, '{%d}', %s)", g.jsonArr(d), g.n(6)-3, g.richExpr("jsonb", d))
	case 7:
		return fmt.Sprintf("jsonb_strip_nulls(%s)", g.richExpr("jsonb", d))
	case 8:
		t := g.pick("int", "text", "bool", "int[]", "text[]", "timestamptz", "interval", "float", "date", "hugenum")
		return fmt.Sprintf("to_jsonb(%s)", g.expr(t, d))
	case 9:
		return g.jsonObj(d)
	case 10:
		return fmt.Sprintf("(%s::text)::jsonb", g.richExpr("jsonb", d))
	default:
		return g.jsonArr(d)
	}
}

// jsonKVal is a value for the member "k": an integer (see pgoJSONKVals).
func (g *pgoGen) jsonKVal(d int) string {
	return g.pick("to_jsonb("+g.expr("int", d)+")", "'\"7\"'", "'null'", "to_jsonb(length("+g.expr("text", d)+"))")
}

// jsonObj returns an expression that is a jsonb object or NULL.
func (g *pgoGen) jsonObj(d int) string {
	switch g.n(6) {
	case 0:
		return fmt.Sprintf("jsonb_build_object('k', %s, 's', %s, %s, %s)", g.expr("int", d), g.expr("text", d), g.jsonKey(), g.richExpr("jsonb", d))
	case 1:
		return quote(g.jsonObjectText(2)) + "::jsonb"
	case 2:
		if d > 0 {
			return fmt.Sprintf("(%s || %s)", g.jsonObj(d-1), g.jsonObj(d-1))
		}
	case 3:
		if d > 0 {
			return fmt.Sprintf("(%s - %s)", g.jsonObj(d-1), g.jsonKey())
		}
	}
	j := g.richExpr("jsonb", d)
	return fmt.Sprintf("CASE WHEN jsonb_typeof(%s) = 'object' THEN %s END", j, j)
}

// jsonArr returns an expression that is a jsonb array or NULL.
func (g *pgoGen) jsonArr(d int) string {
	switch g.n(6) {
	case 0:
		return fmt.Sprintf("jsonb_build_array(%s, %s)", g.expr(g.pick("int", "text", "jsonb", "float"), d), g.expr(g.pick("bool", "text", "jsonb", "int[]"), d))
	case 1:
		return fmt.Sprintf("to_jsonb(%s)", g.richExpr(g.pick("int[]", "text[]"), d))
	case 2:
		if d > 0 {
			return fmt.Sprintf("(%s || %s)", g.jsonArr(d-1), g.richExpr("jsonb", d-1))
		}
	case 3:
		return quote(g.jsonArrayText(2)) + "::jsonb"
	}
	j := g.richExpr("jsonb", d)
	return fmt.Sprintf("CASE WHEN jsonb_typeof(%s) = 'array' THEN %s END", j, j)
}

func (g *pgoGen) intArrayExpr(d int) string {
	switch g.n(7) {
	case 0:
		return fmt.Sprintf("array_append(%s, %s)", g.richExpr("int[]", d), g.expr("int", d))
	case 1:
		return fmt.Sprintf("array_prepend(%s, %s)", g.expr("int", d), g.richExpr("int[]", d))
	case 2:
		return fmt.Sprintf("array_cat(%s, %s)", g.richExpr("int[]", d), g.richExpr("int[]", d))
	case 3:
		return fmt.Sprintf("(%s || %s)", g.richExpr("int[]", d), g.expr("int", d))
	case 4:
		return fmt.Sprintf("array_remove(%s, %s)", g.richExpr("int[]", d), g.pick("NULL::int", "3", "1"))
	case 5:
		return fmt.Sprintf("COALESCE(%s, '{}')", g.richExpr("int[]", d))
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.richExpr("int[]", d), g.richExpr("int[]", d))
}

func (g *pgoGen) textArrayExpr(d int) string {
	switch g.n(6) {
	case 0:
		return fmt.Sprintf("array_append(%s, %s)", g.richExpr("text[]", d), g.expr("text", d))
	case 1:
		return fmt.Sprintf("array_cat(%s, %s)", g.richExpr("text[]", d), g.richExpr("text[]", d))
	case 2:
		return fmt.Sprintf("string_to_array(%s, %s)", g.expr("text", d), g.pick("','", "' '", "''", "NULL", "'l'"))
	case 3:
		return fmt.Sprintf("array_remove(%s, %s)", g.richExpr("text[]", d), g.pick("''", "'x'", "NULL::text"))
	case 4:
		return fmt.Sprintf("regexp_split_to_array(%s, %s)", g.expr("text", d), g.pick("','", "'\\s+'", "'l+'"))
	}
	return fmt.Sprintf("(%s || %s)", g.richExpr("text[]", d), typed(g.expr("text", d)))
}

var pgoDateUnits = []string{"microseconds", "millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade", "century", "millennium"}

func (g *pgoGen) intervalExpr(d int) string {
	switch g.n(10) {
	case 0:
		return fmt.Sprintf("(%s - %s)", g.richExpr("timestamptz", d), g.richExpr("timestamptz", d))
	case 1:
		return fmt.Sprintf("age(%s, %s)", g.richExpr("timestamptz", d), g.richExpr("timestamptz", d))
	case 2:
		return fmt.Sprintf("age(%s, %s)", g.expr("timestamp", d), g.expr("timestamp", d))
	case 3:
		return fmt.Sprintf("%s(%s)", g.pick("justify_interval", "justify_days", "justify_hours"), g.richExpr("interval", d))
	case 4:
		return fmt.Sprintf("(%s * %s)", g.richExpr("interval", d), g.pick("2", "-1", "1.5", "0.5", "0"))
	case 5:
		return fmt.Sprintf("(%s / %s)", g.richExpr("interval", d), g.pick("4", "-3", "1.5"))
	case 6:
		return fmt.Sprintf("(%s %s %s)", g.richExpr("interval", d), g.pick("+", "-"), g.richExpr("interval", d))
	case 7:
		return fmt.Sprintf("date_trunc('%s', %s)", g.pick("year", "month", "day", "hour", "minute"), g.richExpr("interval", d))
	case 8:
		return fmt.Sprintf("make_interval(%d, %d, %d, %d, %d, %d, %s)", g.n(3), g.n(14)-1, g.n(2), g.n(40)-5, g.n(30), g.n(61), g.pick("0", "1.5", "59.999999"))
	}
	return fmt.Sprintf("(-%s)", g.richExpr("interval", d))
}

func (g *pgoGen) floatExpr(d int) string {
	switch g.n(9) {
	case 0:
		return fmt.Sprintf("(-%s)", g.richExpr("float", d))
	case 1:
		return fmt.Sprintf("(%s * %s)", g.richExpr("float", d), g.pick("2", "-0.5", "0", "3"))
	case 2:
		return fmt.Sprintf("(%s / %s)", g.richExpr("float", d), g.pick("4", "-3", "0.1"))
	case 3:
		return fmt.Sprintf("%s(%s)", g.pick("abs", "floor", "ceil", "trunc", "round"), g.richExpr("float", d))
	case 4:
		return fmt.Sprintf("(%s + %s)", g.richExpr("float", d), g.pick("0.5", "0.1", "1e300", "-1"))
	case 5:
		return fmt.Sprintf("sqrt(abs(%s))", g.richExpr("float", d))
	case 6:
		return fmt.Sprintf("%s::float8", g.pick(g.expr("int", d), g.richExpr("hugenum", d)))
	case 7:
		return fmt.Sprintf("COALESCE(%s, %s)", g.richExpr("float", d), g.richLiteral("float"))
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.richExpr("float", d), g.richExpr("float", d))
}

// hugeExpr is a numeric that may be huge, tiny, NaN or infinite; it is
// only shown, compared and aggregated, never cast to an integer.
func (g *pgoGen) hugeExpr(d int) string {
	switch g.n(10) {
	case 0:
		return fmt.Sprintf("(%s + %s)", g.richExpr("hugenum", d), g.pick(g.richExpr("hugenum", d), g.expr("numeric", d)))
	case 1:
		return fmt.Sprintf("(%s * %s)", g.richExpr("hugenum", d), g.pick("2", "-1", "0.5", g.richExpr("hugenum", d)))
	case 2:
		return fmt.Sprintf("(-%s)", g.richExpr("hugenum", d))
	case 3:
		return fmt.Sprintf("%s(%s, %d)", g.pick("round", "trunc"), g.richExpr("hugenum", d), g.n(11)-5)
	case 4:
		return fmt.Sprintf("%s(%s)", g.pick("abs", "floor", "ceil", "sign", "trunc", "round"), g.richExpr("hugenum", d))
	case 5:
		return fmt.Sprintf("(%s / %s)", g.richExpr("hugenum", d), g.pick("7", "-3", "0.25", "1e20"))
	case 6:
		return fmt.Sprintf("(%s %% %s)", g.richExpr("hugenum", d), g.pick("7", "0.3", "1e20"))
	case 7:
		return fmt.Sprintf("round(%s::numeric, %d)", g.richExpr("float", d), g.n(4))
	case 8:
		return fmt.Sprintf("COALESCE(%s, 0)", g.richExpr("hugenum", d))
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.expr("bool", d), g.richExpr("hugenum", d), g.expr("numeric", d))
}

func (g *pgoGen) timestamptzExpr(d int) string {
	switch g.n(8) {
	case 0, 1:
		return fmt.Sprintf("(%s %s %s)", g.richExpr("timestamptz", d), g.pick("+", "-"), g.richExpr("interval", d))
	case 2:
		return fmt.Sprintf("date_trunc('%s', %s)", pgoDateUnits[g.n(len(pgoDateUnits))], g.richExpr("timestamptz", d))
	case 3:
		return fmt.Sprintf("date_bin(interval '%s', %s, %s)", g.pick("15 minutes", "1 day", "7 days", "1 hour 30 minutes", "1 second", "90 seconds"), g.richExpr("timestamptz", d), pgoBinOrigin)
	case 4:
		return fmt.Sprintf("%s::timestamptz", g.expr("timestamp", d))
	case 5:
		return fmt.Sprintf("to_timestamp(%s * 86400)", g.expr("int", d))
	case 6:
		return fmt.Sprintf("%s(%s, %s)", g.pick("GREATEST", "LEAST"), g.richExpr("timestamptz", d), g.richExpr("timestamptz", d))
	}
	return fmt.Sprintf("COALESCE(%s, %s)", g.richExpr("timestamptz", d), g.richLiteral("timestamptz"))
}

// richOf returns, some of the time, an expression of a plain type (int,
// numeric, text, bool, date, timestamp) made with the functions this file
// covers: string functions always, the rich types' functions when the
// scope has a rich column.
func (g *pgoGen) richOf(typ string, d int) (string, bool) {
	rich := g.hasRich()
	if !g.chance(6) && !(rich && g.chance(2)) {
		return "", false
	}
	switch typ {
	case "int":
		return g.richInt(d, rich), true
	case "numeric":
		if rich {
			return g.richNumeric(d), true
		}
	case "text":
		return g.richText(d, rich), true
	case "bool":
		return g.richBool(d, rich), true
	case "date":
		return g.richDate(d, rich), true
	case "timestamp":
		return g.richTimestamp(d, rich), true
	}
	return "", false
}

// jsonCol is the scope's jsonb column, whose member "k" is an integer.
func (g *pgoGen) jsonCol() (string, bool) { return g.col("jsonb") }

func (g *pgoGen) richInt(d int, rich bool) string {
	if !rich || g.chance(4) {
		switch g.n(3) {
		case 0:
			return fmt.Sprintf("ascii(%s)", g.expr("text", d))
		case 1:
			return fmt.Sprintf("strpos(%s, %s)", g.expr("text", d), g.pick("'l'", "'é'", "''", "' '"))
		}
		return fmt.Sprintf("length(%s(%s, %d))", g.pick("repeat", "left", "right"), g.expr("text", d), g.n(4)-1)
	}
	switch g.n(8) {
	case 0:
		return fmt.Sprintf("array_length(%s, 1)", g.richExpr(g.pick("int[]", "text[]"), d))
	case 1:
		return fmt.Sprintf("cardinality(%s)", g.richExpr(g.pick("int[]", "text[]"), d))
	case 2:
		return fmt.Sprintf("array_position(%s, %s)", g.richExpr("int[]", d), g.expr("int", d))
	case 3:
		return fmt.Sprintf("array_position(%s, %s)", g.richExpr("text[]", d), g.expr("text", d))
	case 4:
		return fmt.Sprintf("(%s)[%d]", g.richExpr("int[]", 0), g.n(5)-1)
	case 5:
		return fmt.Sprintf("jsonb_array_length(%s)", g.jsonArr(d))
	case 6:
		if j, ok := g.jsonCol(); ok {
			return fmt.Sprintf("(%s ->> 'k')::int", j)
		}
	}
	return fmt.Sprintf("extract(%s from %s)::int", g.pick("year", "month", "day", "hour", "dow", "isodow", "doy", "week", "quarter"), g.richExpr("timestamptz", d))
}

// richNumeric is a finite numeric: extract from a timestamptz or interval.
func (g *pgoGen) richNumeric(d int) string {
	if g.chance(2) {
		return fmt.Sprintf("extract(%s from %s)", g.pick("year", "month", "day", "hour", "minute", "second", "epoch", "dow", "doy", "isodow", "quarter", "week", "microseconds", "julian", "isoyear", "timezone"), g.richExpr("timestamptz", d))
	}
	return fmt.Sprintf("extract(%s from %s)", g.pick("epoch", "year", "month", "day", "hour", "minute", "second", "microseconds"), g.richExpr("interval", d))
}

var (
	pgoRegexes = []string{"l+", "^.", "[aeioué]", `([a-z])([a-z])`, `\s+`, "é|ü", ".$", "[A-Z]", `\d`, "(o)(r)?",
		`\w+`, "[[:upper:]].", "[[:alpha:]]+$", `(\w)\1`, `(l)\1`, `\W`, `\m\w`, `(?<=l)o`, "[[:lower:]]{2}"}
	pgoCharFmts = []string{"YYYY-MM-DD HH24:MI:SS.US", "Dy DD Mon YYYY HH12:MI AM", "FMDay FMMonth FMDDth", "IYYY-IW-ID",
		"J Q WW DDD W", `YYYY-MM-DD"T"HH24:MI:SSOF`, "TZ SSSS MS FF3", "DDth \"of\" Month", "CC Y,YYY BC", "yyyy mon dy am", "HH:MI:SS pm",
		"TMDay TMMonth TMmon TMDy|"}
)

func (g *pgoGen) richText(d int, rich bool) string {
	if rich && g.chance(2) {
		return g.richTypedText(d)
	}
	t := func() string { return g.expr("text", d) }
	switch g.n(17) {
	case 0:
		return fmt.Sprintf("split_part(%s, %s, %s)", t(), g.pick("' '", "','", "'l'", "''", "'é'"), g.pick("1", "2", "3", "-1", "-2"))
	case 1:
		return fmt.Sprintf("%s(%s, %d, %s)", g.pick("lpad", "rpad"), t(), g.n(12)-1, g.pick("'*'", "'xy'", "'é'", "''", "'😀'"))
	case 2:
		return fmt.Sprintf("initcap(%s)", t())
	case 3:
		return fmt.Sprintf("translate(%s, %s, %s)", t(), g.pick("'lé '", "'aeiou'", "'pP'"), g.pick("'LE'", "''", "'_'"))
	case 4:
		return fmt.Sprintf("repeat(%s, %d)", t(), g.n(4)-1)
	case 5:
		return fmt.Sprintf("reverse(%s)", t())
	case 6:
		return fmt.Sprintf("md5(%s)", t())
	case 7:
		return fmt.Sprintf("regexp_replace(%s, '%s', %s%s)", t(), pgoRegexes[g.n(len(pgoRegexes))], g.pick("''", "'X'", `'<\1>'`, `'\&\&'`), g.pick("", ", 'g'", ", 'i'", ", 'gi'"))
	case 8:
		return fmt.Sprintf("substring(%s from '%s')", t(), pgoRegexes[g.n(len(pgoRegexes))])
	case 9:
		return fmt.Sprintf("array_to_string(regexp_match(%s, '%s'%s), ',', '?')", t(), pgoRegexes[g.n(len(pgoRegexes))], g.pick("", ", 'i'"))
	case 10:
		return fmt.Sprintf("(regexp_match(%s, '(l+)(.)'))[%d]", t(), 1+g.n(2))
	case 11:
		return fmt.Sprintf("format(%s, %s, %s)", g.pick("'%s|%s'", "'%5s|%-5s|'", "'%L=%s'", "'%2$s %1$s %%'", "'%I.%s'"), "COALESCE("+t()+", 'x')", g.expr(g.pick("int", "text", "date", "bool"), d))
	case 12:
		return fmt.Sprintf("concat_ws(%s, %s, %s, %s)", g.pick("','", "''", "' | '", "NULL"), t(), g.expr(g.pick("int", "numeric", "bool"), d), t())
	case 13:
		return fmt.Sprintf("chr(%s + abs(%s) %% %d)", g.pick("65", "224", "12354", "128512"), g.expr("int", d), 1+g.n(60))
	case 14:
		return fmt.Sprintf("to_char(%s, '%s')", g.expr("timestamp", d), pgoCharFmts[g.n(len(pgoCharFmts))])
	case 15:
		return fmt.Sprintf("%s(%s)", g.pick("quote_literal", "quote_ident"), t())
	}
	return fmt.Sprintf("%s(%s)", g.pick("upper", "lower"), t())
}

// richTypedText is a text made from a rich type.
func (g *pgoGen) richTypedText(d int) string {
	switch g.n(11) {
	case 0:
		return fmt.Sprintf("(%s ->> %s)", g.richExpr("jsonb", d), g.pick(g.jsonKey(), "0", "-1"))
	case 1:
		return fmt.Sprintf("(%s #>> %s)", g.richExpr("jsonb", d), g.jsonPath())
	case 2:
		return fmt.Sprintf("jsonb_typeof(%s)", g.richExpr("jsonb", d))
	case 3:
		return fmt.Sprintf("jsonb_extract_path_text(%s, %s, %s)", g.richExpr("jsonb", d), g.jsonKey(), g.pick("'b'", "'0'", "'k'"))
	case 4:
		return fmt.Sprintf("array_to_string(%s, %s%s)", g.richExpr(g.pick("int[]", "text[]"), d), g.pick("','", "''", "' - '"), g.pick("", ", '*'", ", ''"))
	case 5:
		return fmt.Sprintf("(%s)[%d]", g.richExpr("text[]", 0), g.n(5)-1)
	case 6:
		return fmt.Sprintf("to_char(%s, '%s')", g.richExpr("timestamptz", d), pgoCharFmts[g.n(len(pgoCharFmts))])
	case 7:
		return fmt.Sprintf("to_char(%s, '%s')", g.richExpr("interval", d), g.pick("HH24:MI:SS", "DD HH24:MI", "YYYY MM DD", "MI:SS.MS", "HH HH12:MI"))
	case 8:
		return fmt.Sprintf("concat_ws('/', %s, %s)", g.richExpr(g.pick("int[]", "text[]", "timestamptz", "interval"), d), g.richExpr(g.pick("jsonb", "float", "hugenum"), d))
	}
	t := g.pick("jsonb", "int[]", "text[]", "interval", "float", "hugenum", "timestamptz")
	return fmt.Sprintf("%s::text", g.richExpr(t, d))
}

func (g *pgoGen) richBool(d int, rich bool) string {
	if !rich || g.chance(4) {
		if g.chance(2) {
			return fmt.Sprintf("starts_with(%s, %s)", g.expr("text", d), g.pick("'h'", "''", "'é'", "'A'"))
		}
		return fmt.Sprintf("(%s %s '%s')", g.expr("text", d), g.pick("~", "~*", "!~"), pgoRegexes[g.n(len(pgoRegexes))])
	}
	switch g.n(10) {
	case 0:
		return fmt.Sprintf("(%s %s %s)", g.richExpr("jsonb", d), g.pick("@>", "<@", "=", "<>", "<"), g.richExpr("jsonb", d))
	case 1:
		return fmt.Sprintf("(%s ? %s)", g.richExpr("jsonb", d), g.jsonKey())
	case 2:
		return fmt.Sprintf("(%s %s ARRAY[%s, %s])", g.richExpr("jsonb", d), g.pick("?|", "?&"), g.jsonKey(), g.jsonKey())
	case 3:
		return fmt.Sprintf("(%s %s ANY(%s))", g.expr("int", d), g.pick("=", "<", ">="), g.richExpr("int[]", d))
	case 4:
		return fmt.Sprintf("(%s %s ALL(%s))", g.expr("text", d), g.pick("<>", "=", "<"), g.richExpr("text[]", d))
	case 5:
		t := g.pick("int[]", "text[]")
		return fmt.Sprintf("(%s %s %s)", g.richExpr(t, d), g.pick("@>", "<@", "&&", "=", "<", ">="), g.richExpr(t, d))
	case 6:
		return fmt.Sprintf("(%s = 'NaN')", g.richExpr("float", d))
	}
	t := g.pick("float", "interval", "hugenum", "timestamptz", "jsonb")
	return fmt.Sprintf("(%s %s %s)", g.richExpr(t, d), g.pick("=", "<>", "<", "<=", ">", ">="), g.richExpr(t, d))
}

func (g *pgoGen) richDate(d int, rich bool) string {
	if rich && g.chance(2) {
		return fmt.Sprintf("%s::date", g.richExpr("timestamptz", d))
	}
	return fmt.Sprintf("make_date(%s, 1 + abs(%s) %% 12, 1 + abs(%s) %% 28)", g.pick("2024", "1970", "1", "-44", "2100"), g.expr("int", d), g.expr("int", d))
}

func (g *pgoGen) richTimestamp(d int, rich bool) string {
	if rich && g.chance(2) {
		return fmt.Sprintf("%s::timestamp", g.richExpr("timestamptz", d))
	}
	switch g.n(3) {
	case 0:
		return fmt.Sprintf("make_timestamp(%s, 1 + abs(%s) %% 12, 1 + abs(%s) %% 28, abs(%s) %% 24, %d, %s)", g.pick("2024", "1970", "1969"), g.expr("int", d), g.expr("int", d), g.expr("int", d), g.n(60), g.pick("0", "59.999999", "1.5"))
	case 1:
		return fmt.Sprintf("date_bin(interval '%s', %s, TIMESTAMP '1000-01-01 00:00:00')", g.pick("15 minutes", "1 day", "7 days", "36 hours", "1 second"), g.expr("timestamp", d))
	}
	return fmt.Sprintf("date_trunc('%s', %s)", pgoDateUnits[g.n(len(pgoDateUnits))], g.expr("timestamp", d))
}
