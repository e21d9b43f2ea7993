package planner

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ProjectSet runs a set-returning function over each row of Input: the
// row is repeated once per value the function yields (none: the row
// yields nothing), followed by the value and its ordinal (1, 2, ...;
// hidden). Func is a *GenerateSeries or an *Unnest whose arguments are
// over the input row. It is SELECT id, generate_series(1, n) FROM t,
// and FROM t, unnest(t.arr): a lateral table function.
type ProjectSet struct {
	Input Node
	Func  Node
	Cols  []Column
	// Cond, when set, keeps only the values for which it holds (over
	// the input row, the value and its ordinal); Outer then yields the
	// row once, with a NULL value, when none is kept: LEFT JOIN LATERAL
	// fn ON cond.
	Cond  expr.Expr
	Outer bool
}

// NewProjectSet returns fn over in's rows, its value column named name.
func NewProjectSet(in, fn Node, name, table string) *ProjectSet {
	cols := slices.Clone(in.Columns())
	cols = append(cols, Column{Name: name, Type: fn.Columns()[0].Type, Table: table},
		Column{Name: "ordinality", Type: types.TInt64, Hidden: true})
	return &ProjectSet{Input: in, Func: fn, Cols: cols}
}

// Columns implements Node.
func (n *ProjectSet) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *ProjectSet) Inputs() []Node { return []Node{n.Input} }

// funcArgs returns the function's arguments, over the input row.
func (n *ProjectSet) funcArgs() []expr.Expr {
	switch f := n.Func.(type) {
	case *GenerateSeries:
		return []expr.Expr{f.Start, f.Stop, f.Step}
	case *Unnest:
		return f.args()
	}
	return nil
}

// Expander returns a function giving the values the set-returning
// function yields for one input row.
func (n *ProjectSet) Expander() func(ctx context.Context, row []types.Datum) ([]types.Datum, error) {
	args := n.funcArgs()
	typ := n.Func.Columns()[0].Type
	return func(ctx context.Context, row []types.Datum) ([]types.Datum, error) {
		vals := make([]expr.Expr, len(args))
		for i, a := range args {
			v, err := a.Eval(row)
			if err != nil {
				return nil, err
			}
			vals[i] = expr.NewConst(v, a.Type())
		}
		var ex batch.Executor
		switch f := n.Func.(type) {
		case *GenerateSeries:
			ex = batch.NewGenerateSeries(vals[0], vals[1], vals[2], typ)
		case *Unnest:
			if f.Set != nil {
				ex = batch.NewSetFunc(vals, f.Set.Fn, typ)
			} else {
				ex = batch.NewUnnest(vals[0], typ)
			}
		}
		defer ex.Close()
		var out []types.Datum
		var buf []types.Datum
		for {
			c, err := ex.Next(ctx)
			if err != nil || c == nil {
				if err == nil {
					out, err = n.keep(row, out)
				}
				return out, err
			}
			for i := 0; i < c.NumRows(); i++ {
				buf = c.Row(i, buf)
				out = append(out, buf[0])
			}
			c.Release()
			if len(out) > maxSetRows {
				return nil, errTooManySetRows
			}
		}
	}
}

// StreamExpander is Expander for a view's actor: a row whose arguments
// fail with a data error (or that yields more than maxSetRows values)
// yields no values, as a NULL argument would, and the error goes to
// sink (see expr.Guard).
func (n *ProjectSet) StreamExpander(sink expr.ErrorSink) func(ctx context.Context, row []types.Datum) ([]types.Datum, error) {
	expand := n.Expander()
	if sink == nil {
		return expand
	}
	return func(ctx context.Context, row []types.Datum) ([]types.Datum, error) {
		vals, err := expand(ctx, row)
		if err != nil && (expr.IsDataError(err) || err == errTooManySetRows) {
			sink.EvalError(err)
			return n.keep(row, nil)
		}
		return vals, err
	}
}

// keep applies Cond and Outer to the values of one input row.
func (n *ProjectSet) keep(row, vals []types.Datum) ([]types.Datum, error) {
	if n.Cond != nil {
		r := append(append([]types.Datum(nil), row...), nil, nil)
		kept := vals[:0]
		for i, v := range vals {
			r[len(row)], r[len(row)+1] = v, int64(i+1)
			ok, err := n.Cond.Eval(r)
			if err != nil {
				return nil, err
			}
			if ok == true {
				kept = append(kept, v)
			}
		}
		vals = kept
	}
	if n.Outer && len(vals) == 0 {
		vals = []types.Datum{nil}
	}
	return vals, nil
}

func buildProjectSet(n *ProjectSet, src batch.Source) (batch.Executor, error) {
	in, err := BuildBatch(n.Input, src)
	if err != nil {
		return nil, err
	}
	return batch.NewProjectSet(in, n.Expander(), batchColumnTypes(n.Cols)), nil
}

// maxSetRows bounds the values one row's set-returning function may
// yield (they are held in memory).
const maxSetRows = 1 << 24

var errTooManySetRows = pgerr.New(pgerr.ProgramLimitExceeded, "a set-returning function yielded more than %d rows for one row", maxSetRows)

// projectSetWithKey gives a ProjectSet its stream key: its input's and
// the ordinal.
func projectSetWithKey(n *ProjectSet) (Node, []int, error) {
	for _, a := range n.funcArgs() {
		if expr.IsVolatile(a) {
			// A deleted row must expand as it did when inserted.
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "a set-returning function over a volatile function (random) is not supported in a materialized view")
		}
	}
	in, key, err := withStreamKey(n.Input)
	if err != nil {
		return nil, nil, err
	}
	nin := len(n.Input.Columns())
	added := len(in.Columns()) - nin
	ps := &ProjectSet{Input: in, Func: n.Func, Outer: n.Outer,
		Cols: append(slices.Clone(in.Columns()), n.Cols[nin:]...)}
	if n.Cond != nil {
		// The value and the ordinal move past the added columns.
		ps.Cond = expr.Remap(n.Cond, func(c int) int {
			if c >= nin {
				return c + added
			}
			return c
		})
	}
	key = append(slices.Clone(key), len(in.Columns())+1)
	if added == 0 {
		return ps, key, nil
	}
	// The input gained hidden key columns: they go after the value and
	// the ordinal, which keep their positions.
	p, outKey := resultsBeforeAdded(ps, nin, added, key)
	return p, outKey, nil
}
