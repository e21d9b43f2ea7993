package jsonb

import "testing"

// TestWrittenPath: json #> as PostgreSQL 15 answers it (results taken
// from it), the value's text as written.
func TestWrittenPath(t *testing.T) {
	for _, tc := range []struct {
		s    string
		path []string
		want string
		ok   bool
	}{
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a"}, `{"b" : [1,  2.50]}`, true},
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a", "b", "1"}, `2.50`, true},
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a", "b", "-2"}, `1`, true},
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a", "b", " +1"}, `2.50`, true},
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a", "b", "1 "}, ``, false},
		{`{"a": {"b" : [1,  2.50]}}`, []string{"a", "b", "-3"}, ``, false},
		{`{"a":1,"a":2}`, []string{"a"}, `2`, true},
		{`{"a":{"b":1},"a":{"c":2}}`, []string{"a", "b"}, `1`, true},
		{`[1, {"1": "x"}]`, []string{"1", "1"}, `"x"`, true},
		{` "x" `, nil, ` "x"`, true},
		{`  [1, 2]  `, nil, `[1, 2]`, true},
		{`5`, []string{"a"}, ``, false},
	} {
		got, ok := WrittenPath(tc.s, tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("WrittenPath(%q, %q) = %q, %v; want %q, %v", tc.s, tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWrittenStripNulls(t *testing.T) {
	in := `{"a": 1, "b": null, "c": [1, null, {"d": null, "e" : "\u00e9\n"}], "a": 1.0E2}`
	want := `{"a":1,"c":[1,null,{"e":"é\n"}],"a":1.0E2}`
	if got := WrittenStripNulls(in); got != want {
		t.Errorf("WrittenStripNulls = %q, want %q", got, want)
	}
	if got := WrittenStripNulls(" null "); got != "null" {
		t.Errorf("WrittenStripNulls(null) = %q", got)
	}
}

func TestWrittenElementsKeys(t *testing.T) {
	elems, ok := WrittenElements(`[1.0, {"b":1,  "a":2}, "x", null, [ 1 ]]`)
	want := []string{`1.0`, `{"b":1,  "a":2}`, `"x"`, `null`, `[ 1 ]`}
	if !ok || len(elems) != len(want) {
		t.Fatalf("WrittenElements = %q, %v", elems, ok)
	}
	for i := range want {
		if elems[i] != want[i] {
			t.Errorf("element %d = %q, want %q", i, elems[i], want[i])
		}
	}
	keys, ok := WrittenKeys(`{"b": 1, "a": 2, "b": 3}`)
	if !ok || len(keys) != 3 || keys[0] != "b" || keys[1] != "a" || keys[2] != "b" {
		t.Errorf("WrittenKeys = %q, %v", keys, ok)
	}
	if _, ok := WrittenKeys(`[1]`); ok {
		t.Error("WrittenKeys of an array")
	}
}
