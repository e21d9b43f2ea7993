package jsonb

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// The tests here check the package against PostgreSQL 15's results in
// pgcases_test.go.

func TestPGParse(t *testing.T) {
	for _, c := range pgParseCases {
		v, err := Parse(c.in)
		var s string
		if err == nil {
			s = v.String()
		}
		check(t, fmt.Sprintf("%q::jsonb", c.in), c.jsonb, s, true, err)
		err = ValidateJSON(c.in)
		check(t, fmt.Sprintf("%q::json", c.in), c.json, c.in, true, err)
	}
}

func valueText(v Value, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	return v.String(), true
}

func TestPGField(t *testing.T) {
	for _, c := range pgFieldCases {
		j := mustParse(t, c.in)
		v, ok := j.Field(c.key)
		s, ok1 := valueText(v, ok)
		check(t, fmt.Sprintf("%s -> %q", c.in, c.key), c.want, s, ok1, nil)
		if ok {
			s, ok = v.Text()
		}
		check(t, fmt.Sprintf("%s ->> %q", c.in, c.key), c.wantText, s, ok, nil)
	}
}

func TestPGElem(t *testing.T) {
	for _, c := range pgElemCases {
		j := mustParse(t, c.in)
		v, ok := j.Elem(c.idx)
		s, ok1 := valueText(v, ok)
		check(t, fmt.Sprintf("%s -> %d", c.in, c.idx), c.want, s, ok1, nil)
		if ok {
			s, ok = v.Text()
		}
		check(t, fmt.Sprintf("%s ->> %d", c.in, c.idx), c.wantText, s, ok, nil)
	}
}

func TestPGPath(t *testing.T) {
	for _, c := range pgPathCases {
		j := mustParse(t, c.in)
		v, ok := j.Path(c.path)
		s, ok1 := valueText(v, ok)
		check(t, fmt.Sprintf("%s #> %q", c.in, c.path), c.want, s, ok1, nil)
		if ok {
			s, ok = v.Text()
		}
		check(t, fmt.Sprintf("%s #>> %q", c.in, c.path), c.wantText, s, ok, nil)
	}
}

func TestPGContains(t *testing.T) {
	for _, c := range pgContainsCases {
		a, b := mustParse(t, c.a), mustParse(t, c.b)
		if got := Contains(a, b); got != c.want {
			t.Errorf("%s @> %s: got %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestPGExists(t *testing.T) {
	for _, c := range pgExistsCases {
		j := mustParse(t, c.in)
		if got := j.Exists(c.keys[0]); got != c.any {
			t.Errorf("%s ? %q: got %v, want %v", c.in, c.keys[0], got, c.any)
		}
	}
	for _, c := range pgExistsAnyAllCases {
		j := mustParse(t, c.in)
		if got := ExistsAny(j, c.keys); got != c.any {
			t.Errorf("%s ?| %q: got %v, want %v", c.in, c.keys, got, c.any)
		}
		if got := ExistsAll(j, c.keys); got != c.all {
			t.Errorf("%s ?& %q: got %v, want %v", c.in, c.keys, got, c.all)
		}
	}
}

func TestPGConcat(t *testing.T) {
	for _, c := range pgConcatCases {
		a, b := mustParse(t, c.a), mustParse(t, c.b)
		check(t, fmt.Sprintf("%s || %s", c.a, c.b), c.want, Concat(a, b).String(), true, nil)
	}
}

func editResult(v Value, err error) (string, bool, error) {
	if err != nil {
		return "", false, err
	}
	return v.String(), true, nil
}

func TestPGDelete(t *testing.T) {
	for _, c := range pgDeleteKeyCases {
		s, ok, err := editResult(mustParse(t, c.in).DeleteKey(c.keys[0]))
		check(t, fmt.Sprintf("%s - %q", c.in, c.keys[0]), c.want, s, ok, err)
	}
	for _, c := range pgDeleteKeysCases {
		s, ok, err := editResult(mustParse(t, c.in).DeleteKeys(c.keys))
		check(t, fmt.Sprintf("%s - %q", c.in, c.keys), c.want, s, ok, err)
	}
	for _, c := range pgDeleteIndexCases {
		s, ok, err := editResult(mustParse(t, c.in).DeleteIndex(c.idx))
		check(t, fmt.Sprintf("%s - %d", c.in, c.idx), c.want, s, ok, err)
	}
	for _, c := range pgDeletePathCases {
		j := mustParse(t, c.in)
		s, ok, err := editResult(j.DeletePathNulls(c.keys, c.nulls))
		check(t, fmt.Sprintf("%s #- %q %v", c.in, c.keys, c.nulls), c.want, s, ok, err)
		if c.nulls == nil {
			s, ok, err := editResult(j.DeletePath(c.keys))
			check(t, fmt.Sprintf("%s #- %q", c.in, c.keys), c.want, s, ok, err)
		}
	}
}

func TestPGSetInsert(t *testing.T) {
	for _, c := range pgSetCases {
		j, nv := mustParse(t, c.in), mustParse(t, c.nv)
		s, ok, err := editResult(j.SetNulls(c.keys, c.nulls, nv, c.flag))
		check(t, fmt.Sprintf("jsonb_set(%s, %q %v, %s, %v)", c.in, c.keys, c.nulls, c.nv, c.flag), c.want, s, ok, err)
		if c.nulls == nil {
			s, ok, err := editResult(j.Set(c.keys, nv, c.flag))
			check(t, fmt.Sprintf("jsonb_set(%s, %q, %s, %v)", c.in, c.keys, c.nv, c.flag), c.want, s, ok, err)
		}
	}
	for _, c := range pgInsertCases {
		j, nv := mustParse(t, c.in), mustParse(t, c.nv)
		s, ok, err := editResult(j.InsertNulls(c.keys, c.nulls, nv, c.flag))
		check(t, fmt.Sprintf("jsonb_insert(%s, %q %v, %s, %v)", c.in, c.keys, c.nulls, c.nv, c.flag), c.want, s, ok, err)
		if c.nulls == nil {
			s, ok, err := editResult(j.Insert(c.keys, nv, c.flag))
			check(t, fmt.Sprintf("jsonb_insert(%s, %q, %s, %v)", c.in, c.keys, c.nv, c.flag), c.want, s, ok, err)
		}
	}
}

// aggregate is jsonb_agg over a set-returning function's rows: NULL for
// no rows.
func aggregate(vals []Value, err error) (string, bool, error) {
	if err != nil || len(vals) == 0 {
		return "", false, err
	}
	return NewArray(vals).String(), true, nil
}

func textValue(s string, ok bool) Value {
	if !ok {
		return NullValue()
	}
	return FromString(s)
}

func runFunc(fn string, j Value) (string, bool, error) {
	switch fn {
	case "typeof":
		return j.Typeof(), true, nil
	case "strip_nulls":
		return j.StripNulls().String(), true, nil
	case "array_length":
		n, err := j.ArrayLength()
		return strconv.Itoa(n), true, err
	case "pretty":
		return j.Pretty(), true, nil
	case "object_keys":
		keys, err := j.Keys()
		var vals []Value
		for _, k := range keys {
			vals = append(vals, FromString(k))
		}
		return aggregate(vals, err)
	case "each":
		keys, vals, err := j.Each()
		var rows []Value
		for i, k := range keys {
			rows = append(rows, NewArray([]Value{FromString(k), vals[i]}))
		}
		return aggregate(rows, err)
	case "each_text":
		keys, texts, valid, err := j.EachText()
		var rows []Value
		for i, k := range keys {
			rows = append(rows, NewArray([]Value{FromString(k), textValue(texts[i], valid[i])}))
		}
		return aggregate(rows, err)
	case "array_elements":
		return aggregate(j.Elements())
	case "array_elements_text":
		elems, err := j.Elements()
		var vals []Value
		for _, e := range elems {
			vals = append(vals, textValue(e.Text()))
		}
		return aggregate(vals, err)
	case "text":
		v, ok := j.Path(nil)
		if !ok {
			return "", false, nil
		}
		s, ok := v.Text()
		return s, ok, nil
	}
	panic("unknown function " + fn)
}

func TestPGFunctions(t *testing.T) {
	for _, c := range pgFuncCases {
		s, ok, err := runFunc(c.fn, mustParse(t, c.in))
		check(t, fmt.Sprintf("%s(%s)", c.fn, c.in), c.want, s, ok, err)
	}
}

func sgn(i int) int {
	switch {
	case i < 0:
		return -1
	case i > 0:
		return 1
	}
	return 0
}

// TestPGOrder checks Compare, Equal and AppendSortKey against the ranks
// PostgreSQL's ORDER BY gives the values.
func TestPGOrder(t *testing.T) {
	vals := make([]Value, len(pgOrderCases))
	keys := make([][]byte, len(pgOrderCases))
	for i, c := range pgOrderCases {
		vals[i] = mustParse(t, c.in)
		keys[i] = vals[i].AppendSortKey(nil)
	}
	for i, a := range pgOrderCases {
		for j, b := range pgOrderCases {
			want := sgn(a.rank - b.rank)
			if got := Compare(vals[i], vals[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a.in, b.in, got, want)
			}
			if got := Equal(vals[i], vals[j]); got != (want == 0) {
				t.Errorf("Equal(%s, %s) = %v, want %v", a.in, b.in, got, want == 0)
			}
			if got := bytes.Compare(keys[i], keys[j]); got != want {
				t.Errorf("sort keys of %s, %s compare %d, want %d", a.in, b.in, got, want)
			}
		}
	}
}

func TestPGNumbers(t *testing.T) {
	for _, c := range pgNumericCases {
		d, _, err := apd.NewFromString(c.in)
		if err != nil {
			t.Fatal(err)
		}
		check(t, fmt.Sprintf("FromNumber(%s)", c.in), c.want, FromNumber(d).String(), true, nil)
		v, err := FromNumberText(c.in)
		s, ok, err := editResult(v, err)
		check(t, fmt.Sprintf("FromNumberText(%s)", c.in), c.want, s, ok, err)
	}
	for _, c := range pgFloatCases {
		v, err := FromNumberText(c.in)
		s, ok, err := editResult(v, err)
		check(t, fmt.Sprintf("FromNumberText(%s)", c.in), c.want, s, ok, err)
	}
}

// TestPGRandom checks values built at random from small pools (so that
// they often compare deep): their normal form, their order and
// containment.
func TestPGRandom(t *testing.T) {
	for _, c := range pgRandomParseCases {
		v, err := Parse(c.in)
		var s string
		if err == nil {
			s = v.String()
		}
		check(t, fmt.Sprintf("%q::jsonb", c.in), c.jsonb, s, true, err)
		if err := ValidateJSON(c.in); err != nil {
			t.Errorf("ValidateJSON(%q): %v", c.in, err)
		}
	}
	for i, a := range pgRandomOrderCases {
		va := mustParse(t, a.in)
		ka := va.AppendSortKey(nil)
		for _, b := range pgRandomOrderCases[i:] {
			vb := mustParse(t, b.in)
			want := sgn(a.rank - b.rank)
			if got := Compare(va, vb); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", va, vb, got, want)
			}
			if got := Compare(vb, va); got != -want {
				t.Errorf("Compare(%s, %s) = %d, want %d", vb, va, got, -want)
			}
			if got := bytes.Compare(ka, vb.AppendSortKey(nil)); got != want {
				t.Errorf("sort keys of %s, %s compare %d, want %d", va, vb, got, want)
			}
		}
	}
	for _, c := range pgRandomContainsCases {
		a, b := mustParse(t, c.a), mustParse(t, c.b)
		if got := Contains(a, b); got != c.want {
			t.Errorf("%s @> %s: got %v, want %v", a, b, got, c.want)
		}
	}
}

func TestPGRandomOps(t *testing.T) {
	for _, c := range pgRandomOpCases {
		a, b := mustParse(t, c.a), mustParse(t, c.b)
		var s string
		var ok bool
		var err error
		switch c.op {
		case "set":
			s, ok, err = editResult(a.SetNulls(c.path, c.nulls, b, c.flag))
		case "insert":
			s, ok, err = editResult(a.InsertNulls(c.path, c.nulls, b, c.flag))
		case "delete_path":
			s, ok, err = editResult(a.DeletePathNulls(c.path, c.nulls))
		case "concat":
			s, ok = Concat(a, b).String(), true
		case "path":
			if c.nulls == nil { // else SQL NULL, the caller's
				s, ok = valueText(a.Path(c.path))
			}
		}
		check(t, fmt.Sprintf("%s(%s, %s, %q %v, %v)", c.op, a, b, c.path, c.nulls, c.flag), c.want, s, ok, err)
	}
}
