package expr

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// More of PostgreSQL's string functions: chr, ascii, initcap, translate,
// md5, to_hex, concat_ws.

func init() {
	register(overloads(fn1(tInt4, tText, chr)), "chr")
	register(overloads(fn1(tText, tInt4, func(a []types.Datum) (types.Datum, error) {
		r, _ := utf8.DecodeRuneInString(a[0].(string))
		if r == utf8.RuneError {
			return int64(0), nil
		}
		return int64(r), nil
	})), "ascii")
	register(overloads(fn1(tText, tText, textFn(initcap))), "initcap")
	register(overloads(fn3(tText, tText, tText, tText, translate)), "translate")
	register(overloads(fn1(tText, tText, func(a []types.Datum) (types.Datum, error) {
		return md5Hex(a[0].(string)), nil
	}), byteaMD5), "md5")
	register(overloads(fn1(tInt8, tText, func(a []types.Datum) (types.Datum, error) {
		return strconv.FormatUint(uint64(a[0].(int64)), 16), nil
	}), fn1(tInt4, tText, func(a []types.Datum) (types.Datum, error) {
		return strconv.FormatUint(uint64(uint32(a[0].(int64))), 16), nil
	})), "to_hex")
	register(buildConcatWS, "concat_ws")
}

// chr is chr(code): the character with that Unicode code point.
func chr(a []types.Datum) (types.Datum, error) {
	n := a[0].(int64)
	switch {
	case n == 0:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case n < 0:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "character number must be positive")
	case n > unicode.MaxRune:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", n)
	case n >= 0xD800 && n <= 0xDFFF:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", n)
	}
	return string(rune(n)), nil
}

// initcap upper-cases the first letter of each word and lower-cases the
// rest; words are runs of letters and digits.
func initcap(s string) string {
	var b strings.Builder
	inWord := false
	for _, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case alnum && !inWord:
			b.WriteRune(unicode.ToUpper(r))
		case alnum:
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
		inWord = alnum
	}
	return b.String()
}

// translate replaces each character of s found in from by the character
// at the same position in to, or removes it when to is shorter.
func translate(a []types.Datum) (types.Datum, error) {
	from, to := []rune(a[1].(string)), []rune(a[2].(string))
	var b strings.Builder
	for _, r := range a[0].(string) {
		k := -1
		for i, f := range from {
			if f == r {
				k = i
				break
			}
		}
		switch {
		case k < 0:
			b.WriteRune(r)
		case k < len(to):
			b.WriteRune(to[k])
		}
	}
	return b.String(), nil
}

// buildConcatWS builds concat_ws(sep, args...): the non-NULL arguments
// as text, separated by sep; NULL when sep is.
func buildConcatWS(name string, args []Expr) (Expr, error) {
	if len(args) < 2 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	sep, err := coerce(args[0], types.TText)
	if err != nil {
		return nil, err
	}
	rest := make([]Expr, len(args)-1)
	for i, e := range args[1:] {
		rest[i] = asText(e)
	}
	return &call{name: name, style: styleFunc, args: append([]Expr{sep}, rest...), typ: types.TText, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			var parts []string
			for _, v := range a[1:] {
				if v != nil {
					parts = append(parts, v.(string))
				}
			}
			return strings.Join(parts, a[0].(string)), nil
		}}, nil
}
