package jsonb

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// slowField is what the fast paths must equal: Parse, Field, String/Text.
func slowField(t testing.TB, s, key string) (val string, valOK bool, text string, textOK bool) {
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	f, ok := v.Field(key)
	if !ok {
		return "", false, "", false
	}
	text, textOK = f.Text()
	return f.String(), true, text, textOK
}

func slowElem(t testing.TB, s string, i int) (val string, valOK bool, text string, textOK bool) {
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	e, ok := v.Elem(i)
	if !ok {
		return "", false, "", false
	}
	text, textOK = e.Text()
	return e.String(), true, text, textOK
}

// checkFieldCanonical checks the fast paths for s -> key and s ->> key
// against the slow ones. s must be canonical.
func checkFieldCanonical(t testing.TB, s, key string) {
	t.Helper()
	wv, wok, wt, wtok := slowField(t, s, key)
	gv, gok := FieldCanonical(s, key)
	if gv != wv || gok != wok {
		t.Fatalf("FieldCanonical(%q, %q) = %q, %v; want %q, %v", s, key, gv, gok, wv, wok)
	}
	gt, gtok := FieldTextCanonical(s, key)
	if gt != wt || gtok != wtok {
		t.Fatalf("FieldTextCanonical(%q, %q) = %q, %v; want %q, %v", s, key, gt, gtok, wt, wtok)
	}
}

func checkElemCanonical(t testing.TB, s string, i int) {
	t.Helper()
	wv, wok, wt, wtok := slowElem(t, s, i)
	gv, gok := ElemCanonical(s, i)
	if gv != wv || gok != wok {
		t.Fatalf("ElemCanonical(%q, %d) = %q, %v; want %q, %v", s, i, gv, gok, wv, wok)
	}
	gt, gtok := ElemTextCanonical(s, i)
	if gt != wt || gtok != wtok {
		t.Fatalf("ElemTextCanonical(%q, %d) = %q, %v; want %q, %v", s, i, gt, gtok, wt, wtok)
	}
}

// fixedProbeKeys are looked up in every test value.
var fixedProbeKeys = []string{
	"", "a", "b", "c", "z", "ab", "aa", "ba", "abc", "key", "k", "v", "id", "name",
	`"`, `\`, "/", "\n", "\t", "\b", "\f", "\r", "\x01", "\x1f", "\x7f", "é", "😀", "\u2028",
	`a"`, `\"`, `"\`, `\\`, "\\u0001", `\n`, "a\n", "\na", "{", "]", ":", ",", " ", "a b",
	"\x00", "a\x00", "\xff\xfe", "null", "1", "-1",
}

// probeKeys returns keys to look up in the canonical text s: the fixed
// ones, each top-level key, its prefixes, its extensions, and its
// neighbours of the same length.
func probeKeys(v Value) []string {
	keys := append([]string(nil), fixedProbeKeys...)
	if v.Kind() != Object {
		return keys
	}
	ks, _ := v.Keys()
	for _, k := range ks {
		keys = append(keys, k, k+"a", k+"\x00", k+"\xff", "a"+k, `"`+k, `\`+k+"\n")
		for n := 0; n < len(k); n++ {
			keys = append(keys, k[:n])
		}
		if len(k) > 0 {
			b := []byte(k)
			b[len(b)-1]++
			keys = append(keys, string(b))
			b[len(b)-1] -= 2
			keys = append(keys, string(b))
			b[len(b)-1]++
			b[0]++
			keys = append(keys, string(b))
			keys = append(keys, k[1:]+k[:1])
		}
	}
	return keys
}

// probeIndexes returns the indexes to look up in the canonical text s.
func probeIndexes(v Value) []int {
	n := v.Len()
	idx := []int{math.MinInt, math.MinInt + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt32, math.MaxInt, -1 << 40, 1 << 40}
	for i := -n - 3; i <= n+3; i++ {
		idx = append(idx, i)
	}
	return idx
}

// canonicalTestTexts returns the canonical texts of the test values that
// Parse accepts (the values of the PostgreSQL-checked tables, random
// values, values at the limits), plus some of our own.
func canonicalTestTexts(t testing.TB) []string {
	var texts []string
	seen := map[string]bool{}
	add := func(v Value) {
		s := v.String()
		if seen[s] {
			return
		}
		seen[s] = true
		if _, err := Parse(s); err != nil {
			return // FromString with a NUL: not a storable value
		}
		texts = append(texts, s)
	}
	for _, v := range sortKeyTestValues(t) {
		add(v)
	}
	for _, s := range []string{
		`{"a": 1, "aa": 2, "ab": {"a": [1, {"b": "}"}]}, "b\"": "\\", "\u0001": "\n\u0001"}`,
		`{"\\": 1, "\"": 2, "\n": 3, "\\\\": "x", "\\\"": "y", "\"\\": "z", "\u0001\u0002": "w"}`,
		`{"a": "é😀\u2028", "é": "\ud83d\ude00", "\ud83d\ude00": 5, "€": true, "aé": false}`,
		`{"": null, "x": "", "y": [], "z": {}, "yy": "\"]}", "zz": [[], {}, [{}], "]"]}`,
		`{"k": "customer-000123", "v": 12345, "note": "some text"}`,
		`[1, "a\"b", [2, [3]], {"a": "]"}, null, true, false, -1.50, "\\"]`,
		`["\\\\\"", "\"\\\\", "\\", "x\\\\"]`,
		`"\\\""`, `"\""`, `"\\"`, `"\u0001"`, `""`, `"null"`,
		benchDoc, bigBenchDoc(),
	} {
		add(mustParse(t, s))
	}
	return texts
}

// TestFieldCanonical checks FieldCanonical and FieldTextCanonical against
// Parse, Field and String/Text on every test value and many keys.
func TestFieldCanonical(t *testing.T) {
	texts := canonicalTestTexts(t)
	r := rand.New(rand.NewSource(6))
	n := 0
	for _, s := range texts {
		v := mustParse(t, s)
		keys := probeKeys(v)
		for range 4 {
			keys = append(keys, randString(r))
		}
		for _, k := range keys {
			checkFieldCanonical(t, s, k)
			n++
		}
	}
	t.Logf("%d values, %d lookups", len(texts), n)
}

// TestElemCanonical checks ElemCanonical and ElemTextCanonical against
// Parse, Elem and String/Text on every test value and many indexes.
func TestElemCanonical(t *testing.T) {
	texts := canonicalTestTexts(t)
	n := 0
	for _, s := range texts {
		for _, i := range probeIndexes(mustParse(t, s)) {
			checkElemCanonical(t, s, i)
			n++
		}
	}
	t.Logf("%d values, %d lookups", len(texts), n)
}

// TestCanonicalPGCases checks the fast paths against PostgreSQL's results
// for -> and ->> directly.
func TestCanonicalPGCases(t *testing.T) {
	for _, c := range pgFieldCases {
		s := mustParse(t, c.in).String()
		v, ok := FieldCanonical(s, c.key)
		check(t, fmt.Sprintf("%s -> %q", c.in, c.key), c.want, v, ok, nil)
		v, ok = FieldTextCanonical(s, c.key)
		check(t, fmt.Sprintf("%s ->> %q", c.in, c.key), c.wantText, v, ok, nil)
	}
	for _, c := range pgElemCases {
		s := mustParse(t, c.in).String()
		v, ok := ElemCanonical(s, c.idx)
		check(t, fmt.Sprintf("%s -> %d", c.in, c.idx), c.want, v, ok, nil)
		v, ok = ElemTextCanonical(s, c.idx)
		check(t, fmt.Sprintf("%s ->> %d", c.in, c.idx), c.wantText, v, ok, nil)
	}
}

// TestCanonicalNested looks up keys and indexes along every path of random
// values, feeding each member's fast-path text to the next step.
func TestCanonicalNested(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var walk func(s string, v Value)
	walk = func(s string, v Value) {
		if s != v.String() {
			t.Fatalf("member text %q, want %q", s, v.String())
		}
		switch v.Kind() {
		case Object:
			keys, vals, _ := v.Each()
			for i, k := range keys {
				m, ok := FieldCanonical(s, k)
				if !ok {
					t.Fatalf("FieldCanonical(%q, %q) not found", s, k)
				}
				walk(m, vals[i])
			}
		case Array:
			elems, _ := v.Elements()
			for i, e := range elems {
				m, ok := ElemCanonical(s, i)
				if !ok {
					t.Fatalf("ElemCanonical(%q, %d) not found", s, i)
				}
				walk(m, e)
			}
		}
	}
	for range 20000 {
		v := randValue(r, 0)
		walk(v.String(), v)
	}
}

// TestCanonicalNoPanic feeds the fast paths non-canonical and broken text:
// the results are unspecified, but they must not panic and must return a
// substring of the input for ->.
func TestCanonicalNoPanic(t *testing.T) {
	inputs := []string{"", "{", "[", "}", "]", `"`, `"\`, `"\"`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a": `,
		`{"a": 1`, `{"a": 1,`, `{"a": 1, `, `{"a": [`, `{"a": "`, `{"a": "\`, `{"a\`, `{"\u`, `{"\u12`,
		`{"\ud800": 1}`, `{"\ud800\u`, `{"\ud800\udc0`, `[1,`, `[1, `, `[1, [`, `["\`, `[,]`, `[]]`,
		`{,}`, `{"a":1}`, `{ "a" : 1 }`, `{"b": 1, "a": 2}`, `[1 , 2]`, `{"a": }`, `{"a": ,}`, `[1, ]`}
	for _, c := range pgParseCases {
		inputs = append(inputs, c.in)
	}
	for _, s := range inputs {
		for _, k := range fixedProbeKeys {
			noPanicCanonical(t, s, k, 0)
		}
		for _, i := range []int{-3, -2, -1, 0, 1, 2, 3} {
			noPanicCanonical(t, s, "a", i)
		}
	}
}

func noPanicCanonical(t testing.TB, s, key string, i int) {
	t.Helper()
	for _, f := range []func() (string, bool){
		func() (string, bool) { return FieldCanonical(s, key) },
		func() (string, bool) { return ElemCanonical(s, i) },
	} {
		if v, ok := f(); ok && !strings.Contains(s, v) {
			t.Fatalf("%q: result %q is not a substring", s, v)
		}
	}
	FieldTextCanonical(s, key)
	ElemTextCanonical(s, i)
}

// FuzzFieldCanonical checks the fast paths against the slow ones on the
// canonical text of what Parse accepts, and that they do not panic on the
// raw input.
func FuzzFieldCanonical(f *testing.F) {
	for _, c := range pgFieldCases {
		f.Add(c.in, c.key, 0)
	}
	for _, c := range pgElemCases {
		f.Add(c.in, "", c.idx)
	}
	f.Add(`{"a\"": {"\\": [1, "\n"]}, "\u0001": null}`, "a\"", -1)
	f.Fuzz(func(t *testing.T, in, key string, i int) {
		noPanicCanonical(t, in, key, i)
		v, err := Parse(in)
		if err != nil {
			return
		}
		s := v.String()
		checkFieldCanonical(t, s, key)
		checkElemCanonical(t, s, i)
		if v.Kind() == Object {
			keys, _ := v.Keys()
			for _, k := range keys {
				checkFieldCanonical(t, s, k)
			}
		}
	})
}

// bigBenchDoc is a canonical object of about 1 KB: 30 members of mixed
// kinds, with "k" and "v" among them.
func bigBenchDoc() string {
	var b strings.Builder
	b.WriteString(`{"k": "customer-000123", "v": 12345`)
	for i := 0; i < 32; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `, "field_%02d": "value number %d"`, i, i)
		case 1:
			fmt.Fprintf(&b, `, "field_%02d": %d.25`, i, i*1000)
		case 2:
			fmt.Fprintf(&b, `, "field_%02d": [%d, "x", true]`, i, i)
		default:
			fmt.Fprintf(&b, `, "field_%02d": {"a": %d, "b": "y"}`, i, i)
		}
	}
	b.WriteString(`, "zzzzzzzzzz_last": "the end", "zzzzzzzzzz_num": 42}`)
	v, err := Parse(b.String())
	if err != nil {
		panic(err)
	}
	return v.String()
}

var benchSink string

func benchFieldText(b *testing.B, s, key string, fast bool) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	if fast {
		for b.Loop() {
			t, ok := FieldTextCanonical(s, key)
			if !ok {
				b.Fatal("missing")
			}
			benchSink = t
		}
		return
	}
	for b.Loop() {
		v, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		f, ok := v.Field(key)
		if !ok {
			b.Fatal("missing")
		}
		t, _ := f.Text()
		benchSink = t
	}
}

// BenchmarkFieldTextCanonical compares FieldTextCanonical with Parse,
// Field and Text (doc ->> 'key') on a small and a 1 KB object, for a
// string member and a number member.
func BenchmarkFieldTextCanonical(b *testing.B) {
	small := mustParse(b, `{"k": "customer-000123", "v": 12345, "note": "some text padding it out to about 100 b"}`).String()
	big := bigBenchDoc()
	for _, c := range []struct {
		name, doc, key string
	}{
		{"small/string", small, "k"},
		{"small/number", small, "v"},
		{"small/last", small, "note"},
		{"1KB/string", big, "k"},
		{"1KB/number", big, "v"},
		{"1KB/last", big, "zzzzzzzzzz_num"},
		{"1KB/nested", big, "field_23"},
	} {
		b.Run(fmt.Sprintf("%s/%dB/fast", c.name, len(c.doc)), func(b *testing.B) { benchFieldText(b, c.doc, c.key, true) })
		b.Run(fmt.Sprintf("%s/%dB/slow", c.name, len(c.doc)), func(b *testing.B) { benchFieldText(b, c.doc, c.key, false) })
	}
}

// BenchmarkElemTextCanonical compares ElemTextCanonical with Parse, Elem
// and Text on a small array.
func BenchmarkElemTextCanonical(b *testing.B) {
	s := mustParse(b, `[12345, "customer-000123", {"a": [1, 2]}, "some text", 19.99]`).String()
	for _, i := range []int{1, -1} {
		b.Run(fmt.Sprintf("%d/fast", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink, _ = ElemTextCanonical(s, i)
			}
		})
		b.Run(fmt.Sprintf("%d/slow", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := Parse(s)
				if err != nil {
					b.Fatal(err)
				}
				e, _ := v.Elem(i)
				benchSink, _ = e.Text()
			}
		})
	}
}

// TestElemMinInt is a regression test: -i overflowed for math.MinInt64,
// and Elem and DeleteIndex indexed out of range.
func TestElemMinInt(t *testing.T) {
	v := mustParse(t, "[1, 2, 3]")
	for _, i := range []int{math.MinInt, math.MinInt + 1, -4} {
		if e, ok := v.Elem(i); ok {
			t.Errorf("Elem(%d) = %s", i, e)
		}
		if d, err := v.DeleteIndex(i); err != nil || d.String() != "[1, 2, 3]" {
			t.Errorf("DeleteIndex(%d) = %s, %v", i, d, err)
		}
	}
}
