package jsonb

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

func TestConstructors(t *testing.T) {
	obj := NewObject([]string{"b", "a", "aa", "a", ""}, []Value{FromInt(1), FromInt(2), FromInt(3), FromInt(4), NullValue()})
	if got, want := obj.String(), `{"": null, "a": 4, "b": 1, "aa": 3}`; got != want {
		t.Errorf("NewObject: got %s, want %s", got, want)
	}
	elems := []Value{FromBool(true), FromString("x\ny"), NullValue()}
	arr := NewArray(elems)
	elems[0] = FromBool(false) // NewArray copies
	if got, want := arr.String(), `[true, "x\ny", null]`; got != want {
		t.Errorf("NewArray: got %s, want %s", got, want)
	}
	if got, want := NewArray(nil).String(), "[]"; got != want {
		t.Errorf("NewArray(nil): got %s, want %s", got, want)
	}
	if got, want := NewObject(nil, nil).String(), "{}"; got != want {
		t.Errorf("NewObject(nil, nil): got %s, want %s", got, want)
	}
	var zero Value
	if zero.Kind() != Null || zero.String() != "null" || !zero.IsNull() {
		t.Errorf("the zero Value is not JSON null: %v", zero)
	}

	for _, c := range []struct {
		d    *apd.Decimal
		want string
	}{
		{apd.New(1, 2), "100"},
		{apd.New(15, -1), "1.5"},
		{apd.New(150, -2), "1.50"},
		{apd.New(-15, -3), "-0.015"},
		{apd.New(-5, 1), "-50"},
		{apd.New(0, 3), "0"},
		{apd.New(0, -3), "0.000"},
		{&apd.Decimal{Negative: true}, "0"},
		{&apd.Decimal{Negative: true, Exponent: -2}, "0.00"},
		{&apd.Decimal{Form: apd.NaN}, `"NaN"`},
		{&apd.Decimal{Form: apd.Infinite}, `"Infinity"`},
		{&apd.Decimal{Form: apd.Infinite, Negative: true}, `"-Infinity"`},
	} {
		if got := FromNumber(c.d).String(); got != c.want {
			t.Errorf("FromNumber(%s) = %s, want %s", c.d, got, c.want)
		}
	}
	for _, c := range []struct {
		s    string
		want string
	}{
		{"1e+100", "1" + strings.Repeat("0", 100)},
		{"-0", "0"},
		{"NaN", `"NaN"`},
		{"-Infinity", `"-Infinity"`},
		{"1.", `"1."`},
		{" 1", `" 1"`},
		{"0x10", `"0x10"`},
	} {
		v, err := FromNumberText(c.s)
		if err != nil || v.String() != c.want {
			t.Errorf("FromNumberText(%q) = %s, %v; want %s", c.s, v, err, c.want)
		}
	}
	if _, err := FromNumberText("1e131072"); pgerr.Code(err) != pgerr.NumericOutOfRange {
		t.Errorf("FromNumberText(1e131072): got %v, want 22003", err)
	}
	if got := FromInt(-42).String(); got != "-42" {
		t.Errorf("FromInt(-42) = %s", got)
	}
}

func TestAccessors(t *testing.T) {
	v := mustParse(t, `{"b": true, "n": 1.50, "s": "x", "a": [1, 2], "z": null}`)
	if v.Kind() != Object || v.Len() != 5 || v.IsScalar() {
		t.Fatalf("kind %v len %d", v.Kind(), v.Len())
	}
	b, _ := v.Field("b")
	if x, ok := b.Bool(); !x || !ok || b.Typeof() != "boolean" {
		t.Errorf("Bool: %v %v", x, ok)
	}
	n, _ := v.Field("n")
	if d, ok := n.Num(); !ok || d.String() != "1.50" {
		t.Errorf("Num: %v %v", d, ok)
	}
	if s, ok := n.NumText(); !ok || s != "1.50" {
		t.Errorf("NumText: %v %v", s, ok)
	}
	if _, ok := n.Str(); ok {
		t.Errorf("Str of a number")
	}
	if _, ok := n.Bool(); ok {
		t.Errorf("Bool of a number")
	}
	s, _ := v.Field("s")
	if x, ok := s.Str(); !ok || x != "x" {
		t.Errorf("Str: %v %v", x, ok)
	}
	if _, ok := s.Num(); ok {
		t.Errorf("Num of a string")
	}
	if x, ok := s.Text(); !ok || x != "x" {
		t.Errorf("Text: %v %v", x, ok)
	}
	a, _ := v.Field("a")
	if x, ok := a.Text(); !ok || x != "[1, 2]" || a.Len() != 2 {
		t.Errorf("Text of an array: %v %v", x, ok)
	}
	z, _ := v.Field("z")
	if _, ok := z.Text(); ok || !z.IsNull() {
		t.Errorf("Text of null should be SQL NULL")
	}
	keys, _ := v.Keys()
	if want := []string{"a", "b", "n", "s", "z"}; !slices.Equal(keys, want) {
		t.Errorf("Keys: %q, want %q", keys, want)
	}
	keys[0] = "changed" // Keys returns a copy
	if k, _ := v.Keys(); k[0] != "a" {
		t.Errorf("Keys shares the value's storage")
	}
	for k, want := range map[Kind]string{Null: "null", Bool: "boolean", Number: "number", String: "string", Array: "array", Object: "object", 99: "invalid"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %s", k, k.String())
		}
	}
	if !IsValidNumber("-1.5e+3") || IsValidNumber("1.") || IsValidNumber("") || IsValidNumber("-") || IsValidNumber("1 ") {
		t.Errorf("IsValidNumber")
	}
}

func TestEditsDoNotModify(t *testing.T) {
	const in = `{"a": [1, 2, {"b": null}], "c": {"d": 1}}`
	v := mustParse(t, in)
	v.Set([]string{"a", "2", "b"}, FromInt(5), true)
	v.Insert([]string{"a", "0"}, FromInt(5), false)
	v.DeletePath([]string{"c", "d"})
	v.DeleteKey("a")
	v.DeleteKeys([]string{"c"})
	v.StripNulls()
	Concat(v, mustParse(t, `{"a": 1}`))
	if got := v.String(); got != in {
		t.Errorf("an edit changed its input: %s", got)
	}
	e, _ := v.Field("a")
	e.DeleteIndex(0)
	if got := v.String(); got != in {
		t.Errorf("an edit changed its input: %s", got)
	}
}

func TestNullPathElements(t *testing.T) {
	v := mustParse(t, `{"a": {"b": 1}}`)
	_, err := v.SetNulls([]string{"a", ""}, []bool{false, true}, FromInt(1), true)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.NullValueNotAllowed || pe.Message != "path element at position 2 is null" {
		t.Errorf("got %v", err)
	}
	if !errors.As(NullPathElementError(3), &pe) || pe.Message != "path element at position 3 is null" {
		t.Errorf("NullPathElementError: %v", pe)
	}
}

func nest(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestMaxDepth(t *testing.T) {
	for _, s := range []string{nest("[", "]", MaxDepth), strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse at depth %d: %v", MaxDepth, err)
		}
		if err := ValidateJSON(s); err != nil {
			t.Errorf("ValidateJSON at depth %d: %v", MaxDepth, err)
		}
	}
	deep := nest("[", "]", MaxDepth+1)
	for _, err := range []error{func() error { _, err := Parse(deep); return err }(), ValidateJSON(deep)} {
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != "54001" || pe.Message != "stack depth limit exceeded" {
			t.Errorf("depth %d: got %v", MaxDepth+1, err)
		}
	}
}

// randString returns a string from pieces chosen to exercise escaping.
func randString(r *rand.Rand) string {
	pieces := []string{"", "a", "b", "ab", "é", "😀", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\x7f", "\u2028", " ", "{", "]", ":", ","}
	var b strings.Builder
	for n := r.Intn(4); n > 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func randNumber(r *rand.Rand) Value {
	coeffs := []int64{0, 1, -1, 5, 10, 15, 100, -250, 123456789, 1 << 62}
	d := apd.New(coeffs[r.Intn(len(coeffs))], int32(r.Intn(13)-6))
	if r.Intn(8) == 0 {
		d.Negative = !d.Negative // includes negative zero
	}
	return FromNumber(d)
}

// randValue builds a random value with the constructors.
func randValue(r *rand.Rand, depth int) Value {
	n := 6
	if depth < 4 {
		n = 9
	}
	switch r.Intn(n) {
	case 0:
		return NullValue()
	case 1:
		return FromBool(r.Intn(2) == 0)
	case 2, 3:
		return randNumber(r)
	case 4, 5:
		return FromString(randString(r))
	case 6:
		elems := make([]Value, r.Intn(4))
		for i := range elems {
			elems[i] = randValue(r, depth+1)
		}
		return NewArray(elems)
	}
	keys := make([]string, r.Intn(5))
	vals := make([]Value, len(keys))
	for i := range keys {
		keys[i] = randString(r)
		vals[i] = randValue(r, depth+1)
	}
	return NewObject(keys, vals)
}

// TestRoundTrip checks on random values that String is a normal form:
// Parse(v.String()) equals v and prints the same text; Pretty parses back
// to v too.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		v := randValue(r, 0)
		s := v.String()
		if got := string(v.AppendText([]byte("x"))); got != "x"+s {
			t.Fatalf("AppendText: %q vs String %q", got, s)
		}
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if !Equal(p, v) || Compare(p, v) != 0 || p.String() != s {
			t.Fatalf("round trip of %q gives %q", s, p.String())
		}
		if !bytes.Equal(p.AppendSortKey(nil), v.AppendSortKey(nil)) {
			t.Fatalf("sort keys differ after a round trip of %q", s)
		}
		if err := ValidateJSON(s); err != nil {
			t.Fatalf("ValidateJSON(%q): %v", s, err)
		}
		pp, err := Parse(v.Pretty())
		if err != nil || !Equal(pp, v) {
			t.Fatalf("Pretty of %q does not parse back: %q, %v", s, v.Pretty(), err)
		}
	}
}

// TestTotalOrder checks on random values that Compare is a total order,
// that Equal agrees with it, and that the sort keys order as it does.
func TestTotalOrder(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	vals := make([]Value, 400)
	for i := range vals {
		if i > 0 && r.Intn(4) == 0 {
			// Equal values with another text (1 and 1.0).
			vals[i] = mustParse(t, strings.ReplaceAll(vals[r.Intn(i)].String(), ".0", ".00"))
			continue
		}
		vals[i] = randValue(r, 2)
	}
	keys := make([][]byte, len(vals))
	for i, v := range vals {
		keys[i] = v.AppendSortKey(nil)
	}
	for i, a := range vals {
		if Compare(a, a) != 0 || !Equal(a, a) {
			t.Fatalf("%s is not equal to itself", a)
		}
		for j, b := range vals {
			c := Compare(a, b)
			if Compare(b, a) != -c {
				t.Fatalf("Compare(%s, %s) = %d but Compare(%s, %s) = %d", a, b, c, b, a, Compare(b, a))
			}
			if Equal(a, b) != (c == 0) {
				t.Fatalf("Equal(%s, %s) = %v but Compare = %d", a, b, Equal(a, b), c)
			}
			if k := bytes.Compare(keys[i], keys[j]); k != c {
				t.Fatalf("sort keys of %s and %s compare %d, Compare %d", a, b, k, c)
			}
		}
	}
	sorted := slices.Clone(vals)
	slices.SortFunc(sorted, Compare)
	for i := 0; i+2 < len(sorted); i++ {
		for j := i + 1; j < len(sorted); j++ {
			if Compare(sorted[i], sorted[j]) > 0 {
				t.Fatalf("not transitive: %s sorts before %s but compares greater", sorted[i], sorted[j])
			}
		}
	}
}

// FuzzParse checks that Parse and ValidateJSON never panic, agree, and
// that what Parse accepts round-trips.
func FuzzParse(f *testing.F) {
	for _, c := range pgParseCases {
		f.Add(c.in)
	}
	for _, c := range pgRandomParseCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		verr := ValidateJSON(s)
		if err != nil {
			var pe *pgerr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): not a *pgerr.Error: %v", s, err)
			}
			return
		}
		if verr != nil {
			t.Fatalf("Parse(%q) succeeds but ValidateJSON fails: %v", s, verr)
		}
		out := v.String()
		p, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(String(Parse(%q)) = %q): %v", s, out, err)
		}
		if p.String() != out || !Equal(p, v) {
			t.Fatalf("%q: %q is not a normal form (%q)", s, out, p.String())
		}
	})
}
