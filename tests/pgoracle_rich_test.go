//go:build linux

package tests

import (
	"fmt"
	"strings"
)

// Rich types in the PostgreSQL oracle: table t5 holds jsonb (nested
// objects and arrays, unicode and escapes, empty containers), int[] and
// text[] (empty, with NULLs, with elements that need quoting), intervals
// with months, float8 (NaN, -0, ±Infinity), numerics far past float range
// (and NaN, ±Infinity), timestamptz near the epoch and near DST changes
// (given with offsets: the session TimeZone is UTC) and unicode text. The
// expressions over them are in pgoracle_rich_gen_test.go, the queries in
// pgoracle_rich_query_test.go.
//
// Every value and expression is meant to be deterministic in PostgreSQL.
// Values that are equal but spelled differently (-0 and 0, '1 mon' and
// '30 days', 1.0 and 1.00) are shown only through an expression equal for
// every spelling (f + 0, justify_interval(iv), round(hn, 9): see
// pgoRichKeys and canonMinMax) where PostgreSQL's choice among them
// depends on row order: group keys, min/max, DISTINCT. jsonb numbers come
// from a list with no two equal values, so jsonb needs no such care. The
// member "k" of a jsonb object is always an integer, a string of one, or
// null, so (j ->> 'k')::int never fails. Floats are never summed.

// pgoRichTable is t5 (see pgoSchema). Types hugenum (a plain numeric
// column holding huge, tiny and non-finite values) and the others that
// pgoRichTypes lists have their own expression generators.
var pgoRichTable = pgoTable{"t5", []pgoCol{{"id", "int"}, {"a", "int"}, {"j", "jsonb"}, {"ia", "int[]"}, {"ta", "text[]"},
	{"iv", "interval"}, {"f", "float"}, {"hn", "hugenum"}, {"tz", "timestamptz"}, {"s", "text"}}, true, 30}

const pgoRichDDL = "CREATE TABLE t5 (id int PRIMARY KEY, a int, j jsonb, ia int[], ta text[], iv interval, f float8, hn numeric, tz timestamptz, s text)"

var pgoRichTypes = map[string]bool{"jsonb": true, "int[]": true, "text[]": true, "interval": true, "float": true, "hugenum": true, "timestamptz": true}

// The values of t5's columns, as SQL literals or (texts, jsonb) as text.
var (
	pgoRichTexts = []string{"", "héllo", "ünï", "日本語", "😀 smile", "é", "straße", "O'Brien", "a,b,c", "l|l", "  sp  ",
		"Apple", "NULL", "x_y%", `a\b`, "hello world foo-bar", "3rd", "ÉCOLE élève"}
	pgoRichIntervals = []string{"1 mon", "30 days", "1 mon 2 days 03:00:00", "-1 year -2 mons +3 days -04:05:06.5", "00:00:00",
		"2 years", "1 day -01:00:00", "-00:00:00.000001", "12:34:56.789", "1 year 1 mon 1 day 01:01:01.000001", "-6 mons",
		"36 hours", "100 years", "1 mon -30 days", "29 days 24:00:00", "360 days"}
	pgoRichFloats = []string{"0", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "1.5", "-2.25", "0.1", "1e300", "-1e-300",
		"123456789.125", "2"}
	pgoHugeNumerics = []string{"123456789012345678901234567890.123456789", "-0.000000000000000000001", "'NaN'", "1e30",
		"-99999999999999999999999999999999999999", "0", "0.5", "'Infinity'", "'-Infinity'",
		"3.14159265358979323846264338327950288", "1e100", "-7"}
	// Near the epoch, the 2024 DST changes of America/New_York (March 10
	// 07:00 UTC, November 3 06:00 UTC) and Europe/Berlin (March 31 01:00
	// UTC, October 27 01:00 UTC), a leap day and 2^31 seconds.
	pgoTimestamptzs = []string{"1970-01-01 00:00:00+00", "1969-12-31 23:59:59.999999+00", "1970-01-01 00:00:00.000001+00",
		"1969-12-31 19:00:00-05", "2024-03-10 06:59:59+00", "2024-03-10 07:00:00+00", "2024-03-10 03:00:00-04",
		"2024-03-10 01:59:59.5-05", "2024-11-03 01:30:00-04", "2024-11-03 01:30:00-05", "2024-03-31 00:59:59.5+00",
		"2024-03-31 03:00:00+02", "2024-10-27 02:30:00+01", "2024-10-27 02:30:00+02", "2000-02-29 23:59:59+00",
		"2038-01-19 03:14:08+00", "1900-01-01 00:00:00+00", "2024-02-29 12:00:00+05:30",
		"2024-03-10 02:30:00 America/New_York", "2024-11-03 01:30:00 America/New_York", "2024-07-01 12:00:00 Europe/Paris", "2024-01-01 12:00:00 EST"}
	// No two jsonb numbers are equal: a group of jsonb values shows the
	// same text whichever row PostgreSQL picks.
	pgoJSONNumbers = []string{"0", "1", "-1", "1.50", "2.5e3", "12345678901234567890.123", "-0.0001", "1e-3", "1e30"}
	pgoJSONStrings = []string{`""`, `"x"`, `"ünï"`, `"a\"b"`, `"line\nbreak"`, `"\u00e9t\u00e9"`, `"😀"`, `"3"`, `"k"`,
		`"tab\there"`, `"back\\slash"`, `"日本"`}
	pgoJSONKeys  = []string{"a", "b", "k", "n", "", "ü", "a b"}
	pgoJSONKVals = []string{"1", "-2", `"3"`, "null", `"-4"`, "0"} // the values of "k"
	pgoTextElems = []string{"x", "", "a b", "c,d", "ünï", "NULL", `q"t`, `back\slash`, "😀", "{br}"}
)

// jsonText returns a random JSON document of at most depth levels of
// nesting.
func (g *pgoGen) jsonText(depth int) string {
	r := g.n(10)
	if depth <= 0 {
		r = g.n(5)
	}
	switch {
	case r == 0:
		return "null"
	case r == 1:
		return g.pick("true", "false")
	case r == 2:
		return pgoJSONNumbers[g.n(len(pgoJSONNumbers))]
	case r < 5:
		return pgoJSONStrings[g.n(len(pgoJSONStrings))]
	case r < 7:
		return g.jsonArrayText(depth)
	}
	return g.jsonObjectText(depth)
}

func (g *pgoGen) jsonObjectText(depth int) string {
	var members []string
	for range g.n(4) {
		k := pgoJSONKeys[g.n(len(pgoJSONKeys))]
		v := pgoJSONKVals[g.n(len(pgoJSONKVals))]
		if k != "k" {
			v = g.jsonText(depth - 1)
		}
		members = append(members, fmt.Sprintf("%q: %s", k, v))
	}
	return "{" + strings.Join(members, ", ") + "}"
}

// jsonArrayText returns a JSON array of 0-3 elements.
func (g *pgoGen) jsonArrayText(depth int) string {
	var elems []string
	for range g.n(4) {
		elems = append(elems, g.jsonText(depth-1))
	}
	return "[" + strings.Join(elems, ", ") + "]"
}

// jsonDoc is a value of t5.j: mostly an object, else an array or a scalar.
func (g *pgoGen) jsonDoc() string {
	switch g.n(8) {
	case 0, 1:
		return g.jsonArrayText(3)
	case 2:
		return g.jsonText(0)
	}
	return g.jsonObjectText(3)
}

// intArray returns an int[] literal: empty, with NULLs, now and then
// with the extremes of int.
func (g *pgoGen) intArray() string {
	var elems []string
	for range g.n(5) {
		switch {
		case g.chance(6):
			elems = append(elems, "NULL")
		case g.chance(20):
			elems = append(elems, g.pick("2147483647", "-2147483648"))
		default:
			elems = append(elems, fmt.Sprint(g.n(13)-3))
		}
	}
	// ARRAY[NULL, ...] is a text[], which PostgreSQL does not assign to
	// an int[] column (42804, as streamdb): now and then only, since the
	// statement fails.
	if len(elems) > 0 && g.chance(2) && (strings.Trim(strings.Join(elems, ""), "NUL") != "" || g.chance(10)) {
		return "ARRAY[" + strings.Join(elems, ", ") + "]"
	}
	return "'{" + strings.Join(elems, ",") + "}'"
}

// textArray returns a text[] literal, as ARRAY[...] or as array text
// (elements quoted and escaped).
func (g *pgoGen) textArray() string {
	var sqlElems, textElems []string
	for range g.n(5) {
		if g.chance(6) {
			sqlElems, textElems = append(sqlElems, "NULL"), append(textElems, "NULL")
			continue
		}
		e := pgoTextElems[g.n(len(pgoTextElems))]
		sqlElems = append(sqlElems, quote(e))
		textElems = append(textElems, `"`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e)+`"`)
	}
	if len(sqlElems) > 0 && g.chance(2) {
		return "ARRAY[" + strings.Join(sqlElems, ", ") + "]"
	}
	return quote("{" + strings.Join(textElems, ",") + "}")
}

// richValue returns a literal for column c of t5.
func (g *pgoGen) richValue(c pgoCol) string {
	if g.chance(7) {
		return "NULL"
	}
	switch c.name {
	case "a":
		return fmt.Sprint(g.n(13) - 3)
	case "j":
		return quote(g.jsonDoc())
	case "ia":
		return g.intArray()
	case "ta":
		return g.textArray()
	case "iv":
		return quote(pgoRichIntervals[g.n(len(pgoRichIntervals))])
	case "f":
		return pgoRichFloats[g.n(len(pgoRichFloats))]
	case "hn":
		return pgoHugeNumerics[g.n(len(pgoHugeNumerics))]
	case "tz":
		return quote(pgoTimestamptzs[g.n(len(pgoTimestamptzs))])
	case "s":
		return quote(pgoRichTexts[g.n(len(pgoRichTexts))])
	}
	panic("no value for t5." + c.name)
}

// richUpdateExpr is a new value for column c of t5. "k" stays an integer.
func (g *pgoGen) richUpdateExpr(c pgoCol) string {
	if g.chance(3) {
		return g.richValue(c)
	}
	switch c.name {
	case "a":
		return g.pick("a + 1", "NULL", "cardinality(ia)", "(j ->> 'k')::int", "array_position(ia, 3)")
	case "j":
		return g.pick("CASE WHEN jsonb_typeof(j) = 'object' THEN jsonb_set(j, '{k}', to_jsonb(a)) ELSE j END",
			"j || jsonb_build_object('s', s, 'k', a)", "CASE WHEN jsonb_typeof(j) = 'object' THEN j - 'a' ELSE j END",
			"jsonb_strip_nulls(j)", "to_jsonb(ia)", "to_jsonb(ta)", "jsonb_build_array(a, s, j)", "j -> 'a'",
			"j || '[1, {\"b\": []}]'", "CASE WHEN jsonb_typeof(j) = 'array' THEN j - 0 ELSE j END")
	case "ia":
		return g.pick("array_append(ia, a)", "array_remove(ia, 3)", "array_cat(ia, ARRAY[1, NULL])", "array_prepend(a, ia)", "'{}'")
	case "ta":
		return g.pick("array_append(ta, s)", "string_to_array(s, ',')", "array_remove(ta, '')", "ta || 'z'::text", "array_cat(ta, ta)")
	case "iv":
		return g.pick("iv + interval '1 mon'", "iv * 2", "justify_interval(iv)", "-iv", "iv - interval '30 days'", "tz - TIMESTAMPTZ '1970-01-01 00:00:00+00'")
	case "f":
		return g.pick("-f", "f * 2", "f / 4", "f + 0.1", "a::float8", "hn::float8")
	case "hn":
		return g.pick("hn * 2", "-hn", "hn + 1", "round(hn, 2)", "trunc(hn)", "hn / 3")
	case "tz":
		return g.pick("tz + interval '1 hour'", "tz - iv", "date_trunc('hour', tz)", "tz + interval '1 mon'",
			"date_bin('15 minutes', tz, "+pgoBinOrigin+")")
	case "s":
		return g.pick("s || 'é'", "initcap(s)", "reverse(s)", "upper(s)", "lpad(s, 4, '😀')", "j ->> 's'")
	}
	panic("no update for t5." + c.name)
}

// pgoRichFailing are statements on t5 that fail in PostgreSQL.
var pgoRichFailing = []string{
	`INSERT INTO t5 (id, j) VALUES (1000, '{"a":}')`,
	`INSERT INTO t5 (id, j) VALUES (1000, '"\u0000"')`,
	`INSERT INTO t5 (id, ia) VALUES (1000, '{1,x}')`,
	`INSERT INTO t5 (id, ia) VALUES (1000, '{1,2147483648}')`,
	`INSERT INTO t5 (id, tz) VALUES (1000, '2024-03-10 25:00:00+00')`,
	`INSERT INTO t5 (id, iv) VALUES (1000, '1 fortnight')`,
	`INSERT INTO t5 (id, f) VALUES (1000, '1e309')`,
	`UPDATE t5 SET a = (j ->> 's')::int WHERE j ->> 's' = 'héllo'`,
}

// pgoBinOrigin is the origin of every generated date_bin over
// timestamptz: amid the values, so sources lie both before and after it
// (date_bin_before_origin).
const pgoBinOrigin = "TIMESTAMPTZ '2001-01-01 00:00:00+00'"

// pgoRichQueries are the fixed queries over t5: each construct the
// random ones may miss in a short run.
var pgoRichQueries = []pgoQuery{
	{name: "rich_json", sql: "SELECT id, j -> 'a' AS ja, j ->> 'k' AS jk, j #> '{a,b}' AS jab, j #>> '{a,0}' AS ja0, j @> '{\"k\": 1}' AS c1, j ? 'k' AS hk, j ?| ARRAY['a', 'b'] AS ab, j || '{\"z\": [null]}' AS jz, j -> 0 AS j0, j ->> -1 AS jl, jsonb_typeof(j) AS t, jsonb_build_object('id', id, 's', s, 'ia', ia, 'tz', tz) AS o, jsonb_extract_path_text(j, 'a', 'b') AS p, jsonb_strip_nulls(j) AS sn, to_jsonb(s) AS js, to_jsonb(ta) AS jta, to_jsonb(f) AS jf, to_jsonb(iv) AS jiv, to_jsonb(hn) AS jhn FROM t5", noView: true},
	{name: "rich_json_set", sql: "SELECT id, jsonb_set(j, '{k}', to_jsonb(a)) AS s1, jsonb_set(j, '{new}', '[1]', false) AS s2, j - 'k' AS d1, (j ->> 'k')::int AS k, j::text AS t, (j::text)::jsonb AS rt FROM t5 WHERE jsonb_typeof(j) = 'object'", noView: true},
	{name: "rich_json_array", sql: "SELECT id, jsonb_array_length(j) AS n, j - 0 AS d0, jsonb_set(j, '{0}', '\"z\"') AS s0, j -> 1 ->> 'k' AS k FROM t5 WHERE jsonb_typeof(j) = 'array'", noView: true},
	{name: "rich_arrays", sql: "SELECT id, array_length(ia, 1) AS l, cardinality(ta) AS c, array_position(ia, 3) AS p, array_position(ta, '') AS pe, array_append(ia, a) AS ap, array_cat(ta, ARRAY[s]) AS cat, array_to_string(ta, ',', '*') AS j1, array_to_string(ia, '-') AS j2, string_to_array(s, ',') AS sa, a = ANY(ia) AS an, ia @> ARRAY[1] AS con, ta && ARRAY['x', ''] AS ov, ia[1] AS i1 FROM t5", noView: true},
	{name: "rich_strings", sql: "SELECT id, split_part(s, ' ', 2) AS sp, lpad(s, 8, 'é*') AS lp, rpad(s, 3) AS rp, initcap(s) AS ic, translate(s, 'lé ', 'LE') AS tr, left(s, -1) AS l, right(s, 2) AS r, repeat(s, 2) AS rep, reverse(s) AS rev, starts_with(s, 'h') AS sw, md5(s) AS m, regexp_replace(s, '[aeioué]+', '<&>', 'g') AS rr, regexp_match(s, '(l+)(.)') AS rm, substring(s from '[A-Z].') AS ss, format('%s|%5s|%-6L|%%', s, a, s) AS f, concat_ws('/', s, a, NULL, ia, tz) AS cw, chr(65 + abs(a)) AS ch, ascii(s) AS asc1 FROM t5", noView: true},
	{name: "rich_datetime", sql: "SELECT id, date_bin('15 minutes', tz, " + pgoBinOrigin + ") AS b, age(tz, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS ag, age(tz::timestamp, TIMESTAMP '2000-02-29 00:00:00') AS ag2, make_date(2024, 1 + abs(a) % 12, 29) AS md, make_timestamp(1970, 1, 1, abs(a) % 24, 59, 59.999999) AS mt, justify_interval(iv) AS ji, date_trunc('day', tz) AS dt, tz + iv AS ti, tz - iv AS tm, to_char(tz, 'YYYY-MM-DD HH24:MI:SS.US TZ OF') AS c1, to_char(tz, 'Dy DD Mon YYYY HH12:MI AM') AS c2, to_char(tz::timestamp, 'FMDay FMMonth FMDDth IYYY-IW-ID J Q DDD') AS c3, to_char(iv, 'HH24:MI:SS') AS c4 FROM t5", noView: true},
	{name: "rich_numbers", sql: "SELECT id, f, -f AS nf, f * 2 AS f2, f / 4 AS f4, abs(f) AS af, floor(f) AS ff, f::text AS ft, round(f::numeric, 2) AS fr, f = 'NaN' AS isnan, f < 0 AS neg, hn::float8 AS hf, hn, hn + 1 AS h1, hn * 2 AS h2, -hn AS nh, round(hn, 3) AS r3, trunc(hn, -5) AS t5, hn / 7 AS d7, hn % 7 AS m7, hn * hn AS sq, hn > 1e29 AS big FROM t5", noView: true},
	{name: "rich_group_f", sql: "SELECT f + 0 AS g, count(*) AS c, count(DISTINCT iv) AS civ, min(tz) AS lo, max(s) AS hi FROM t5 GROUP BY f"},
	{name: "rich_group_iv", sql: "SELECT justify_interval(iv) AS g, count(*) AS c, sum(a) AS sa, count(DISTINCT f) AS cf FROM t5 GROUP BY iv"},
	{name: "rich_group_json", sql: "SELECT j, ia, ta, count(*) AS c, array_agg(id ORDER BY id) AS ids, min(tz) AS lo FROM t5 GROUP BY j, ia, ta"},
	{name: "rich_bool_bit_ordered", sql: "SELECT a % 2 AS g, bool_and(f > 0) AS ba, bool_or(j ? 'k') AS bo, every(s <> '') AS ev, bit_and(a) AS band, bit_or(cardinality(ia)) AS bor, bit_xor(id) AS bx, percentile_disc(0.5) WITHIN GROUP (ORDER BY tz) AS pt, percentile_disc(0.25) WITHIN GROUP (ORDER BY s DESC) AS ps, mode() WITHIN GROUP (ORDER BY a) AS ma, mode() WITHIN GROUP (ORDER BY s) AS ms FROM t5 GROUP BY a % 2"},
	{name: "rich_list_aggs", sql: "SELECT a, string_agg(s, ',' ORDER BY s, id) AS sa, array_agg(tz ORDER BY tz DESC, id) AS aa, jsonb_agg(j ORDER BY id) AS ja, array_agg(DISTINCT s) AS ds, string_agg(DISTINCT s, '|' ORDER BY s) AS dsa, jsonb_agg(f ORDER BY f, id) AS jf FROM t5 GROUP BY a"},
	{name: "rich_variance", sql: "SELECT a % 3 AS g, var_samp(a) AS vs, var_pop(id) AS vp, stddev_samp(cardinality(ia)) AS ss, stddev_pop(id::bigint) AS sp, var_samp(hn) AS vh, stddev_pop(round(hn, 2)) AS sh FROM t5 GROUP BY a % 3"},
	{name: "rich_global", sql: "SELECT count(*) AS c, sum(hn) FILTER (WHERE abs(hn) < 'Infinity') AS sh, avg(hn) FILTER (WHERE abs(hn) < 'Infinity') AS ah, sum(iv) AS si, avg(iv) AS ai, min(f) + 0 AS lo, max(f) + 0 AS hi, min(tz) AS mtz, max(s) AS ms, count(DISTINCT j) AS cj, count(DISTINCT ia) AS cia, count(*) FILTER (WHERE j ? 'k') AS ck, sum(a) FILTER (WHERE f > 0) AS sf, count(DISTINCT s) FILTER (WHERE s <> '') AS cs, max(tz) FILTER (WHERE a > 0) AS mt, string_agg(s, ',' ORDER BY id) FILTER (WHERE a IS NOT NULL) AS sa FROM t5"},
	{name: "rich_rollup", sql: "SELECT a % 3 AS g1, jsonb_typeof(j) AS g2, grouping(a % 3, jsonb_typeof(j)) AS gg, count(*) AS c, string_agg(s, ',' ORDER BY id) AS sa FROM t5 GROUP BY ROLLUP (a % 3, jsonb_typeof(j))"},
	{name: "rich_cube", sql: "SELECT a, s, grouping(a) AS ga, grouping(s) AS gs, count(*) AS c, sum(cardinality(ia)) AS sc FROM t5 GROUP BY CUBE (a, s)"},
	{name: "rich_sets_t1", sql: "SELECT a, f, d, grouping(a, f, d) AS gg, count(*) AS c, sum(n) AS sn FROM t1 GROUP BY GROUPING SETS ((a, f), (d), ())"},
	{name: "rich_srf_select", sql: "SELECT id, unnest(ia) AS u, jsonb_array_elements_text(to_jsonb(ta)) AS e FROM t5"},
	{name: "rich_srf_from", sql: "SELECT x.id, u.v, u.o FROM t5 x, unnest(x.ta) WITH ORDINALITY AS u(v, o)"},
	{name: "rich_srf_json_from", sql: "SELECT x.id, e FROM t5 x, jsonb_array_elements_text(CASE WHEN jsonb_typeof(x.j) = 'array' THEN x.j WHEN jsonb_typeof(x.j -> 'a') = 'array' THEN x.j -> 'a' END) AS e"},
	{name: "rich_srf_group", sql: "SELECT u, count(*) AS c, array_agg(x.id ORDER BY x.id) AS ids FROM t5 x, unnest(x.ia) AS u GROUP BY u"},
	{name: "rich_join_json", sql: "SELECT x.id, y.id AS yid, x.j FROM t5 x JOIN t5 y ON x.j = y.j AND x.id < y.id"},
	{name: "rich_join_t1", sql: "SELECT x.id, y.id AS yid, x.tz, y.ts, x.tz < y.ts AS before FROM t5 x LEFT JOIN t1 y ON x.a = y.a"},
	{name: "rich_topn", sql: "SELECT id, f, iv FROM t5 ORDER BY f DESC, iv, id LIMIT 5", ordered: true},

	// Differences found when t5 was added (see pgoFixedQueries); those
	// without known are fixed.
	{name: "date_bin_before_origin", sql: "SELECT id, date_bin('15 minutes', tz, TIMESTAMPTZ '2001-01-01 00:00:00+00') AS b FROM t5"},
	{name: "to_char_tm", sql: "SELECT id, to_char(tz, 'TMMonth|TMDay|') AS c FROM t5"},
	{name: "min_jsonb", sql: "SELECT min(j) AS lo FROM t5"},
	{name: "regex_backref", sql: "SELECT id, regexp_replace(s, '(l)\\1', '<\\1>') AS r FROM t5"},
	{name: "sum_nonfinite", sql: "SELECT id % 10 AS g, sum(hn) AS sh, avg(hn) AS ah, count(hn) AS c FROM t5 GROUP BY id % 10", keepView: true},
	{name: "minmax_array", sql: "SELECT min(ia) AS lo, max(ia) AS hi, min(ta) AS tlo, max(ta) AS thi FROM t5", keepView: true},
	{name: "topn_array", sql: "SELECT id, ta FROM t5 ORDER BY ta, id LIMIT 3", ordered: true, keepView: true},
	{name: "regex_unicode_class", sql: "SELECT id, substring(s from '[[:upper:]].') AS u, regexp_replace(s, '\\w', '_', 'g') AS w, s ~ '^[[:alpha:]]+$' AS a FROM t5"},
	{name: "rollup_position", sql: "SELECT a, s, count(*) AS c FROM t5 GROUP BY ROLLUP (1, 2)"},
	{name: "agg_unknown_literal", sql: "SELECT a, mode() WITHIN GROUP (ORDER BY 'x') AS m, jsonb_agg('y' ORDER BY id) AS j FROM t5 GROUP BY a"},
	{name: "to_char_interval_hh", sql: "SELECT id, to_char(iv, 'HH HH12:MI') AS c FROM t5"},
	{name: "tz_zone_name", sql: "SELECT id, tz < '2024-03-10 02:30:00 America/New_York' AS b FROM t5"},
}
