package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
)

// RANGE frames with offsets: RANGE BETWEEN INTERVAL '1 hour' PRECEDING AND
// CURRENT ROW bounds a row's frame by the values of the window's one
// ORDER BY column, as PostgreSQL's in_range support does: integers,
// numerics and floats with an offset of their kind, dates, timestamps and
// intervals with an interval.

// rangeOffset records the offset of a RANGE bound: a constant, not NULL
// and not negative.
func (b *binder) rangeOffset(bd window.Bound, e expr.Expr, which string) (window.Bound, error) {
	if len(expr.Columns(e)) > 0 {
		return bd, notSupported("a window frame offset that is not a constant")
	}
	v, err := e.Eval(nil)
	if err != nil {
		return bd, err
	}
	if v == nil {
		return bd, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
	}
	bd.Value = expr.NewConst(v, e.Type())
	bd.Offset = types.Format(v, e.Type())
	return bd, nil
}

// bindRangeOffsets turns the offsets of a RANGE frame's bounds into the
// expressions that compute each bound's value from a row's ORDER BY value
// (window.Bound.Value), and the frame's key (window.Frame.Key).
func (b *binder) bindRangeOffsets(c *exprCtx, spec *ast.WindowSpec, fr *window.Frame) error {
	if spec.OrderBy == nil || len(spec.OrderBy.Items) != 1 {
		return pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	item := spec.OrderBy.Items[0]
	oe, _ := unwrapNulls(item.Expr, item.Desc)
	order, err := b.bindExpr(c, oe)
	if err != nil {
		return err
	}
	ot := order.Type()
	x := expr.Expr(expr.NewColumn(0, ot, "x"))
	var key expr.Expr // the value the bounds compare with, when not x
	var offType types.Type
	switch {
	case ot.IsInteger():
		// Computed as numeric: x ± offset cannot overflow.
		key, offType = x, types.TNumeric
		if key, err = expr.Cast(x, types.TNumeric); err != nil {
			return err
		}
	case ot.ID == types.IDNumeric:
		offType = types.TNumeric
	case ot.IsFloat():
		offType = types.TFloat64
		if ot.ID != types.IDFloat64 {
			if key, err = expr.Cast(x, types.TFloat64); err != nil {
				return err
			}
		}
	case ot.ID == types.IDDate:
		offType = types.TInterval
		if key, err = expr.Cast(x, types.TTimestamp); err != nil {
			return err
		}
	case ot.ID == types.IDTimestamp || ot.ID == types.IDTimestampTZ || ot.ID == types.IDInterval:
		offType = types.TInterval
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", ot)
	}
	base := x
	if key != nil {
		base = expr.NewColumn(0, key.Type(), "x")
		fr.Key, fr.KeyType = key, key.Type()
	} else {
		fr.KeyType = ot
	}
	for _, bd := range []*window.Bound{&fr.Start, &fr.End} {
		if bd.Value == nil {
			continue
		}
		off := bd.Value.(*expr.Const)
		ov, err := expr.Cast(off, offType)
		if err != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", ot, off.Type())
		}
		v, err := ov.Eval(nil)
		if err != nil {
			return err
		}
		if negativeOffset(v, offType) {
			return pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")
		}
		// PRECEDING looks back in the window order: to smaller values
		// ascending, to greater ones descending.
		op := "-"
		if (bd.Kind == window.Following) != item.Desc {
			op = "+"
		}
		val, err := expr.Binary(op, base, expr.NewConst(v, offType))
		if err != nil {
			return err
		}
		if val.Type().ID != fr.KeyType.ID {
			if val, err = expr.Cast(val, fr.KeyType); err != nil {
				return err
			}
		}
		bd.Value = val
	}
	return nil
}

// negativeOffset reports whether a RANGE offset is below zero (or NaN).
func negativeOffset(v types.Datum, t types.Type) bool {
	zero := expr.NewConst(int64(0), types.TInt32)
	z, err := expr.Cast(zero, t)
	if t.ID == types.IDInterval {
		z = expr.NewConst(types.Interval{}, t)
		err = nil
	}
	if err != nil {
		return false
	}
	zv, _ := z.Eval(nil)
	if f, ok := v.(float64); ok && f != f {
		return true
	}
	return expr.Compare(v, zv, t) < 0
}
