package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/sql"
)

// A window frame's EXCLUDE clause comes as a sql.FrameExcludeFunc marker
// leading its window's PARTITION BY. takeFrameExcludes, run on a SELECT
// before its windows bind, takes the markers out and records each
// exclusion by the frame it belongs to (b.frameExcludes), which
// bindFrame reads.

var frameExcludeModes = map[string]window.Exclusion{
	"current row": window.ExcludeCurrentRow, "group": window.ExcludeGroup, "ties": window.ExcludeTies,
}

// takeFrameExcludes removes the markers of the windows in n.
func (b *binder) takeFrameExcludes(n ast.Node) error {
	v := &frameExcludeTaker{b: b}
	n.Accept(v)
	return v.err
}

type frameExcludeTaker struct {
	b   *binder
	err error
}

func (v *frameExcludeTaker) Enter(n ast.Node) (ast.Node, bool) {
	spec, ok := n.(*ast.WindowSpec)
	if !ok || spec.PartitionBy == nil || len(spec.PartitionBy.Items) == 0 {
		return n, false
	}
	f, ok := spec.PartitionBy.Items[0].Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != sql.FrameExcludeFunc || len(f.Args) != 1 {
		return n, false
	}
	lit, _ := f.Args[0].(ast.ValueExpr)
	var mode string
	if lit != nil {
		mode, _ = lit.GetValue().(string)
	}
	if spec.Frame == nil || frameExcludeModes[mode] == 0 {
		v.err = pgerr.New(pgerr.SyntaxError, "syntax error at or near \"EXCLUDE\"")
		return n, true
	}
	if v.b.frameExcludes == nil {
		v.b.frameExcludes = map[*ast.FrameClause]window.Exclusion{}
	}
	v.b.frameExcludes[spec.Frame] = frameExcludeModes[mode]
	spec.PartitionBy.Items = spec.PartitionBy.Items[1:]
	if len(spec.PartitionBy.Items) == 0 {
		spec.PartitionBy = nil
	}
	return n, false
}

func (v *frameExcludeTaker) Leave(n ast.Node) (ast.Node, bool) { return n, v.err == nil }
