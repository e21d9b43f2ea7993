package expr

import (
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The template parsers and processors of to_char, to_number,
// to_timestamp and to_date, and the SQL regular expressions of SIMILAR
// TO. PostgreSQL 15's outputs are in formatting_golden_test.go; these
// tests pin the parsers' structure, round trips and errors.

func TestParseNumTemplate(t *testing.T) {
	for _, tc := range []struct {
		format string
		nodes  string // ids, literals quoted
		desc   numDesc
	}{
		{"999", "9 9 9", numDesc{pre: 3}},
		{"FM0999.90", "FM 0 9 9 9 . 9 0", numDesc{pre: 4, post: 2, zeroStart: 1, zeroEnd: 6, flags: nfFillMode | nfZero | nfDecimal}},
		{"9G999D99S", "9 G 9 9 9 D 9 9 S", numDesc{pre: 4, post: 2, lsign: lsignPost, flags: nfDecimal | nfLDecimal | nfLSign}},
		{"S999", "S 9 9 9", numDesc{pre: 3, lsign: lsignPre, flags: nfLSign}},
		{"99V999", "9 9 V 9 9 9", numDesc{pre: 2, multi: 3, flags: nfMulti}},
		{"9.99EEEE", "9 . 9 9 EEEE", numDesc{pre: 1, post: 2, flags: nfDecimal | nfEEEE}},
		{`"ab"9x9`, `"a" "b" 9 "x" 9`, numDesc{pre: 2}},
		{`\"9\"`, `"\"" 9 "\""`, numDesc{pre: 1}},
		{"SG9MI", "SG 9 MI", numDesc{pre: 1, flags: nfMinus | nfPlus}},
		{"999PR", "9 9 9 PR", numDesc{pre: 3, flags: nfBracket}},
		{"rnth", "rn th", numDesc{flags: nfRoman}},
		{"SPE", "SP \"E\"", numDesc{}},
		{"é9", `"é" 9`, numDesc{pre: 1}},
	} {
		tmpl, err := parseNumTemplate(tc.format)
		if err != nil {
			t.Errorf("%q: %v", tc.format, err)
			continue
		}
		if got := numNodesString(tmpl.nodes); got != tc.nodes {
			t.Errorf("%q: nodes %s, want %s", tc.format, got, tc.nodes)
		}
		if tmpl.desc != tc.desc {
			t.Errorf("%q: desc %+v, want %+v", tc.format, tmpl.desc, tc.desc)
		}
	}
}

func numNodesString(nodes []numNode) string {
	names := map[numKeyID]string{}
	for _, k := range numKeywords {
		if _, ok := names[k.id]; !ok {
			names[k.id] = k.name
		}
	}
	var parts []string
	for _, n := range nodes {
		if n.id == numLiteral {
			parts = append(parts, strconv.Quote(n.lit))
			continue
		}
		parts = append(parts, names[n.id])
	}
	return strings.Join(parts, " ")
}

func TestNumTemplateErrors(t *testing.T) {
	for format, msg := range map[string]string{
		"99.9.9":    "multiple decimal points",
		"9V9.9":     `cannot use "V" and decimal point together`,
		"9.9V9":     `cannot use "V" and decimal point together`,
		"S9S":       `cannot use "S" twice`,
		"MI9S":      `cannot use "S" and "PL"/"MI"/"SG"/"PR" together`,
		"S9MI":      `cannot use "S" and "MI" together`,
		"S9PL":      `cannot use "S" and "PL" together`,
		"S9SG":      `cannot use "S" and "SG" together`,
		"9MIPR":     `cannot use "PR" and "S"/"PL"/"MI"/"SG" together`,
		"9PR9":      `"9" must be ahead of "PR"`,
		"9PR0":      `"0" must be ahead of "PR"`,
		"9EEEE9":    `"EEEE" must be the last pattern used`,
		"9EEEEEEEE": `cannot use "EEEE" twice`,
		"FM9EEEE":   `"EEEE" is incompatible with other formats`,
		"RN9EEEE":   `"EEEE" is incompatible with other formats`,
	} {
		_, err := parseNumTemplate(format)
		if pe := pgerr.As(err); err == nil || pe.Code != pgerr.SyntaxError || pe.Message != msg {
			t.Errorf("%q: %v, want 42601 %s", format, err, msg)
		}
	}
}

func TestParseDCHTemplate(t *testing.T) {
	for format, want := range map[string]string{
		"YYYY-MM-DD":            "YYYY - MM - DD",
		"FMDDth Month":          "FM:DD:th _ Month",
		"HH12:MI:SS AM":         "HH12 : MI : SS _ AM",
		"hh24miss":              "hh24 mi ss",
		`"T"YYYY\"x`:            `'T' YYYY " 'x'`,
		"Y,YYYIYYYIWID":         "Y,YYY IYYY IW ID",
		"TMMonth DDSP":          "Month _ DD",
		"dAY Day DAY":           "d 'A' Y _ Day _ DAY",
		"FF1FF6US MS":           "FF1 FF6 US _ MS",
		"FXYYYY\tMM":            "FX YYYY _ MM",
		"xé":                    "'x' 'é'",
		`"unterminated`:         "'u' 'n' 't' 'e' 'r' 'm' 'i' 'n' 'a' 't' 'e' 'd'",
		"TZH:TZM OF tz SSSSSQJ": "TZH : TZM _ OF _ tz _ SSSSS Q J",
	} {
		got := dchNodesString(parseDCHTemplate(format))
		if got != want {
			t.Errorf("%q: %s, want %s", format, got, want)
		}
	}
}

// dchNodesString renders nodes: patterns by name (FM: and :th marked),
// separators as themselves, spaces as _, characters quoted.
func dchNodesString(nodes []dchNode) string {
	var parts []string
	for _, n := range nodes {
		switch n.kind {
		case dchAction:
			s := n.key.name
			if n.fm {
				s = "FM:" + s
			}
			if n.th {
				s += ":th"
			}
			parts = append(parts, s)
		case dchSeparator:
			parts = append(parts, n.char)
		case dchSpace:
			parts = append(parts, "_")
		default:
			parts = append(parts, "'"+n.char+"'")
		}
	}
	return strings.Join(parts, " ")
}

// TestToNumberRoundTrip: to_number reads back what to_char writes with
// the same template.
func TestToNumberRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	formats := []string{"9999999", "S9999999", "9999999S", "FM9999999", "FM9,999,999", "9G999G999", "0000000",
		"9999999.99", "S9999999.99", "FM9999999.999", "9999999.99MI", "MI9999999.99", "SG9999999.99",
		"9999999.99PR", "L9999999.99", "9999999.99PL", `"val:"9999999.99`, "9999999th", "FM9999999D00"}
	for i := 0; i < 2000; i++ {
		f := formats[rnd.Intn(len(formats))]
		v := rnd.Int63n(2_000_000_000) - 1_000_000_000
		if !strings.Contains(f, ".") && !strings.Contains(f, "D") || rnd.Intn(2) == 0 {
			v = v / 1000 * 100
		}
		if (strings.Contains(f, "th") || strings.Contains(f, "PL")) && v < 0 {
			v = -v
		}
		d := apd.New(v, -2)
		if !strings.Contains(f, ".") && !strings.Contains(f, "D") {
			d = apd.New(v/100, 0)
		}
		s, err := toCharNumber(func(dd *numDesc, x types.Datum) (numOutput, error) {
			return numericOutput(dd, x.(*apd.Decimal))
		})([]types.Datum{d, f})
		if err != nil {
			t.Fatalf("to_char(%s, %q): %v", d, f, err)
		}
		back, err := toNumber([]types.Datum{s, f})
		if err != nil {
			t.Fatalf("to_number(%q, %q): %v", s, f, err)
		}
		if back.(*apd.Decimal).Cmp(d) != 0 {
			t.Errorf("to_number(to_char(%s, %q) = %q) = %s", d, f, s, back)
		}
	}
}

// TestToTimestampRoundTrip: to_timestamp and to_date read back what
// to_char writes with the same template, for templates that keep every
// field.
func TestToTimestampRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	formats := []string{"YYYY-MM-DD HH24:MI:SS.US", "FMDD FMMonth YYYY HH12:MI:SS.US AM", "YYYYMMDDHH24MISSUS",
		"Dy, DD Mon YYYY HH24:MI:SS.FF6", "J SSSS US", "IYYY-IW-ID HH24:MI:SS.US", "YYYY DDD HH24 MI SS US",
		"YYYY-MM-DD BC HH:MI:SS.US PM", `"on" FMDDth "of" FMMonth, YYYY "at" HH24:MI:SS.US`, "Y,YYY-MM-DD HH24:MI:SS.US",
		"YYYY-RM-DD HH24:MI:SS.US", "YYYY-MM-DD A.M. HH12:MI:SS.US", "IYYY IDDD HH24:MI:SS.US"}
	bc, ad, end := int64(-2440588)*types.MicrosPerDay, int64(-719162)*types.MicrosPerDay, int64(2932896)*types.MicrosPerDay
	for i := 0; i < 3000; i++ {
		f := formats[rnd.Intn(len(formats))]
		ts := types.Timestamp(ad + rnd.Int63n(end-ad)) // 1 AD to 9999 AD
		if strings.Contains(f, "BC") || strings.HasPrefix(f, "J") {
			ts = types.Timestamp(bc + rnd.Int63n(end-bc)) // from 4714 BC
		}
		s, err := toCharTimestamp(true)([]types.Datum{ts, f})
		if err != nil {
			t.Fatal(err)
		}
		back, err := toTimestampText([]types.Datum{s, f})
		if err != nil {
			t.Fatalf("to_timestamp(%q, %q): %v", s, f, err)
		}
		if back != ts {
			t.Errorf("to_timestamp(to_char(%s, %q) = %q) = %s", types.FormatTimestamp(ts, true), f, s,
				types.FormatTimestamp(back.(types.Timestamp), true))
		}
		date, err := toDate([]types.Datum{s, f})
		if err != nil {
			t.Fatalf("to_date(%q, %q): %v", s, f, err)
		}
		if days, _ := types.SplitTimestamp(ts); date != types.Date(days) {
			t.Errorf("to_date(%q, %q) = %v, want day %d", s, f, date, days)
		}
	}
}

func TestToTimestampErrors(t *testing.T) {
	for _, tc := range []struct{ in, format, code, msg, detail string }{
		{"2020-13-01", "YYYY-MM-DD", "22008", `date/time field value out of range: "2020-13-01"`, ""},
		{"20", "YYYYMM", "22007", `source string too short for "YYYY" formatting field`, "Field requires 4 characters, but only 2 remain."},
		{"20x0", "YYYYMM", "22007", `invalid value "20x0" for "YYYY"`, "Field requires 4 characters, but only 2 could be parsed."},
		{"xx", "MM", "22007", `invalid value "xx" for "MM"`, "Value must be an integer."},
		{"Foo 1", "Mon DD", "22007", `invalid value "Foo" for "Mon"`, "The given value did not match any of the allowed values for this field."},
		{"1 2", "MM MM", "22007", `conflicting values for "MM" field in formatting string`, "This value contradicts a previous setting for the same field type."},
		{"13 PM", "HH12 PM", "22007", `hour "13" is invalid for the 12-hour clock`, ""},
		{"2020 1 1", "YYYY IW MM", "22007", "invalid combination of date conventions", ""},
		{"99999999999", "FMYYYY", "22008", `value for "YYYY" in source string is out of range`, "Value must be in the range -2147483648 to 2147483647."},
		{"100", "DDD", "22007", "cannot calculate day of year without year information", ""},
		{"10 +16", "HH24 TZH", "22009", `time zone displacement out of range: "10 +16"`, ""},
		{"10 UTC", "HH24 TZ", "0A000", `formatting field "TZ" is only supported in to_char`, ""},
		{"x,5", "Y,YYY", "22007", `invalid input string for "Y,YYY"`, ""},
	} {
		_, err := toTimestampText([]types.Datum{tc.in, tc.format})
		if err == nil {
			t.Errorf("to_timestamp(%q, %q) succeeded, want %s", tc.in, tc.format, tc.msg)
			continue
		}
		pe := pgerr.As(err)
		if pe.Code != tc.code || pe.Message != tc.msg || pe.Detail != tc.detail {
			t.Errorf("to_timestamp(%q, %q) = %v (%s, detail %q), want %s %s (detail %q)", tc.in, tc.format, err,
				pe.Code, pe.Detail, tc.code, tc.msg, tc.detail)
		}
	}
	if _, err := toDate([]types.Datum{"4714-11-23 BC", "YYYY-MM-DD BC"}); err == nil ||
		err.Error() != `date out of range: "4714-11-23 BC"` {
		t.Errorf("to_date before 4714-11-24 BC: %v", err)
	}
}

func TestSimilarToEscape(t *testing.T) {
	esc := func(s string) *string { return &s }
	for _, tc := range []struct {
		pattern string
		escape  *string
		want    string
	}{
		{"a%", nil, "^(?:a.*)$"},
		{"_b_", nil, "^(?:.b.)$"},
		{"(a|b)c%_\\.[x%]", nil, `^(?:(?:a|b)c.*.\.[x%])$`},
		{`a#"b#"c`, esc("#"), "^(?:a){1,1}?(b){1,1}(?:c)$"},
		{`x#"y`, esc("#"), "^(?:x){1,1}?(y)$"},
		{`a.b^c$d`, nil, `^(?:a\.b\^c\$d)$`},
		{`a\b`, esc(""), `^(?:a\\b)$`},
		{`!%!_!!`, esc("!"), `^(?:\%\_\!)$`},
		{"[]a%]", nil, "^(?:[]a%])$"},
		{"[^]a%]", nil, "^(?:[^]a%])$"},
		{"[[:alpha:]%]%", nil, "^(?:[[:alpha:]%].*)$"},
		{`[a\]%]x`, nil, `^(?:[a\]%]x)$`},
		{`[a\]%]x`, esc("!"), `^(?:[a\\].*]x)$`},
		{"aéb", esc("é"), `^(?:a\b)$`},
		{"aé%", esc("é"), `^(?:a\%)$`},
		{`a\`, nil, "^(?:a)$"},
		{`\"`, nil, "^(?:){1,1}?()$"},
		{"", nil, "^(?:)$"},
	} {
		got, err := similarRegex(tc.pattern, tc.escape)
		if err != nil || got != tc.want {
			t.Errorf("similar_to_escape(%q) = %v, %v; want %s", tc.pattern, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ pattern, escape, code, msg string }{
		{`a#"b#"c#"d`, "#", "2200C", "SQL regular expression may not contain more than two escape-double-quote separators"},
		{"a", "ab", "22025", "invalid escape string"},
	} {
		_, err := similarRegex(tc.pattern, &tc.escape)
		if pe := pgerr.As(err); err == nil || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("similar_to_escape(%q, %q) = %v, want %s %s", tc.pattern, tc.escape, err, tc.code, tc.msg)
		}
	}
}

func TestSimilarSubstring(t *testing.T) {
	for _, tc := range []struct {
		s, pattern, escape string
		want               any
	}{
		{"foobar", `%#"o_b#"%`, "#", "oob"},
		{"abcabc", `%#"b%#"`, "#", "bcabc"},
		{"abcabc", `%#"b%#"%`, "#", "bcabc"},
		{"abcabc", `_#"%b#"%`, "#", "bcab"},
		{"abc", `a#"b%`, "#", "bc"},
		{"abc", `a#"b#"c`, "#", "b"},
		{"abc", "b", "#", nil},
		{"abc", "%", "#", "abc"},
		{"aaa", `#"a*#"%`, "#", "aaa"},
		{"héllo wörld", `%#"w_r#"%`, "#", "wör"},
		{"x", `#"#"x`, "#", ""},
	} {
		got, err := similarSubstring([]types.Datum{tc.s, tc.pattern, tc.escape})
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("substring(%q similar %q escape %q) = %#v, %v; want %#v", tc.s, tc.pattern, tc.escape, got, err, tc.want)
		}
	}
}
