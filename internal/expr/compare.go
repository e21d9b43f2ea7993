package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// compare orders two non-NULL Datums of type t like Postgres's btree
// operator class for t: false < true; floats with -0 = 0 and NaN above
// everything; numerics by value (1.0 = 1.00) with NaN above Infinity;
// strings by bytes (the C collation), bpchar without trailing blanks,
// uuids by their bytes; intervals by their span with a
// month of 30 days ('1 mon' = '30 days').
func compare(a, b types.Datum, t types.Type) int {
	if t.ID == types.IDArray {
		return compareArray(a.(string), b.(string), t)
	}
	if t.ID == types.IDJSONB {
		return jsonb.Compare(parseJSONB(a), parseJSONB(b))
	}
	if t.ID == types.IDBpchar {
		return strings.Compare(types.BpcharTrim(a.(string)), types.BpcharTrim(b.(string)))
	}
	switch x := a.(type) {
	case bool:
		return cmpInt(boolToInt(x), boolToInt(b.(bool)))
	case int64:
		return cmpInt(x, b.(int64))
	case float64:
		return compareFloat(x, b.(float64))
	case *apd.Decimal:
		return compareNumeric(x, b.(*apd.Decimal))
	case string:
		return strings.Compare(x, b.(string))
	case types.Date:
		return cmpInt(int64(x), int64(b.(types.Date)))
	case types.Timestamp:
		return cmpInt(int64(x), int64(b.(types.Timestamp)))
	case types.Interval:
		return compareInterval(x, b.(types.Interval))
	}
	panic("expr: cannot compare values of type " + t.String())
}

// compareArray orders arrays as Postgres's array_cmp does: element by
// element, a NULL element after every other value, and an array before
// the longer arrays it is a prefix of.
func compareArray(a, b string, t types.Type) int {
	if a == b {
		return 0
	}
	xa, errX := types.ParseArrayValue(a, t.ElemType())
	ya, errY := types.ParseArrayValue(b, t.ElemType())
	if errX != nil || errY != nil {
		return strings.Compare(a, b)
	}
	x, y := xa.Elems, ya.Elems
	for i := 0; i < len(x) && i < len(y); i++ {
		switch {
		case x[i] == nil && y[i] == nil:
		case x[i] == nil:
			return 1
		case y[i] == nil:
			return -1
		default:
			if c := compare(x[i], y[i], t.ElemType()); c != 0 {
				return c
			}
		}
	}
	if c := cmpInt(int64(len(x)), int64(len(y))); c != 0 {
		return c
	}
	return compareShapes(xa.Dims, ya.Dims)
}

// compareShapes orders the shapes of arrays with equal elements, as
// array_cmp does: by the number of dimensions, then by their lengths.
func compareShapes(x, y []int) int {
	if c := cmpInt(int64(len(x)), int64(len(y))); c != 0 {
		return c
	}
	for i := range x {
		if c := cmpInt(int64(x[i]), int64(y[i])); c != 0 {
			return c
		}
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareInterval(a, b types.Interval) int {
	ad, am := a.Span()
	bd, bm := b.Span()
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpInt(am, bm)
}

// comparison returns the evaluator of comparison operator op over values
// of type t.
func comparison(op string, t types.Type) evalFn {
	test := map[string]func(int) bool{
		"=":  func(c int) bool { return c == 0 },
		"<>": func(c int) bool { return c != 0 },
		"<":  func(c int) bool { return c < 0 },
		"<=": func(c int) bool { return c <= 0 },
		">":  func(c int) bool { return c > 0 },
		">=": func(c int) bool { return c >= 0 },
	}[op]
	return func(a []types.Datum) (types.Datum, error) {
		return test(compareMixed(a[0], a[1], t)), nil
	}
}

// compareMixed compares values that may be of different Datum kinds of
// one category (int with int, a date with a timestamp): the cross-type
// comparison operators Postgres has.
func compareMixed(a, b types.Datum, t types.Type) int {
	switch x := a.(type) {
	case types.Date:
		if y, ok := b.(types.Timestamp); ok {
			return compare(dateAsTimestamp(x), y, t)
		}
	case types.Timestamp:
		if y, ok := b.(types.Date); ok {
			return compare(x, dateAsTimestamp(y), t)
		}
	}
	return compare(a, b, t)
}

// dateAsTimestamp converts a date to midnight, saturating out-of-range
// dates at the infinities so that comparisons stay total.
func dateAsTimestamp(d types.Date) types.Timestamp {
	ts, err := dateToTimestamp(d)
	if err != nil {
		if d > 0 {
			return types.TimestampInfinity
		}
		return types.TimestampNegInfinity
	}
	return ts.(types.Timestamp)
}
