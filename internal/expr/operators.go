package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// The operator catalog, as pg_operator rows: each operator name maps to
// its overloads. Built once at init, read-only afterwards.
var (
	binaryOps = map[string][]sig{}
	unaryOps  = map[string][]sig{}
)

const (
	tBool   = types.IDBool
	tInt2   = types.IDInt16
	tInt4   = types.IDInt32
	tInt8   = types.IDInt64
	tFloat4 = types.IDFloat32
	tFloat8 = types.IDFloat64
	tNum    = types.IDNumeric
	tText   = types.IDText
	tDate   = types.IDDate
	tTS     = types.IDTimestamp
	tTSTZ   = types.IDTimestampTZ
	tIvl    = types.IDInterval
)

var (
	intIDs      = []types.ID{tInt2, tInt4, tInt8}
	floatIDs    = []types.ID{tFloat4, tFloat8}
	dateTimeIDs = []types.ID{tDate, tTS, tTSTZ}
	comparisons = []string{"=", "<>", "<", "<=", ">", ">="}
)

func addBinary(op string, l, r, result types.ID, fn evalFn) {
	binaryOps[op] = append(binaryOps[op], sig{params: []types.ID{l, r}, result: result, fn: fn})
}

func init() {
	addArithmetic()
	addComparisons()
	addDateTimeOps()
	for _, id := range append(append([]types.ID{}, intIDs...), tFloat4, tFloat8, tNum, tIvl) {
		unaryOps["-"] = append(unaryOps["-"], sig{params: []types.ID{id}, result: id, fn: negate(types.Type{ID: id})})
		if id != tIvl {
			unaryOps["+"] = append(unaryOps["+"], sig{params: []types.ID{id}, result: id, fn: identity})
		}
	}
}

func identity(a []types.Datum) (types.Datum, error) { return a[0], nil }

// addArithmetic registers + - * / % ^ on numbers: every pair of integer
// widths (the wider wins), every pair of float widths (double unless both
// are real), numeric; % only between equal integer types and numerics; ^
// on double and numeric.
func addArithmetic() {
	for _, op := range []string{"+", "-", "*", "/"} {
		for _, l := range intIDs {
			for _, r := range intIDs {
				res := max(l, r)
				addBinary(op, l, r, res, intArith(op, types.Type{ID: res}))
			}
		}
		for _, l := range floatIDs {
			for _, r := range floatIDs {
				res := max(l, r)
				addBinary(op, l, r, res, floatArith(op, types.Type{ID: res}))
			}
		}
		addBinary(op, tNum, tNum, tNum, numericArith(op))
	}
	for _, id := range intIDs {
		addBinary("%", id, id, id, intArith("%", types.Type{ID: id}))
	}
	addBinary("%", tNum, tNum, tNum, numericArith("%"))
	addBinary("^", tFloat8, tFloat8, tFloat8, floatPow)
	addBinary("^", tNum, tNum, tNum, numericPow)
}

// addComparisons registers the six comparisons for every ordered type,
// with the cross-type variants Postgres has among integers, among floats
// and among date/timestamp/timestamptz.
func addComparisons() {
	families := [][]types.ID{intIDs, floatIDs, dateTimeIDs}
	for _, op := range comparisons {
		for _, fam := range families {
			for _, l := range fam {
				for _, r := range fam {
					addBinary(op, l, r, tBool, comparison(op, types.Type{ID: max(l, r)}))
				}
			}
		}
		for _, id := range []types.ID{tBool, tNum, tText, tIvl} {
			addBinary(op, id, id, tBool, comparison(op, types.Type{ID: id}))
		}
	}
}

// addDateTimeOps registers date and time arithmetic.
func addDateTimeOps() {
	addBinary("+", tDate, tInt4, tDate, func(a []types.Datum) (types.Datum, error) {
		return dateAddDays(a[0].(types.Date), a[1].(int64))
	})
	addBinary("+", tInt4, tDate, tDate, func(a []types.Datum) (types.Datum, error) {
		return dateAddDays(a[1].(types.Date), a[0].(int64))
	})
	addBinary("-", tDate, tInt4, tDate, func(a []types.Datum) (types.Datum, error) {
		return dateAddDays(a[0].(types.Date), -a[1].(int64))
	})
	addBinary("-", tDate, tDate, tInt4, func(a []types.Datum) (types.Datum, error) {
		return dateDiff(a[0].(types.Date), a[1].(types.Date))
	})
	addBinary("+", tDate, tIvl, tTS, func(a []types.Datum) (types.Datum, error) {
		return dateAddInterval(a[0].(types.Date), a[1].(types.Interval), false)
	})
	addBinary("+", tIvl, tDate, tTS, func(a []types.Datum) (types.Datum, error) {
		return dateAddInterval(a[1].(types.Date), a[0].(types.Interval), false)
	})
	addBinary("-", tDate, tIvl, tTS, func(a []types.Datum) (types.Datum, error) {
		return dateAddInterval(a[0].(types.Date), a[1].(types.Interval), true)
	})
	for _, ts := range []types.ID{tTS, tTSTZ} {
		addTimestampOps(ts)
	}
	addIntervalOps()
}

func dateAddInterval(d types.Date, iv types.Interval, sub bool) (types.Datum, error) {
	ts, err := dateToTimestamp(d)
	if err != nil {
		return nil, err
	}
	return timestampAddInterval(ts.(types.Timestamp), iv, sub)
}

func timestampAddInterval(ts types.Timestamp, iv types.Interval, sub bool) (types.Datum, error) {
	if sub {
		var err error
		if iv, err = negInterval(iv); err != nil {
			return nil, err
		}
	}
	return addInterval(ts, iv)
}

func addTimestampOps(ts types.ID) {
	addBinary("+", ts, tIvl, ts, func(a []types.Datum) (types.Datum, error) {
		return timestampAddInterval(a[0].(types.Timestamp), a[1].(types.Interval), false)
	})
	addBinary("+", tIvl, ts, ts, func(a []types.Datum) (types.Datum, error) {
		return timestampAddInterval(a[1].(types.Timestamp), a[0].(types.Interval), false)
	})
	addBinary("-", ts, tIvl, ts, func(a []types.Datum) (types.Datum, error) {
		return timestampAddInterval(a[0].(types.Timestamp), a[1].(types.Interval), true)
	})
	addBinary("-", ts, ts, tIvl, func(a []types.Datum) (types.Datum, error) {
		return timestampDiff(a[0].(types.Timestamp), a[1].(types.Timestamp))
	})
}

func addIntervalOps() {
	addBinary("+", tIvl, tIvl, tIvl, func(a []types.Datum) (types.Datum, error) {
		return intervalAdd(a[0].(types.Interval), a[1].(types.Interval), false)
	})
	addBinary("-", tIvl, tIvl, tIvl, func(a []types.Datum) (types.Datum, error) {
		return intervalAdd(a[0].(types.Interval), a[1].(types.Interval), true)
	})
	addBinary("*", tIvl, tFloat8, tIvl, func(a []types.Datum) (types.Datum, error) {
		return intervalScale(a[0].(types.Interval), a[1].(float64), false)
	})
	addBinary("*", tFloat8, tIvl, tIvl, func(a []types.Datum) (types.Datum, error) {
		return intervalScale(a[1].(types.Interval), a[0].(float64), false)
	})
	addBinary("/", tIvl, tFloat8, tIvl, func(a []types.Datum) (types.Datum, error) {
		return intervalScale(a[0].(types.Interval), a[1].(float64), true)
	})
}

// binary builds l op r; see Binary.
func binary(op string, l, r Expr) (Expr, error) {
	op = strings.ToUpper(strings.Join(strings.Fields(op), " "))
	if op == "!=" {
		op = "<>"
	}
	if e, ok, err := jsonBinary(op, l, r); ok {
		return e, err
	}
	if e, ok, err := arrayBinary(op, l, r); ok {
		return e, err
	}
	switch op {
	case "AND", "OR":
		return logical(op, l, r)
	case "LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE":
		return like(op, l, r)
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		return distinct(l, r, op == "IS NOT DISTINCT FROM")
	case "||":
		return concatOp(l, r)
	}
	return newCall(op, styleInfix, binaryOps[op], []Expr{l, r})
}

// unary builds op e; see Unary.
func unary(op string, e Expr) (Expr, error) {
	op = strings.ToUpper(strings.TrimSpace(op))
	if op == "NOT" {
		return not(e)
	}
	return newCall(op, stylePrefix, unaryOps[op], []Expr{e})
}
