package expr

import (
	"regexp"
	"sync"

	"github.com/streamdb/streamdb/internal/types"
)

// The POSIX regular expression operators: ~ (matches), ~* (matches,
// case-insensitively) and their negations !~ and !~*, and the regexp_*
// functions (regex_funcs.go). Patterns are PostgreSQL's advanced regular
// expressions, parsed as PostgreSQL reads them (regex_syntax.go): as in
// PostgreSQL, '.' and bracket expressions match a newline, and ^ and $
// match only at the ends of the string, unless the 'n' flag says
// otherwise. A pattern runs on Go's regexp (RE2, linear time), except
// one with back references, lookahead or lookbehind constraints or word
// constraints (\m \M \y \Y), which the backtracking matcher of
// regex_bt.go runs; that matcher also settles the submatches where
// PostgreSQL's rules pick other ones than RE2 would.

// InvalidRegex is the SQLSTATE of a malformed pattern.
const InvalidRegex = "2201B"

func init() {
	for _, op := range []string{"~", "!~", "~*", "!~*"} {
		addBinary(op, tText, tText, tBool, regexMatch(op))
		// bpcharregexeq and the others match the padded value.
		addBinary(op, tBpchar, tText, tBool, regexMatch(op))
	}
}

func regexMatch(op string) evalFn {
	icase := op == "~*" || op == "!~*"
	neg := op[0] == '!'
	return func(a []types.Datum) (types.Datum, error) {
		re, err := compileRegex(a[1].(string), regexOpts{icase: icase})
		if err != nil {
			return nil, err
		}
		ok, err := re.match(a[0].(string))
		if err != nil {
			return nil, err
		}
		return ok != neg, nil
	}
}

// regexCache keeps compiled patterns; it is cleared when it grows large.
var regexCache struct {
	sync.Mutex
	m map[regexKey]*pgRegex
}

type regexKey struct {
	pattern string
	opts    regexOpts
}

// regexOpts are the options of a pattern, from a function's flags
// (parseRegexFlags).
type regexOpts struct {
	icase     bool     // i: case-insensitive
	noDotNL   bool     // n, p: '.' and [^...] do not match a newline
	multiline bool     // n, w: ^ and $ match at line boundaries
	literal   bool     // q: the pattern is a literal string
	expanded  bool     // x: whitespace and #-comments in the pattern are ignored
	flavor    reFlavor // b: a basic RE (regex_flavor.go)
}

const regexCacheMax = 256

// pgRegex is a compiled pattern.
type pgRegex struct {
	syn *reSyntax
	// re2 runs the pattern when RE2 can (nil when not), with the
	// leftmost-longest rule when the pattern prefers its longest match;
	// re2Rest is re2 for a search from past the start of the text, where
	// \A cannot match.
	re2, re2Rest *regexp.Regexp
	// trusted says whether re2's submatches (and, for a non-greedy
	// pattern, its match) are PostgreSQL's; when not, the backtracker
	// finds them within re2's match.
	trusted bool
	// approx, for a pattern only the backtracker runs, matches wherever
	// the pattern may match (goEmitter.approx): where it does not, the
	// backtracker need not look. bounds is approx anchored at the start
	// of the text, leftmost-longest: its match ends where the pattern's
	// matches from the same start can end at the latest.
	approx, bounds *regexp.Regexp
}

func compileRegex(pattern string, o regexOpts) (*pgRegex, error) {
	k := regexKey{pattern, o}
	regexCache.Lock()
	re, ok := regexCache.m[k]
	regexCache.Unlock()
	if ok {
		return re, nil
	}
	syn, err := parseRegex(pattern, o)
	if err != nil {
		return nil, err
	}
	re = &pgRegex{syn: syn}
	if syn.needBT {
		approx := goSyntax(syn, false, true)
		if a, err := regexp.Compile(approx); err == nil {
			re.approx = a
			if b, err := regexp.Compile(`\A(?:` + approx + `)`); err == nil {
				b.Longest()
				re.bounds = b
			}
		}
	} else {
		re.re2 = compileRE2(syn, false)
		re.re2Rest = re.re2
		if re.re2 != nil && syn.hasBOT {
			re.re2Rest = compileRE2(syn, true)
		}
		root := syn.root
		if root.longest() {
			re.trusted = syn.ngroups == 0 || allMono(root, false) && !capsDiffer(root)
		} else {
			re.trusted = allMono(root, true) && !capsDiffer(root)
		}
	}
	regexCache.Lock()
	if regexCache.m == nil || len(regexCache.m) >= regexCacheMax {
		regexCache.m = map[regexKey]*pgRegex{}
	}
	regexCache.m[k] = re
	regexCache.Unlock()
	return re, nil
}

// compileRE2 compiles the pattern for Go's regexp; nil when it will not
// (a pattern too large for it: the backtracker runs it).
func compileRE2(syn *reSyntax, noStart bool) *regexp.Regexp {
	re, err := regexp.Compile(goSyntax(syn, noStart, false))
	if err != nil {
		return nil
	}
	if syn.root.longest() {
		re.Longest()
	}
	return re
}

// match says whether the pattern matches somewhere in s.
func (re *pgRegex) match(s string) (bool, error) {
	if re.re2 != nil {
		return re.re2.MatchString(s), nil
	}
	if re.approx != nil && !re.approx.MatchString(s) {
		return false, nil
	}
	bt := newBT(re.syn, s, re.bounds)
	bt.exists = true
	m, err := bt.find(0)
	return m != nil, err
}

// regexSearch finds the matches of a pattern in one string.
type regexSearch struct {
	re *pgRegex
	s  string
	bt *btMatcher
}

func (re *pgRegex) search(s string) *regexSearch { return &regexSearch{re: re, s: s} }

func (q *regexSearch) backtracker() *btMatcher {
	if q.bt == nil {
		q.bt = newBT(q.re.syn, q.s, q.re.bounds)
	}
	return q.bt
}

// btFind is the backtracker's first match at or after byte from, the
// search starting where approx first matches.
func (q *regexSearch) btFind(from int) ([]int, error) {
	if a := q.re.approx; a != nil {
		m := a.FindStringIndex(q.s[from:])
		if m == nil {
			return nil, nil
		}
		from += m[0]
	}
	return q.backtracker().find(from)
}

// next returns the first match that starts at or after byte from, as
// FindStringSubmatchIndex does (byte offsets of the match and of each
// group, -1 for a group that did not match), or nil.
func (q *regexSearch) next(from int) ([]int, error) {
	re, s := q.re, q.s
	r2 := re.re2
	if from > 0 && r2 != nil {
		if re.syn.hasBOL && s[from-1] != '\n' {
			r2 = nil // RE2 would take from for a line start
		} else {
			r2 = re.re2Rest
		}
	}
	if r2 == nil {
		return q.btFind(from)
	}
	m := r2.FindStringSubmatchIndex(s[from:])
	if m == nil {
		return nil, nil
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += from
		}
	}
	if re.trusted {
		return m, nil
	}
	bt := q.backtracker()
	end := m[1]
	if !re.syn.root.longest() {
		end = -1 // the shortest match from RE2's start
	}
	if pg := bt.at(m[0], end); pg != nil {
		return pg, nil
	}
	// Out of steps: RE2's answer is close enough.
	return m, nil
}
