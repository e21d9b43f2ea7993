package expr

// TEMPORARY: placeholders so the tree compiles while the real
// implementations are written. The expr work replaces this file.

import (
	"errors"

	"github.com/streamdb/streamdb/internal/types"
)

var errTODO = errors.New("expr: not implemented yet")

func binary(op string, l, r Expr) (Expr, error)                                   { return nil, errTODO }
func unary(op string, e Expr) (Expr, error)                                       { return nil, errTODO }
func isNull(e Expr, not bool) Expr                                                { panic(errTODO) }
func isBool(e Expr, val, not bool) (Expr, error)                                  { return nil, errTODO }
func cast(e Expr, t types.Type, assign bool) (Expr, error)                        { return nil, errTODO }
func function(name string, args []Expr) (Expr, error)                             { return nil, errTODO }
func caseExpr(operand Expr, whens, thens []Expr, els Expr) (Expr, error)          { return nil, errTODO }
func in(e Expr, list []Expr, not bool) (Expr, error)                              { return nil, errTODO }
func commonType(ts []types.Type) (types.Type, error)                              { return types.TUnknown, errTODO }
func compare(a, b types.Datum, t types.Type) int                                  { panic(errTODO) }
func aggResultType(k AggKind, arg types.Type) (types.Type, error)                 { return arg, errTODO }
func accType(arg types.Type) types.Type                                           { return arg }
func (st *SumState) accumulate(v types.Datum, arg types.Type, retract bool) error { return errTODO }
func (st *SumState) result(avg bool, result types.Type) (types.Datum, error)      { return nil, errTODO }
