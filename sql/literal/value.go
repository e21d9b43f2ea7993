package literal

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/charset"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/types"
)

// Kind is the kind of literal a ValueExpr holds.
type Kind uint8

// Literal kinds; see the package comment for the Go type of each.
const (
	KindNull Kind = iota
	KindBool
	KindInt64
	KindUint64
	KindDecimal
	KindFloat64
	KindString
	KindBytes
)

var kindNames = [...]string{"null", "bool", "int64", "uint64", "decimal", "float64", "string", "bytes"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ValueExpr is a literal in the TiDB AST.
type ValueExpr struct {
	ast.TexprNode
	kind             Kind
	val              any
	projectionOffset int
}

var _ ast.ValueExpr = (*ValueExpr)(nil)

// NewValueExpr returns a literal holding value, which must be one of the Go
// types listed in the package comment (int and float32 are widened; any
// other type panics, as it means the parser produced a literal this driver
// does not know).
func NewValueExpr(value any) *ValueExpr {
	v := &ValueExpr{projectionOffset: -1}
	v.SetValue(value)
	return v
}

// Kind returns the kind of the literal.
func (v *ValueExpr) Kind() Kind { return v.kind }

// Value returns the literal's Go value (see the package comment).
func (v *ValueExpr) Value() any { return v.val }

// GetValue implements ast.ValueExpr; it is Value.
func (v *ValueExpr) GetValue() any { return v.val }

// SetValue implements ast.ValueExpr.
func (v *ValueExpr) SetValue(value any) {
	v.kind, v.val = classify(value)
	v.Type = *fieldTypeFor(v.kind)
}

func classify(value any) (Kind, any) {
	switch x := value.(type) {
	case nil:
		return KindNull, nil
	case bool:
		return KindBool, x
	case int:
		return KindInt64, int64(x)
	case int64:
		return KindInt64, x
	case uint64:
		return KindUint64, x
	case Decimal:
		return KindDecimal, x
	case float32:
		return KindFloat64, float64(x)
	case float64:
		return KindFloat64, x
	case string:
		return KindString, x
	case BinaryLiteral:
		return KindBytes, x
	case []byte:
		return KindBytes, BinaryLiteral(x)
	}
	panic(fmt.Sprintf("literal: unexpected literal value %T", value))
}

func fieldTypeFor(k Kind) *types.FieldType {
	var tp *types.FieldType
	switch k {
	case KindNull:
		tp = types.NewFieldType(mysql.TypeNull)
	case KindBool:
		tp = types.NewFieldType(mysql.TypeLonglong)
		tp.AddFlag(mysql.IsBooleanFlag)
	case KindInt64:
		tp = types.NewFieldType(mysql.TypeLonglong)
	case KindUint64:
		tp = types.NewFieldType(mysql.TypeLonglong)
		tp.AddFlag(mysql.UnsignedFlag)
	case KindDecimal:
		tp = types.NewFieldType(mysql.TypeNewDecimal)
	case KindFloat64:
		tp = types.NewFieldType(mysql.TypeDouble)
	case KindString:
		tp = types.NewFieldType(mysql.TypeVarString)
		tp.SetCharset(mysql.DefaultCharset)
		tp.SetCollate(mysql.DefaultCollationName)
		return tp
	default:
		tp = types.NewFieldType(mysql.TypeVarString)
	}
	tp.SetCharset(charset.CharsetBin)
	tp.SetCollate(charset.CollationBin)
	return tp
}

// GetString implements ast.ValueExpr: the string value, or the literal's
// text for the other kinds ("" for NULL).
func (v *ValueExpr) GetString() string {
	switch x := v.val.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case Decimal:
		return string(x)
	case BinaryLiteral:
		return x.ToString()
	}
	return ""
}

// GetDatumString implements ast.ValueExpr.
func (v *ValueExpr) GetDatumString() string { return v.GetString() }

// GetProjectionOffset implements ast.ValueExpr.
func (v *ValueExpr) GetProjectionOffset() int { return v.projectionOffset }

// SetProjectionOffset implements ast.ValueExpr.
func (v *ValueExpr) SetProjectionOffset(offset int) { v.projectionOffset = offset }

// Restore implements ast.Node: it writes the literal as SQL text.
func (v *ValueExpr) Restore(ctx *format.RestoreCtx) error {
	switch x := v.val.(type) {
	case nil:
		ctx.WriteKeyWord("NULL")
	case bool:
		if x {
			ctx.WriteKeyWord("TRUE")
		} else {
			ctx.WriteKeyWord("FALSE")
		}
	case string:
		ctx.WriteString(x)
	case BinaryLiteral:
		ctx.WritePlainf("X'%x'", []byte(x))
	default:
		ctx.WritePlain(v.GetString())
	}
	return nil
}

// Format implements ast.ExprNode.
func (v *ValueExpr) Format(w io.Writer) {
	switch x := v.val.(type) {
	case nil:
		fmt.Fprint(w, "NULL")
	case string:
		fmt.Fprint(w, strconv.Quote(x))
	case bool:
		if x {
			fmt.Fprint(w, "TRUE")
		} else {
			fmt.Fprint(w, "FALSE")
		}
	case BinaryLiteral:
		fmt.Fprintf(w, "X'%x'", []byte(x))
	default:
		fmt.Fprint(w, v.GetString())
	}
}

// Accept implements ast.Node.
func (v *ValueExpr) Accept(visitor ast.Visitor) (ast.Node, bool) {
	n, skip := visitor.Enter(v)
	if skip {
		return visitor.Leave(n)
	}
	return visitor.Leave(n)
}
