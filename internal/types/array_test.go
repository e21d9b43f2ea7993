package types

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestArrayShapes reads and writes arrays of several dimensions; the
// errors are Postgres 15's (array_in).
func TestArrayShapes(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{in: "{}", out: "{}"},
		{in: " { 1 , 2 } ", out: "{1,2}"},
		{in: "{{1,2},{3,4}}", out: "{{1,2},{3,4}}"},
		{in: "{{{1}},{{2}}}", out: "{{{1}},{{2}}}"},
		{in: "[1:2][1:2]={{1,2},{3,4}}", out: "{{1,2},{3,4}}"},
		{in: "{{NULL,2},{3,NULL}}", out: "{{NULL,2},{3,NULL}}"},
		{in: "{{}}", err: `Unexpected "}" character.`},
		{in: "{{1,2},{3}}", err: "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{in: "{{{1}},{2}}", err: "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{in: "{{1},{{2}}}", err: "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{in: "{{1,2},3}", err: "Unexpected array element."},
		{in: "{1,{2}}", err: `Unexpected "{" character.`},
		{in: "[1:3]={1,2}", err: "Specified array dimensions do not match array contents."},
		{in: "[1:2]={}", err: "Specified array dimensions do not match array contents."},
		{in: "[0:1]={1,2}", err: "array lower bounds other than 1 are not supported"},
		{in: "{{{{{{{1}}}}}}}", err: "number of array dimensions (7) exceeds the maximum allowed (6)"},
	} {
		a, err := ParseArrayValue(c.in, TInt32)
		if c.err != "" {
			if err == nil || !containsDetail(err, c.err) {
				t.Errorf("%s: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := FormatArrayValue(a, TInt32); got != c.out {
			t.Errorf("%s: %s, want %s", c.in, got, c.out)
		}
	}
}

func containsDetail(err error, s string) bool {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return false
	}
	return strings.Contains(pe.Message, s) || strings.Contains(pe.Detail, s)
}
