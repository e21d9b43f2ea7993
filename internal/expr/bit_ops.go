package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// The bitwise operators of the integer types (and ^@, starts with), as PostgreSQL has them:
// & | # (xor) between two of one type, ~ (not), and << >> by an integer
// count. A shift count is taken modulo the width the shift is computed
// in (32 bits for smallint and integer, 64 for bigint), as the C shifts
// PostgreSQL compiles to do on x86-64; a smallint result keeps the low 16
// bits.

func init() {
	for _, id := range intIDs {
		t := types.Type{ID: id}
		for _, op := range []string{"&", "|", "#"} {
			addBinary(op, id, id, id, bitOp(op))
		}
		addBinary("<<", id, tInt4, id, bitShift(t, true))
		addBinary(">>", id, tInt4, id, bitShift(t, false))
		unaryOps["~"] = append(unaryOps["~"], sig{params: []types.ID{id}, result: id,
			fn: func(a []types.Datum) (types.Datum, error) { return ^a[0].(int64), nil }})
	}
	// text ^@ text is starts_with, at the level of the other operators.
	addBinary("^@", tText, tText, tBool, func(a []types.Datum) (types.Datum, error) {
		return strings.HasPrefix(a[0].(string), a[1].(string)), nil
	})
}

func bitOp(op string) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x, y := a[0].(int64), a[1].(int64)
		switch op {
		case "&":
			return x & y, nil
		case "|":
			return x | y, nil
		}
		return x ^ y, nil
	}
}

func bitShift(t types.Type, left bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x, n := a[0].(int64), uint64(a[1].(int64))
		if t.ID == types.IDInt64 {
			n &= 63
			if left {
				return x << n, nil
			}
			return x >> n, nil
		}
		n &= 31
		var r int32
		if left {
			r = int32(x) << n
		} else {
			r = int32(x) >> n
		}
		if t.ID == types.IDInt16 {
			return int64(int16(r)), nil
		}
		return int64(r), nil
	}
}
