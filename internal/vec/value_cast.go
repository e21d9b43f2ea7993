package vec

import (
	"math"
	"strconv"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// cast compiles a cast between integer types, between integers and
// floats, between float types, of an integer, float, date or timestamp
// to text, between text types without a length, and between date and
// timestamp, of an integer to numeric, and between numerics without a
// typmod; numCast (value_numeric_ops.go) the other casts to numeric and
// from numeric to integers and floats. Casts involving timestamptz
// depend on the session time zone and stay with the row evaluator, as
// do casts to varchar(n) and of numeric to text.
func (c *compiler) cast(e, arg expr.Expr, to types.Type) (valueNode, bool) {
	from := arg.Type()
	fk, tk := kindOf(from), kindOf(to)
	if fk == kNone || tk == kNone || from.ID == types.IDTimestampTZ || to.ID == types.IDTimestampTZ ||
		(to.ID == types.IDVarchar && to.Width > 0) {
		return nil, false
	}
	var conv castKind
	switch {
	case tk == kNumeric && to.Precision > 0, fk == kNumeric && tk != kNumeric,
		tk == kNumeric && (fk == kFloat || fk == kString):
		return c.numCast(e, arg, from, to) // value_numeric_ops.go
	case tk == kNumeric && fk == kNumeric:
		conv = castSame
	case tk == kNumeric && from.IsInteger():
		conv = castIntNumeric
	case tk == kString && fk == kString:
		conv = castSame
	case tk == kString && (fk == kInt || fk == kFloat):
		conv = castText
	case from.IsInteger() && to.IsInteger():
		conv = castIntInt
	case from.IsInteger() && to.IsFloat():
		conv = castIntFloat
	case from.IsFloat() && to.IsFloat():
		conv = castFloatFloat
	case from.IsFloat() && to.IsInteger():
		conv = castFloatInt
	case from.ID == types.IDDate && to.ID == types.IDTimestamp:
		conv = castDateTS
	case from.ID == types.IDTimestamp && to.ID == types.IDDate:
		conv = castTSDate
	default:
		return nil, false
	}
	n, ok := c.value(arg)
	if !ok {
		return nil, false
	}
	lo, hi := intRange(to)
	return &castNode{conv: conv, arg: n, e: e, from: from, to: to, lo: lo, hi: hi}, true
}

type castKind uint8

const (
	castSame castKind = iota
	castText
	castIntInt
	castIntFloat
	castFloatFloat
	castFloatInt
	castDateTS
	castTSDate
	castIntNumeric
)

// castNode converts its argument; a row the kernel cannot convert (out
// of range, NaN, infinite) goes to the row evaluator's conversion, which
// decides it.
type castNode struct {
	conv     castKind
	arg      valueNode
	e        expr.Expr
	from, to types.Type
	lo, hi   int64
}

func (n *castNode) eval(x *evalCtx) vvec {
	v := n.arg.eval(x)
	switch n.conv {
	case castSame:
	case castText:
		n.text(x, &v)
	case castIntInt:
		for i, p := range v.i {
			if (p < n.lo || p > n.hi) && v.isValid(i) {
				n.slow(x, &v, i, p)
			}
		}
	case castIntFloat:
		v.f = x.floats()
		for i, p := range v.i {
			f := float64(p)
			if n.to.ID == types.IDFloat32 {
				f = float64(float32(f))
			}
			v.f[i] = f
		}
		v.i = nil
	case castFloatFloat:
		if n.to.ID == types.IDFloat32 && n.from.ID != types.IDFloat32 {
			for i, f := range v.f {
				r := float64(float32(f))
				if (math.IsInf(r, 0) && !math.IsInf(f, 0)) || (r == 0 && f != 0) {
					if v.isValid(i) {
						n.slow(x, &v, i, f)
					}
					continue
				}
				v.f[i] = r
			}
		}
	case castFloatInt:
		n.floatInt(x, &v)
	case castIntNumeric:
		v.n = x.nums()
		for i, p := range v.i {
			c, neg := uint64(p), p < 0
			if neg {
				c = -c // two's complement: math.MinInt64 too
			}
			v.n[i] = num{coeff: c, neg: neg}
		}
		v.i = nil
	case castDateTS:
		for i, d := range v.i {
			if ts, ok := dateMicros(d); ok && types.TimestampValid(types.Timestamp(ts)) {
				v.i[i] = ts
			} else if v.isValid(i) {
				n.slow(x, &v, i, types.Date(d))
			}
		}
	case castTSDate:
		for i, ts := range v.i {
			if types.IsInfinite(types.Timestamp(ts)) {
				if v.isValid(i) {
					n.slow(x, &v, i, types.Timestamp(ts))
				}
				continue
			}
			days, _ := types.SplitTimestamp(types.Timestamp(ts))
			v.i[i] = days
		}
	}
	return v
}

// floatInt rounds floats to integers half to even (rint), as the row
// evaluator does.
func (n *castNode) floatInt(x *evalCtx, v *vvec) {
	out := x.ints()
	for i, f := range v.f {
		r := math.RoundToEven(f)
		if r >= -9.2e18 && r <= 9.2e18 && int64(r) >= n.lo && int64(r) <= n.hi {
			out[i] = int64(r)
			continue
		}
		if v.isValid(i) {
			v.i = out
			n.slow(x, v, i, f)
		}
	}
	v.i, v.f = out, nil
}

// text renders numbers, dates and timestamps as text, as their output
// functions do.
func (n *castNode) text(x *evalCtx, v *vvec) {
	out := x.strs()
	for i := range out {
		if !v.isValid(i) {
			continue
		}
		start := len(x.arena)
		switch {
		case familyOf(n.from) == famTime:
			x.arena = append(x.arena, types.Format(timeDatum(n.from, v.i[i]), n.from)...)
		case v.i != nil:
			x.arena = strconv.AppendInt(x.arena, v.i[i], 10)
		case n.from.ID == types.IDFloat32:
			x.arena = append(x.arena, types.FormatFloat(v.f[i], 32)...)
		default:
			x.arena = append(x.arena, types.FormatFloat(v.f[i], 64)...)
		}
		out[i] = x.str(start)
	}
	v.s, v.i, v.f = out, nil, nil
}

// timeDatum is the Datum of a date or timestamp held as an int64.
func timeDatum(t types.Type, v int64) types.Datum {
	if t.ID == types.IDDate {
		return types.Date(v)
	}
	return types.Timestamp(v)
}

// slow converts row i (value in) with the row evaluator's conversion,
// storing the result into v or failing the row.
func (n *castNode) slow(x *evalCtx, v *vvec, i int, in types.Datum) {
	d, err, _ := expr.ApplyCast(n.e, in)
	if err != nil {
		v.fail(x, i, err)
		return
	}
	switch r := d.(type) {
	case int64:
		v.i[i] = r
	case float64:
		v.f[i] = r
	case types.Date:
		v.i[i] = int64(r)
	case types.Timestamp:
		v.i[i] = int64(r)
	}
}

// dateMicros is the timestamp of midnight of date d, when d is a finite
// date whose timestamp an int64 holds (|d| < 10^8 days).
func dateMicros(d int64) (int64, bool) {
	if d <= -100_000_000 || d >= 100_000_000 {
		return 0, false
	}
	return d * types.MicrosPerDay, true
}
