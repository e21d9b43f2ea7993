package expr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The two ways a pattern without back references can run must agree:
// RE2 (with the backtracker settling submatches where Perl's order and
// PostgreSQL's differ) and the backtracker alone. Random patterns over a
// small alphabet, on random short texts.

func randomRegex(r *rand.Rand, depth int) string {
	atom := func() string {
		switch r.IntN(12) {
		case 0:
			return "."
		case 1:
			return "[ab]"
		case 2:
			return "[^a]"
		case 3:
			return `\w`
		case 4:
			return `\s`
		case 5:
			return "é"
		case 6, 7:
			if depth > 0 {
				return "(" + randomRegex(r, depth-1) + ")"
			}
		case 8:
			if depth > 0 {
				return "(?:" + randomRegex(r, depth-1) + ")"
			}
		}
		return string("ab"[r.IntN(2)])
	}
	var branches []string
	for range 1 + r.IntN(2) {
		var b strings.Builder
		if r.IntN(10) == 0 {
			b.WriteString("^")
		}
		for range 1 + r.IntN(3) {
			b.WriteString(atom())
			switch r.IntN(10) {
			case 0:
				b.WriteString("*")
			case 1:
				b.WriteString("+")
			case 2:
				b.WriteString("?")
			case 3:
				fmt.Fprintf(&b, "{%d,%d}", r.IntN(2), 1+r.IntN(2))
			case 4:
				b.WriteString([]string{"*?", "+?", "??", "{1,2}?"}[r.IntN(4)])
			}
		}
		if r.IntN(10) == 0 {
			b.WriteString("$")
		}
		branches = append(branches, b.String())
	}
	return strings.Join(branches, "|")
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(9) {
		b.WriteString([]string{"a", "b", " ", "é", "\n", "a", "b"}[r.IntN(7)])
	}
	return b.String()
}

func TestRegexEnginesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked, complex := 0, 0
	for range 2000 {
		p := randomRegex(r, 2)
		o := regexOpts{icase: r.IntN(4) == 0, multiline: r.IntN(4) == 0}
		o.noDotNL = o.multiline
		re, err := compileRegex(p, o)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if re.re2 == nil {
			continue
		}
		bt := &pgRegex{syn: re.syn}
		for range 8 {
			s := randomText(r)
			want, err1 := findAll(bt, s, 0)
			got, err2 := findAll(re, s, 0)
			if err1 != nil { // the backtracker gave up: a pattern too complex for it
				complex++
				continue
			}
			if err2 != nil {
				t.Fatalf("%q on %q: %v", p, s, err2)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%q (%+v, trusted %v) on %q:\nRE2: %v\n BT: %v", p, o, re.trusted, s, got, want)
			}
			m1, _ := re.match(s)
			m2, err := bt.match(s)
			if err == nil && m1 != m2 {
				t.Errorf("%q on %q: match %v, backtracker %v", p, s, m1, m2)
			}
			checked++
		}
	}
	if checked < 5000 || complex > checked/100 {
		t.Fatalf("%d checks, %d too complex for the backtracker", checked, complex)
	}
	t.Logf("%d checks, %d too complex for the backtracker", checked, complex)
}
