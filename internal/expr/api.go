package expr

// This file lists the constructors the binder uses. Each type-checks its
// arguments the way Postgres does, inserts implicit casts, and reports
// problems as *pgerr.Error (42883 no such operator/function, 42804 datatype
// mismatch, 22P02 bad literal ...).
//
// Literals of type Unknown (string literals, untyped NULL) take the type
// their context asks for, as in Postgres: '1' + 2 is integer 3, and
// date_col > '2024-01-01' compares dates.

import (
	"sort"

	"github.com/streamdb/streamdb/internal/types"
)

// Binary builds a binary operator. op is one of
//
//   - - * / % ^ || = <> != < <= > >= AND OR
//     LIKE, NOT LIKE, ILIKE, NOT ILIKE, IS DISTINCT FROM, IS NOT DISTINCT FROM
//
// (the keyword operators upper case). Integer arithmetic checks overflow
// (22003), division and modulo by zero fail with 22012, and date/time
// arithmetic follows Postgres (date + int, date - date, timestamp +/- interval,
// timestamp - timestamp, interval * number ...).
func Binary(op string, l, r Expr) (Expr, error) { return binary(op, l, r) }

// Unary builds NOT e, -e or +e.
func Unary(op string, e Expr) (Expr, error) { return unary(op, e) }

// IsNull builds e IS NULL (or IS NOT NULL when not is true).
func IsNull(e Expr, not bool) Expr { return isNull(e, not) }

// IsBool builds e IS [NOT] TRUE / FALSE: val is the boolean compared with.
func IsBool(e Expr, val, not bool) (Expr, error) { return isBool(e, val, not) }

// Cast builds an explicit cast (CAST(e AS t), e::t).
func Cast(e Expr, t types.Type) (Expr, error) { return cast(e, t, false) }

// AssignCast converts e for storing into a column of type t (INSERT,
// UPDATE): the conversions Postgres allows in assignment context, with range
// and length checks (22003, 22001) at evaluation.
func AssignCast(e Expr, t types.Type) (Expr, error) { return cast(e, t, true) }

// Coerce converts e to t implicitly, as an operator or function argument
// is converted: only where the cast is implicit (42846 otherwise).
func Coerce(e Expr, t types.Type) (Expr, error) { return coerce(e, t) }

// CastContext reports where a cast from -> to is allowed, as
// pg_cast.castcontext has it: 'i' implicitly (in expressions), 'a' in
// assignment, 'e' only explicitly; ok is false when there is no cast.
func CastContext(from, to types.ID) (context byte, ok bool) {
	level, ok := castLevel(from, to)
	return "iae"[level], ok
}

// FuncNames returns the names Func knows, sorted.
func FuncNames() []string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HasFunc reports whether Func knows name.
func HasFunc(name string) bool {
	_, ok := functions[name]
	return ok
}

// Func builds a call of a scalar function by its lower-case name: coalesce,
// nullif, greatest, least, abs, round, trunc, floor, ceil, ceiling, sign,
// sqrt, power, mod, lower, upper, length, char_length, octet_length, substr,
// substring, trim, btrim, ltrim, rtrim, replace, concat, strpos, position,
// left, right, repeat, reverse, lpad, rpad, split_part, starts_with,
// date_trunc, date_part, extract (args: field name as a text Const, source),
// to_timestamp, make_date, now, current_timestamp, current_date,
// statement_timestamp, clock_timestamp, random (see clock.go).
func Func(name string, args []Expr) (Expr, error) { return function(name, args) }

// Case builds CASE [operand] WHEN whens[i] THEN thens[i] ... ELSE els END.
// operand and els may be nil.
func Case(operand Expr, whens, thens []Expr, els Expr) (Expr, error) {
	return caseExpr(operand, whens, thens, els)
}

// In builds e [NOT] IN (list...).
func In(e Expr, list []Expr, not bool) (Expr, error) { return in(e, list, not) }

// CommonType returns the type that values of the given types unify to
// (UNION, CASE, COALESCE, VALUES columns), following Postgres's rules.
func CommonType(ts []types.Type) (types.Type, error) { return commonType(ts) }

// Compare orders two non-NULL Datums of type t: -1, 0 or +1.
func Compare(a, b types.Datum, t types.Type) int { return compare(a, b, t) }
