package binder

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// bindLiteral types a literal as Postgres does: an integer is integer if
// it fits, else bigint, else numeric; a decimal or exponent literal is
// numeric; a string or NULL is unknown (its context decides); TRUE/FALSE
// are boolean.
func bindLiteral(v ast.ValueExpr) (*expr.Const, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return expr.NewConst(nil, types.TUnknown), nil
	case bool:
		return expr.NewConst(x, types.TBool), nil
	case int64:
		return intLiteral(v, x), nil
	case int:
		return intLiteral(v, int64(x)), nil
	case uint64:
		return numericLiteral(strconv.FormatUint(x, 10))
	case float64:
		return numericLiteral(strconv.FormatFloat(x, 'g', -1, 64))
	case float32:
		return numericLiteral(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case string:
		return expr.NewConst(x, types.TUnknown), nil
	case []byte:
		return expr.NewConst(string(x), types.TUnknown), nil
	case *apd.Decimal:
		return expr.NewConst(x, types.TNumeric), nil
	case fmt.Stringer: // the driver's decimal type
		return numericLiteral(x.String())
	case interface{ ToString() string }: // X'..' and B'..' literals
		return expr.NewConst(x.ToString(), types.TUnknown), nil
	}
	return nil, notSupported("literal %T", v.GetValue())
}

func intLiteral(v ast.ValueExpr, x int64) *expr.Const {
	if ft := v.GetType(); ft != nil && ft.GetFlag()&mysql.IsBooleanFlag != 0 {
		return expr.NewConst(x != 0, types.TBool)
	}
	if x >= math.MinInt32 && x <= math.MaxInt32 {
		return expr.NewConst(x, types.TInt32)
	}
	return expr.NewConst(x, types.TInt64)
}

func numericLiteral(s string) (*expr.Const, error) {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type numeric: %q", s)
	}
	return expr.NewConst(d, types.TNumeric), nil
}

// negateLiteral folds -c for a numeric constant c, retyping an integer as
// Postgres's lexer would (-2147483648 is an integer).
func negateLiteral(c *expr.Const) (*expr.Const, bool) {
	switch x := c.Value.(type) {
	case int64:
		if c.Typ.ID == types.IDInt64 && x == -math.MinInt32 {
			return expr.NewConst(int64(math.MinInt32), types.TInt32), true
		}
		if x == math.MinInt64 {
			return nil, false
		}
		return expr.NewConst(-x, c.Typ), true
	case *apd.Decimal:
		if c.Typ.ID != types.IDNumeric {
			return nil, false
		}
		d := new(apd.Decimal).Neg(x)
		if d.Cmp(apd.New(math.MaxInt64, 0)) <= 0 && d.Cmp(apd.New(math.MinInt64, 0)) >= 0 && d.Exponent == 0 {
			// -9223372036854775808 is a bigint.
			if i, err := d.Int64(); err == nil && i == math.MinInt64 {
				return expr.NewConst(i, types.TInt64), true
			}
		}
		return expr.NewConst(d, types.TNumeric), true
	}
	return nil, false
}

// bindParam binds $N (order N-1).
func (b *binder) bindParam(order int) (*expr.Const, error) {
	if order < 0 || order >= len(b.params) {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", order+1)
	}
	var v types.Datum
	if order < len(b.values) {
		v = b.values[order]
	}
	t := b.params[order]
	if s, ok := v.(string); ok && t.ID != types.IDUnknown && !t.IsString() && !decodedDatum(s, t) {
		d, err := types.ParseIn(s, t, b.zone) // a value sent before its type was decided
		if err != nil {
			return nil, err
		}
		v = d
	}
	c := expr.NewConst(v, t)
	if t.ID == types.IDUnknown {
		b.unknownParams[c] = order
	}
	return c, nil
}

// decodedDatum reports whether s, a parameter's string value of type t,
// is already t's Datum, not its text: a bytea's bytes, a uuid's 16 bytes
// (its text is never 16 bytes long), an inet's bytes (which start with
// its family, 2 or 3, as no text does). Such a value must not be read
// again.
func decodedDatum(s string, t types.Type) bool {
	switch t.ID {
	case types.IDBytea:
		return true
	case types.IDUUID:
		return len(s) == 16
	case types.IDInet, types.IDCidr:
		return s != "" && (s[0] == 2 || s[0] == 3)
	}
	return false
}

// decideParam gives e, when it is a parameter of still unknown type, the
// type t, returning the retyped constant; any other e is returned as is.
func (b *binder) decideParam(e expr.Expr, t types.Type) (expr.Expr, error) {
	c, ok := e.(*expr.Const)
	if !ok || t.ID == types.IDUnknown {
		return e, nil
	}
	order, ok := b.unknownParams[c]
	if !ok {
		return e, nil
	}
	v := c.Value
	if s, isStr := v.(string); isStr {
		d, err := types.ParseIn(s, t, b.zone)
		if err != nil {
			return nil, err
		}
		v = d
	}
	b.params[order] = t
	nc := expr.NewConst(v, t)
	return nc, nil
}

// decidePair decides an unknown parameter on one side of a binary operator
// from the other side's type.
func (b *binder) decidePair(l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	l, err := b.decideParam(l, r.Type())
	if err != nil {
		return nil, nil, err
	}
	r, err = b.decideParam(r, l.Type())
	return l, r, err
}
