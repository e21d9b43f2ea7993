package expr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// format(formatstr, args...), as PostgreSQL's: %s (the argument as text,
// NULL as nothing), %I (quote_ident; NULL is an error), %L
// (quote_literal; NULL as NULL) and %%, each with an optional position
// (%2$s), a '-' flag (pad on the right) and a width (a number, * for the
// next argument, or *n$). Arguments are read with their type's output
// function (booleans as t and f).

func init() { register(buildFormat, "format") }

func buildFormat(name string, args []Expr) (Expr, error) {
	if len(args) < 1 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	f, err := coerce(args[0], types.TText)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	cargs := []Expr{f}
	for _, a := range args[1:] {
		cargs = append(cargs, asText(a))
	}
	return &call{name: name, style: styleFunc, args: cargs, typ: types.TText, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			return formatText(a[0].(string), a[1:])
		}}, nil
}

func formatError(msg, hint string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "%s", msg)
	e.Hint = hint
	return e
}

var errFormatUnterminated = formatError("unterminated format() type specifier",
	"For a single \"%\" use \"%%\".")

// formatText renders f over args (text or NULL).
func formatText(f string, args []types.Datum) (types.Datum, error) {
	var b strings.Builder
	next := 0 // the next argument an unpositioned specifier takes
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return nil, errFormatUnterminated
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// [n$]
		pos, j, ok := formatNumber(f, i)
		if ok && j < len(f) && f[j] == '$' {
			if pos == 0 {
				return nil, formatError("format specifies argument 0, but arguments are numbered from 1", "")
			}
			next, i = pos-1, j+1
		}
		left := false
		for i < len(f) && f[i] == '-' {
			left, i = true, i+1
		}
		width, hasWidth := 0, false
		if i < len(f) && f[i] == '*' {
			i++
			at := next
			if n, j, ok := formatNumber(f, i); ok && j < len(f) && f[j] == '$' {
				if n == 0 {
					return nil, formatError("format specifies argument 0, but arguments are numbered from 1", "")
				}
				at, i = n-1, j+1
			} else {
				next++
			}
			if at >= len(args) {
				return nil, formatError("too few arguments for format()", "")
			}
			if args[at] != nil {
				w, err := strconv.Atoi(strings.TrimSpace(args[at].(string)))
				if err != nil {
					return nil, pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type integer: %q", args[at].(string))
				}
				if w < 0 {
					left, w = true, -w
				}
				width, hasWidth = w, true
			}
		} else if n, j, ok := formatNumber(f, i); ok {
			width, hasWidth, i = n, true, j
		}
		if i >= len(f) {
			return nil, errFormatUnterminated
		}
		typ := f[i]
		if typ != 's' && typ != 'I' && typ != 'L' {
			return nil, formatError("unrecognized format() type specifier \""+string(typ)+"\"",
				"For a single \"%\" use \"%%\".")
		}
		if next >= len(args) {
			return nil, formatError("too few arguments for format()", "")
		}
		v := args[next]
		next++
		var s string
		switch typ {
		case 's':
			if v != nil {
				s = v.(string)
			}
		case 'I':
			if v == nil {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = QuoteIdent(v.(string))
		case 'L':
			if v == nil {
				s = "NULL"
			} else {
				q, _ := quoteLiteral([]types.Datum{v})
				s = q.(string)
			}
		}
		if hasWidth {
			if pad := width - utf8.RuneCountInString(s); pad > 0 {
				if left {
					s += strings.Repeat(" ", pad)
				} else {
					s = strings.Repeat(" ", pad) + s
				}
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// formatNumber reads the digits at f[i:]: their value, the index after
// them, and whether there were any.
func formatNumber(f string, i int) (int, int, bool) {
	j := i
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	if j == i {
		return 0, i, false
	}
	n, err := strconv.Atoi(f[i:j])
	if err != nil {
		n = 1 << 30
	}
	return n, j, true
}
