package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The regexp_* functions and substring(s FROM pattern), as PostgreSQL 15
// has them (see regex.go for the pattern syntax).

func init() {
	textArray := types.ArrayOf(types.IDText)
	register(overloads(
		sig{params: []types.ID{tText, tText, tText}, result: tText, fn: regexpReplace},
		sig{params: []types.ID{tText, tText, tText, tText}, result: tText, fn: regexpReplace},
		sig{params: []types.ID{tText, tText, tText, tInt4}, result: tText, fn: regexpReplaceAt},
		sig{params: []types.ID{tText, tText, tText, tInt4, tInt4}, result: tText, fn: regexpReplaceAt},
		sig{params: []types.ID{tText, tText, tText, tInt4, tInt4, tText}, result: tText, fn: regexpReplaceAt},
	), "regexp_replace")
	register(typed(textArray, overloads(fn2(tText, tText, tText, regexpMatch), fn3(tText, tText, tText, tText, regexpMatch))), "regexp_match")
	register(typed(textArray, overloads(fn2(tText, tText, tText, regexpSplit), fn3(tText, tText, tText, tText, regexpSplit))), "regexp_split_to_array")
	register(overloads(fn2(tText, tText, tBool, regexpLike), fn3(tText, tText, tText, tBool, regexpLike)), "regexp_like")
	register(overloads(fn2(tText, tText, tInt4, regexpCount), fn3(tText, tText, tInt4, tInt4, regexpCount),
		sig{params: []types.ID{tText, tText, tInt4, tText}, result: tInt4, fn: regexpCount}), "regexp_count")
	register(overloads(fn2(tText, tText, tText, regexpSubstr), fn3(tText, tText, tInt4, tText, regexpSubstr),
		sig{params: []types.ID{tText, tText, tInt4, tInt4}, result: tText, fn: regexpSubstr},
		sig{params: []types.ID{tText, tText, tInt4, tInt4, tText}, result: tText, fn: regexpSubstr},
		sig{params: []types.ID{tText, tText, tInt4, tInt4, tText, tInt4}, result: tText, fn: regexpSubstr}), "regexp_substr")
	register(overloads(fn2(tText, tText, tInt4, regexpInstr), fn3(tText, tText, tInt4, tInt4, regexpInstr),
		sig{params: []types.ID{tText, tText, tInt4, tInt4}, result: tInt4, fn: regexpInstr},
		sig{params: []types.ID{tText, tText, tInt4, tInt4, tInt4}, result: tInt4, fn: regexpInstr},
		sig{params: []types.ID{tText, tText, tInt4, tInt4, tInt4, tText}, result: tInt4, fn: regexpInstr},
		sig{params: []types.ID{tText, tText, tInt4, tInt4, tInt4, tText, tInt4}, result: tInt4, fn: regexpInstr}), "regexp_instr")
}

// typed wraps a builder whose overloads all return a type a sig cannot
// name (an array): the call's result is t.
func typed(t types.Type, b funcBuilder) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		e, err := b(name, args)
		if err != nil {
			return nil, err
		}
		if c, ok := e.(*call); ok {
			n := *c
			n.typ = t
			return &n, nil
		}
		return e, nil
	}
}

// regexArgs compiles a[1] with the flags in a[k] (when there), for fn.
func regexArgs(a []types.Datum, k int, fn string, global bool) (*pgRegex, bool, error) {
	flags := ""
	if k < len(a) {
		flags = a[k].(string)
	}
	o, g, err := parseRegexFlags(flags, fn, global)
	if err != nil {
		return nil, false, err
	}
	re, err := compileRegex(a[1].(string), o)
	return re, g, err
}

// regexpReplace is regexp_replace(source, pattern, replacement [, flags]):
// the first match replaced, or every one with the 'g' flag.
func regexpReplace(a []types.Datum) (types.Datum, error) {
	re, g, err := regexArgs(a, 3, "regexp_replace()", true)
	if err != nil {
		return nil, err
	}
	n := 1
	if g {
		n = 0
	}
	return replaceMatches(re, a[0].(string), a[2].(string), 0, n)
}

// regexpReplaceAt is regexp_replace(source, pattern, replacement, start
// [, N [, flags]]): matches from character start on; the Nth, or every
// one when N is 0 (without N: the first, or every one with 'g').
func regexpReplaceAt(a []types.Datum) (types.Datum, error) {
	re, g, err := regexArgs(a, 5, "regexp_replace()", true)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	start := a[3].(int64)
	if start <= 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "start", start)
	}
	n := int64(1)
	if g {
		n = 0
	}
	if len(a) > 4 {
		if n = a[4].(int64); n < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", n)
		}
	}
	return replaceMatches(re, s, a[2].(string), byteOffset(s, start-1), int(n))
}

// replaceMatches replaces in s, from byte from on, the nth match of re
// (every match when nth is 0) by repl with its \1..\9 and \& references.
func replaceMatches(re *pgRegex, s, repl string, from, nth int) (types.Datum, error) {
	if from > len(s) {
		return s, nil
	}
	ms, err := findN(re, s, from, nth)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(s[:from])
	last := from
	k := 0
	for _, m := range ms {
		k++
		if nth > 0 && k != nth {
			continue
		}
		b.WriteString(s[last:m[0]])
		appendReplacement(&b, s, repl, m)
		last = m[1]
		if nth > 0 {
			break
		}
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// findAll returns the matches of re in s from byte from on, as
// FindAllStringSubmatchIndex does, except that after a zero-length
// match the scan moves one character past it (as PostgreSQL's does).
func findAll(re *pgRegex, s string, from int) ([][]int, error) {
	return findN(re, s, from, 0)
}

// findN is findAll stopping after n matches (n > 0).
func findN(re *pgRegex, s string, from, n int) ([][]int, error) {
	var out [][]int
	q := re.search(s)
	for pos := from; pos <= len(s) && (n <= 0 || len(out) < n); {
		m, err := q.next(pos)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		out = append(out, m)
		if m[1] > m[0] {
			pos = m[1]
			continue
		}
		if m[1] >= len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[m[1]:])
		pos = m[1] + w
	}
	return out, nil
}

// appendReplacement writes repl with \N (group N, 1-9), \& (the whole
// match) and \\ (a backslash) substituted; another backslash is kept.
func appendReplacement(b *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		n := repl[i+1]
		switch {
		case n >= '1' && n <= '9':
			g := int(n - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(s[m[2*g]:m[2*g+1]])
			}
			i++
		case n == '&':
			b.WriteString(s[m[0]:m[1]])
			i++
		case n == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte('\\')
		}
	}
}

// byteOffset is the byte offset of character n (0-based) of s, or len(s)
// + the characters past its end.
func byteOffset(s string, n int64) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s) + int(n)
}

// groups returns a match's captured groups (the whole match when the
// pattern has none), NULL for one that did not participate.
func groups(s string, m []int) []types.Datum {
	if len(m) == 2 {
		return []types.Datum{s[m[0]:m[1]]}
	}
	out := make([]types.Datum, 0, len(m)/2-1)
	for g := 1; 2*g < len(m); g++ {
		if m[2*g] < 0 {
			out = append(out, nil)
			continue
		}
		out = append(out, s[m[2*g]:m[2*g+1]])
	}
	return out
}

// regexpMatch is regexp_match(string, pattern [, flags]): the captured
// groups of the first match as text[], NULL when none.
func regexpMatch(a []types.Datum) (types.Datum, error) {
	re, _, err := regexArgs(a, 2, "regexp_match()", false)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	m, err := re.search(s).next(0)
	if m == nil || err != nil {
		return nil, err
	}
	return types.FormatArray(groups(s, m), types.TText), nil
}

// regexpSplit is regexp_split_to_array(string, pattern [, flags]): the
// pieces between matches. As in PostgreSQL a zero-length match at the
// start or end of the string, or right after another match, splits
// nothing.
func regexpSplit(a []types.Datum) (types.Datum, error) {
	re, _, err := regexArgs(a, 2, "regexp_split_to_array()", false)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	ms, err := findAll(re, s, 0)
	if err != nil {
		return nil, err
	}
	var parts []types.Datum
	prev := 0
	for _, m := range ms {
		if m[0] >= len(s) || m[1] <= prev {
			continue
		}
		parts = append(parts, s[prev:m[0]])
		prev = m[1]
	}
	parts = append(parts, s[prev:])
	return types.FormatArray(parts, types.TText), nil
}

// regexpLike is regexp_like(string, pattern [, flags]).
func regexpLike(a []types.Datum) (types.Datum, error) {
	re, _, err := regexArgs(a, 2, "regexp_like()", false)
	if err != nil {
		return nil, err
	}
	return re.match(a[0].(string))
}

// startArg reads the 1-based character position a[k] (1 when absent) as
// a byte offset into s.
func startArg(a []types.Datum, k int, s string) (int, error) {
	if k >= len(a) {
		return 0, nil
	}
	start := a[k].(int64)
	if start <= 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "start", start)
	}
	return byteOffset(s, start-1), nil
}

// regexpCount is regexp_count(string, pattern [, start [, flags]]).
func regexpCount(a []types.Datum) (types.Datum, error) {
	re, _, err := regexArgs(a, 3, "regexp_count()", false)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	from, err := startArg(a, 2, s)
	if err != nil || from > len(s) {
		return int64(0), err
	}
	ms, err := findAll(re, s, from)
	return int64(len(ms)), err
}

// regexpSubstr is regexp_substr(string, pattern [, start [, N [, flags
// [, subexpr]]]]): the Nth match (or its group subexpr), NULL when none.
func regexpSubstr(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	from, err := startArg(a, 2, s)
	if err != nil {
		return nil, err
	}
	n, sub := int64(1), int64(0)
	if len(a) > 3 {
		if n = a[3].(int64); n <= 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", n)
		}
	}
	if len(a) > 5 {
		if sub = a[5].(int64); sub < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "subexpr", sub)
		}
	}
	// Flags, when given, are the fifth argument (the third is start).
	re, _, err := regexArgs(a, 4, "regexp_substr()", false)
	if err != nil || from > len(s) {
		return nil, err
	}
	ms, err := findN(re, s, from, int(n))
	if err != nil {
		return nil, err
	}
	if int64(len(ms)) < n {
		return nil, nil
	}
	lo, hi, ok := matchPart(ms[n-1], sub)
	if !ok {
		return nil, nil
	}
	return s[lo:hi], nil
}

// matchPart is the part subexpr of match m (as findN gives it) that
// regexp_substr and regexp_instr return: the whole match for 0, and for
// a pattern without groups for 1 too (PostgreSQL's npatterns is then 1);
// ok is false past the groups or for a group that did not match.
func matchPart(m []int, subexpr int64) (lo, hi int, ok bool) {
	if subexpr > 0 && len(m) == 2 {
		if subexpr > 1 {
			return 0, 0, false
		}
		subexpr = 0
	}
	if 2*subexpr+1 >= int64(len(m)) || m[2*subexpr] < 0 {
		return 0, 0, false
	}
	return m[2*subexpr], m[2*subexpr+1], true
}

// regexpInstr is regexp_instr(string, pattern [, start [, N [, endoption
// [, flags [, subexpr]]]]]): the character position where the Nth match
// (or its group subexpr) starts, or with endoption 1 the one after its
// end; 0 when there is none.
func regexpInstr(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	from, err := startArg(a, 2, s)
	if err != nil {
		return nil, err
	}
	n, end, sub := int64(1), int64(0), int64(0)
	if len(a) > 3 {
		if n = a[3].(int64); n <= 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", n)
		}
	}
	if len(a) > 4 {
		if end = a[4].(int64); end != 0 && end != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "endoption", end)
		}
	}
	if len(a) > 6 {
		if sub = a[6].(int64); sub < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "subexpr", sub)
		}
	}
	re, _, err := regexArgs(a, 5, "regexp_instr()", false)
	if err != nil || from > len(s) {
		return int64(0), err
	}
	ms, err := findN(re, s, from, int(n))
	if err != nil || int64(len(ms)) < n {
		return int64(0), err
	}
	lo, hi, ok := matchPart(ms[n-1], sub)
	if !ok {
		return int64(0), nil
	}
	pos := lo
	if end == 1 {
		pos = hi
	}
	return int64(utf8.RuneCountInString(s[:pos]) + 1), nil
}

// regexSubstring is substring(string FROM pattern) (or substring(string,
// pattern)): the first match's first group, or the whole match when the
// pattern has none; NULL when none.
func regexSubstring(a []types.Datum) (types.Datum, error) {
	re, err := compileRegex(a[1].(string), regexOpts{})
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	m, err := re.search(s).next(0)
	if m == nil || err != nil {
		return nil, err
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return nil, nil
		}
		return s[m[2]:m[3]], nil
	}
	return s[m[0]:m[1]], nil
}
