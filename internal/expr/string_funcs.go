package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// registerStrings adds the string functions. Lengths and positions count
// characters, not bytes.
func registerStrings() {
	register(overloads(fn1(tText, tText, textFn(strings.ToLower))), "lower")
	register(overloads(fn1(tText, tText, textFn(strings.ToUpper))), "upper")
	register(overloads(fn1(tText, tText, textFn(reverse))), "reverse")
	charLength := fn1(tText, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(utf8.RuneCountInString(a[0].(string))), nil
	})
	register(overloads(charLength, byteaLength, bpcharLength), "length")
	register(overloads(charLength, bpcharLength), "char_length", "character_length")
	register(overloads(fn1(tText, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(len(a[0].(string))), nil
	}), byteaLength, bpcharOctetLength), "octet_length")
	register(overloads(fn2(tText, tInt4, tText, substr), fn3(tText, tInt4, tInt4, tText, substr),
		byteaSubstr2, byteaSubstr3), "substr")
	register(overloads(fn2(tText, tInt4, tText, substr), fn3(tText, tInt4, tInt4, tText, substr),
		fn2(tText, tText, tText, regexSubstring), fn3(tText, tText, tText, tText, similarSubstring), byteaSubstr2, byteaSubstr3), "substring")
	register(overloads(fn1(tText, tText, trimFn(true, true)), fn2(tText, tText, tText, trimFn(true, true)), byteaTrimBoth), "btrim", "trim")
	register(overloads(fn1(tText, tText, trimFn(true, false)), fn2(tText, tText, tText, trimFn(true, false)), byteaTrimLeft), "ltrim")
	register(overloads(fn1(tText, tText, trimFn(false, true)), fn2(tText, tText, tText, trimFn(false, true)), byteaTrimRight), "rtrim")
	register(overloads(fn3(tText, tText, tText, tText, replace)), "replace")
	register(overloads(fn2(tText, tText, tInt4, strpos)), "strpos")
	register(overloads(fn2(tText, tText, tInt4, func(a []types.Datum) (types.Datum, error) {
		return strpos([]types.Datum{a[1], a[0]})
	}), byteaPosition), "position")
	register(overloads(fn2(tText, tInt4, tText, leftRight(true))), "left")
	register(overloads(fn2(tText, tInt4, tText, leftRight(false))), "right")
	register(overloads(fn2(tText, tInt4, tText, repeat)), "repeat")
	register(overloads(fn2(tText, tInt4, tText, pad(true)), fn3(tText, tInt4, tText, tText, pad(true))), "lpad")
	register(overloads(fn2(tText, tInt4, tText, pad(false)), fn3(tText, tInt4, tText, tText, pad(false))), "rpad")
	register(overloads(fn3(tText, tText, tInt4, tText, splitPart)), "split_part")
	register(overloads(fn2(tText, tText, tBool, func(a []types.Datum) (types.Datum, error) {
		return strings.HasPrefix(a[0].(string), a[1].(string)), nil
	})), "starts_with")
	register(buildConcat, "concat")
}

func textFn(f func(string) string) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return f(a[0].(string)), nil }
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// substr is substr(s, start [, count]) with 1-based start; characters
// before position 1 count against count, as in Postgres.
func substr(a []types.Datum) (types.Datum, error) {
	r := []rune(a[0].(string))
	start := a[1].(int64)
	end := int64(len(r)) + 1
	if len(a) == 3 {
		n := a[2].(int64)
		if n < 0 {
			return nil, pgerr.New("22011", "negative substring length not allowed")
		}
		end = min(end, start+n)
	}
	start = max(start, 1)
	if start >= end {
		return "", nil
	}
	return string(r[start-1 : end-1]), nil
}

// trimFn removes characters of the set (default a space) from the left
// and/or right end.
func trimFn(left, right bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		s, set := a[0].(string), " "
		if len(a) == 2 {
			set = a[1].(string)
		}
		if left {
			s = strings.TrimLeft(s, set)
		}
		if right {
			s = strings.TrimRight(s, set)
		}
		return s, nil
	}
}

func replace(a []types.Datum) (types.Datum, error) {
	s, from, to := a[0].(string), a[1].(string), a[2].(string)
	if from == "" {
		return s, nil
	}
	return strings.ReplaceAll(s, from, to), nil
}

// strpos is the 1-based character position of a[1] in a[0], 0 if absent.
func strpos(a []types.Datum) (types.Datum, error) {
	s, sub := a[0].(string), a[1].(string)
	i := strings.Index(s, sub)
	if i < 0 {
		return int64(0), nil
	}
	return int64(utf8.RuneCountInString(s[:i]) + 1), nil
}

// leftRight is left(s, n) / right(s, n): the first / last n characters;
// a negative n means all but the last / first |n|.
func leftRight(left bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		r := []rune(a[0].(string))
		n := a[1].(int64)
		l := int64(len(r))
		if n < 0 {
			n = max(l+n, 0)
		}
		n = min(n, l)
		if left {
			return string(r[:n]), nil
		}
		return string(r[l-n:]), nil
	}
}

func repeat(a []types.Datum) (types.Datum, error) {
	s, n := a[0].(string), a[1].(int64)
	if n <= 0 || s == "" {
		return "", nil
	}
	if int64(len(s))*n > 1<<30 {
		return nil, pgerr.New("54000", "requested length too large")
	}
	return strings.Repeat(s, int(n)), nil
}

// pad is lpad/rpad(s, length [, fill]): fill (default a space) repeated
// to length characters; a longer s is truncated on the right.
func pad(left bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		r, n, fill := []rune(a[0].(string)), a[1].(int64), []rune(" ")
		if len(a) == 3 {
			fill = []rune(a[2].(string))
		}
		n = max(n, 0)
		if n > 1<<28 {
			return nil, pgerr.New("54000", "requested length too large")
		}
		if int64(len(r)) >= n || len(fill) == 0 {
			return string(r[:min(int64(len(r)), n)]), nil
		}
		padding := make([]rune, n-int64(len(r)))
		for i := range padding {
			padding[i] = fill[i%len(fill)]
		}
		if left {
			return string(padding) + string(r), nil
		}
		return string(r) + string(padding), nil
	}
}

// splitPart is split_part(s, delim, n): the n-th field (from the end when
// n is negative); position 0 is 22023.
func splitPart(a []types.Datum) (types.Datum, error) {
	s, delim, n := a[0].(string), a[1].(string), a[2].(int64)
	if n == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	fields := []string{s}
	if delim != "" {
		fields = strings.Split(s, delim)
	}
	if s == "" {
		fields = nil
	}
	if n < 0 {
		n += int64(len(fields)) + 1
	}
	if n < 1 || n > int64(len(fields)) {
		return "", nil
	}
	return fields[n-1], nil
}

// buildConcat is concat(args...): the text of each non-NULL argument
// (by its output format), NULLs ignored; never NULL.
func buildConcat(name string, args []Expr) (Expr, error) {
	if len(args) == 0 { // concat(VARIADIC "any") needs one
		return nil, functionError(name, nil, resolveNone)
	}
	texts := make([]Expr, len(args))
	for i, a := range args {
		texts[i] = asText(a)
	}
	return &call{name: name, args: texts, typ: types.TText, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			var b strings.Builder
			for _, v := range a {
				if v != nil {
					b.WriteString(v.(string))
				}
			}
			return b.String(), nil
		}}, nil
}
