package expr

import "github.com/streamdb/streamdb/internal/types"

// overlaps(s1, e1, s2, e2) is (s1, e1) OVERLAPS (s2, e2) (the front end
// writes the one as the other): whether two periods of time share an
// instant, each given by its ends in either order, or by its start and
// an interval. PostgreSQL's overlaps_timestamp, NULLs included: a period
// with one NULL end is the instant of the other, and the result is NULL
// where the answer depends on a NULL. Dates compare as timestamps.
func buildOverlaps(name string, args []Expr) (Expr, error) {
	if len(args) != 4 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	ends := append([]Expr(nil), args...)
	for _, i := range []int{1, 3} {
		if ends[i].Type().ID == types.IDInterval {
			e, err := binary("+", ends[i-1], ends[i])
			if err != nil {
				return nil, functionError(name, exprTypes(args), resolveNone)
			}
			ends[i] = e
		}
	}
	out, t, err := unified("OVERLAPS", ends)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	switch t.ID {
	case types.IDDate:
		t = types.TTimestamp
		if out, err = coerceAll(out, t); err != nil {
			return nil, err
		}
	case types.IDTimestamp, types.IDTimestampTZ:
	default:
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: out, typ: types.TBool, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) { return overlaps(a, t), nil }}, nil
}

// overlaps evaluates OVERLAPS over the ends a of type t.
func overlaps(a []types.Datum, t types.Type) types.Datum {
	s1, e1, ok := period(a[0], a[1], t)
	if !ok {
		return nil
	}
	s2, e2, ok := period(a[2], a[3], t)
	if !ok {
		return nil
	}
	lt := func(x, y types.Datum) bool { return Compare(x, y, t) < 0 }
	switch c := Compare(s1, s2, t); {
	case c > 0:
		return before(s1, e2, e1, lt)
	case c < 0:
		return before(s2, e1, e2, lt)
	case e1 == nil || e2 == nil:
		return nil
	}
	return true
}

// before is the answer when period x starts after period y: x's start
// before y's end (yEnd), NULL where that is unknown.
func before(xStart, yEnd, xEnd types.Datum, lt func(x, y types.Datum) bool) types.Datum {
	switch {
	case yEnd == nil:
		return nil
	case lt(xStart, yEnd):
		return true
	case xEnd == nil:
		return nil
	}
	return false
}

// period orders the ends of a period: the start is the lesser, or the
// one that is not NULL; ok is false when both are NULL.
func period(s, e types.Datum, t types.Type) (types.Datum, types.Datum, bool) {
	switch {
	case s == nil && e == nil:
		return nil, nil, false
	case s == nil:
		return e, nil, true
	case e != nil && Compare(s, e, t) > 0:
		return e, s, true
	}
	return s, e, true
}
