package expr

import "github.com/streamdb/streamdb/internal/types"

// Watermarks (a table's WATERMARK FOR ts) bound the columns computed from
// the watermark column only through expressions that never decrease as it
// grows: the planner maps a watermark through them (TUMBLE's window_start
// is tumble_start(ts, size), HOP's the same minus whole slides).

// NonDecreasing reports whether e reads column col and constants only and
// never decreases as col grows: col itself, col plus or minus a constant,
// tumble_start(col, size), date_trunc(unit, col), and integer widening
// or timestamp-to-date casts of those.
func NonDecreasing(e Expr, col int) bool {
	switch e := e.(type) {
	case *Column:
		return e.Index == col
	case *Const:
		return true
	case *castExpr:
		from, to := e.e.Type(), e.to
		ok := from.IsInteger() && to.IsInteger() && intWidth(to.ID) >= intWidth(from.ID) ||
			from.ID == types.IDTimestamp && to.ID == types.IDDate
		return ok && NonDecreasing(e.e, col)
	case *call:
		a := e.args
		switch {
		case e.name == "+" && len(a) == 2:
			return isConst(a[1]) && NonDecreasing(a[0], col) || isConst(a[0]) && NonDecreasing(a[1], col)
		case e.name == "-" && len(a) == 2, e.name == "tumble_start" && len(a) == 2:
			return isConst(a[1]) && NonDecreasing(a[0], col)
		case e.name == "date_trunc" && len(a) == 2:
			return isConst(a[0]) && NonDecreasing(a[1], col)
		}
	}
	return false
}

func isConst(e Expr) bool {
	_, ok := e.(*Const)
	return ok
}

// intWidth orders the integer types by range.
func intWidth(id types.ID) int {
	switch id {
	case types.IDInt16:
		return 2
	case types.IDInt32:
		return 4
	}
	return 8
}

// Substitute returns e with every reference to column col replaced by
// with (of the column's type).
func Substitute(e Expr, col int, with Expr) Expr {
	if c, ok := e.(*Column); ok && c.Index == col {
		return with
	}
	return mapChildren(e, func(c Expr) Expr { return Substitute(c, col, with) })
}
