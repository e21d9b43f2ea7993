package expr

import (
	"strings"
	"testing"
)

// A pattern that would backtrack for too long fails with 2201B instead
// of hanging, in every function that runs it.
func TestRegexTooComplex(t *testing.T) {
	s := strings.Repeat("a", 80) + "bx"
	p := `(.+)(.+)(.+)(.+)(.+)\5\4\3\2\1x`
	want := "ERROR 2201B regular expression failed: regular expression is too complex"
	for _, n := range []node{
		bin(str(s), "~", str(p)),
		fn("regexp_replace", str(s), str(p), str("")),
		fn("regexp_match", str(s), str(p)),
		fn("regexp_count", str(s), str(p)),
	} {
		if got := result(n); got != want {
			t.Errorf("%s: %s", n.sql(), got)
		}
	}
}
