package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// bindTableFunc binds the table function the front end replaced by the
// table name __sdb_tf_N. A function returning one column names it after
// the alias when there is one, as Postgres does.
func (b *binder) bindTableFunc(tn *ast.TableName, alias string) (*rel, error) {
	i, ok := tableFuncIndex(tn.Name.O)
	if !ok || i >= len(b.st.TableFuncs) {
		return nil, pgerr.New(pgerr.Internal, "binder: unknown table function marker %q", tn.Name.O)
	}
	tf := b.st.TableFuncs[i]
	if tf.Name != "generate_series" {
		err := pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", tf.Name)
		return nil, b.at(err, nil, tf.Name)
	}
	node, err := b.bindGenerateSeries(tf.Args)
	if err != nil {
		return nil, b.at(err, nil, tf.Name)
	}
	table := firstNonEmpty(alias, tf.Name)
	col := table
	switch {
	case len(tf.Columns) > 1:
		err := pgerr.New(pgerr.InvalidColumnReference, "table %q has 1 columns available but %d columns specified", table, len(tf.Columns))
		return nil, b.at(err, nil, tf.Columns[1])
	case len(tf.Columns) == 1:
		col = tf.Columns[0]
	}
	node.Cols = []planner.Column{{Name: col, Type: node.Cols[0].Type, Table: table}}
	return &rel{node: node, scope: scopeOf(node.Cols, table)}, nil
}

// bindGenerateSeries binds generate_series(start, stop[, step]) over
// integers, or timestamps with an interval step.
func (b *binder) bindGenerateSeries(args []ast.ExprNode) (*planner.GenerateSeries, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args))
	}
	bound, err := b.bindArgs(&exprCtx{scope: &scope{}, clause: "functions in FROM"}, args)
	if err != nil {
		return nil, err
	}
	if len(bound) == 3 && bound[2].Type().ID == types.IDInterval {
		return b.timestampSeries(bound)
	}
	return b.integerSeries(bound)
}

func (b *binder) integerSeries(args []expr.Expr) (*planner.GenerateSeries, error) {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
		if ts[i].ID == types.IDUnknown {
			ts[i] = types.TInt32
		}
	}
	t, err := expr.CommonType(ts)
	if err != nil {
		return nil, err
	}
	if !t.IsInteger() {
		return nil, notSupported("generate_series(%s, ...)", t)
	}
	if t.ID == types.IDInt16 {
		t = types.TInt32
	}
	out := make([]expr.Expr, 3)
	out[2] = expr.NewConst(int64(1), t)
	for i, a := range args {
		if a, err = b.decideParam(a, t); err != nil {
			return nil, err
		}
		if out[i], err = castTo(a, t); err != nil {
			return nil, err
		}
	}
	return &planner.GenerateSeries{Start: out[0], Stop: out[1], Step: out[2], Cols: []planner.Column{{Type: t}}}, nil
}

func (b *binder) timestampSeries(args []expr.Expr) (*planner.GenerateSeries, error) {
	t := types.TTimestampTZ
	if args[0].Type().ID == types.IDTimestamp || args[1].Type().ID == types.IDTimestamp {
		t = types.TTimestamp
	}
	out := make([]expr.Expr, 2)
	for i := range out {
		a, err := b.decideParam(args[i], t)
		if err != nil {
			return nil, err
		}
		if out[i], err = castTo(a, t); err != nil {
			return nil, err
		}
	}
	return &planner.GenerateSeries{Start: out[0], Stop: out[1], Step: args[2], Cols: []planner.Column{{Type: t}}}, nil
}
