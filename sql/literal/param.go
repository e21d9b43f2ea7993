package literal

import (
	"io"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// ParamMarkerExpr is a '?' placeholder. Offset is the byte offset of the '?'
// in the text the TiDB parser read (the rewritten text, not the user's);
// Order is the zero-based parameter index ($N has Order N-1).
type ParamMarkerExpr struct {
	ValueExpr
	Offset int
	Order  int
}

var _ ast.ParamMarkerExpr = (*ParamMarkerExpr)(nil)

// NewParamMarkerExpr returns a placeholder at offset; its Order is set later.
func NewParamMarkerExpr(offset int) *ParamMarkerExpr {
	p := &ParamMarkerExpr{Offset: offset}
	p.projectionOffset = -1
	p.SetValue(nil)
	return p
}

// SetOrder implements ast.ParamMarkerExpr.
func (p *ParamMarkerExpr) SetOrder(order int) { p.Order = order }

// Restore implements ast.Node.
func (p *ParamMarkerExpr) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlain("?")
	return nil
}

// Format implements ast.ExprNode.
func (p *ParamMarkerExpr) Format(w io.Writer) { _, _ = io.WriteString(w, "?") }

// Accept implements ast.Node.
func (p *ParamMarkerExpr) Accept(visitor ast.Visitor) (ast.Node, bool) {
	n, skip := visitor.Enter(p)
	if skip {
		return visitor.Leave(n)
	}
	return visitor.Leave(n)
}
