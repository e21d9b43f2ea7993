package literal

import "github.com/pingcap/tidb/pkg/parser/ast"

func init() {
	ast.NewValueExpr = func(value any, _, _ string) ast.ValueExpr {
		if v, ok := value.(*ValueExpr); ok {
			return v
		}
		return NewValueExpr(value)
	}
	ast.NewParamMarkerExpr = func(offset int) ast.ParamMarkerExpr {
		return NewParamMarkerExpr(offset)
	}
	ast.NewDecimal = func(s string) (any, error) { return ParseDecimal(s) }
	ast.NewHexLiteral = func(s string) (any, error) { return ParseHex(s) }
	ast.NewBitLiteral = func(s string) (any, error) { return ParseBit(s) }
}
