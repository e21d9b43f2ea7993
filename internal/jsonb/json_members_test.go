package jsonb

import (
	"errors"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestMembers checks json_each's reading of json text against PostgreSQL
// 15's results.
func TestMembers(t *testing.T) {
	for _, c := range []struct {
		in         string
		keys, vals []string
	}{
		{in: "{}"},
		{in: " { } "},
		{in: "\n{ \"b\" : 1 , \"a\" : [1,  \"]\" ] ,\"b\":{\"z\" :  \"}\"}, \"e\\u00e9\\\"\" : \"x\\ty\" , \"n\":null,\"t\":true }\t",
			keys: []string{"b", "a", "b", "eé\"", "n", "t"},
			vals: []string{"1", `[1,  "]" ]`, `{"z" :  "}"}`, `"x\ty"`, "null", "true"}},
		{in: `{"d":-1.50e2}`, keys: []string{"d"}, vals: []string{"-1.50e2"}},
	} {
		keys, vals, err := Members(c.in)
		if err != nil || !slices.Equal(keys, c.keys) || !slices.Equal(vals, c.vals) {
			t.Errorf("Members(%q) = %q, %q, %v; want %q, %q", c.in, keys, vals, err, c.keys, c.vals)
		}
	}
	for _, c := range []struct{ in, code, msg string }{
		{"  [ ]", "22023", "cannot deconstruct an array as an object"},
		{`"x"`, "22023", "cannot deconstruct a scalar"},
		{"null", "22023", "cannot deconstruct a scalar"},
		{`{"a": "\u0000"}`, "22P05", "unsupported Unicode escape sequence"},
		{`{"a": }`, "22P02", "invalid input syntax for type json"},
	} {
		_, _, err := Members(c.in)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != c.code || pe.Message != c.msg {
			t.Errorf("Members(%q): error %v, want %s %s", c.in, err, c.code, c.msg)
		}
	}
}

// TestWrittenText checks json_each_text's values against PostgreSQL
// 15's results.
func TestWrittenText(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`"x\ty\u0041"`, "x\tyA", true},
		{"null", "", false},
		{`""`, "", true},
		{`"\""`, `"`, true},
		{"-1.5e2", "-1.5e2", true},
		{`{"a" : 1}`, `{"a" : 1}`, true},
	} {
		if got, ok := WrittenText(c.in); got != c.want || ok != c.ok {
			t.Errorf("WrittenText(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
