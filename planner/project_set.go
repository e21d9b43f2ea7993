package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ProjectSet runs set-returning functions over each row of Input, in
// lockstep as PostgreSQL 10 and later do: the row is repeated once per
// row of the longest result (none: the row yields nothing), followed by
// each function's columns (NULL past a shorter one's end) and the
// ordinal (1, 2, ...; hidden). Each of Funcs is a *GenerateSeries or an
// *Unnest whose arguments are over the input row. It is SELECT id,
// generate_series(1, n), unnest(a) FROM t, and FROM t, unnest(t.arr): a
// lateral table function.
type ProjectSet struct {
	Input Node
	Funcs []Node
	Cols  []Column
	// Cond, when set, keeps only the rows for which it holds (over the
	// input row, the functions' columns and the ordinal); Outer then
	// yields the row once, with NULL functions' columns and ordinal, when
	// none is kept: LEFT JOIN LATERAL fn ON cond.
	Cond  expr.Expr
	Outer bool
}

// NewProjectSet returns fns over in's rows: its columns are in's, each
// function's and the hidden ordinal.
func NewProjectSet(in Node, fns ...Node) *ProjectSet {
	cols := slices.Clone(in.Columns())
	for _, fn := range fns {
		cols = append(cols, fn.Columns()...)
	}
	cols = append(cols, Column{Name: "ordinality", Type: types.TInt64, Hidden: true})
	return &ProjectSet{Input: in, Funcs: fns, Cols: cols}
}

// Columns implements Node.
func (n *ProjectSet) Columns() []Column { return n.Cols }

// Inputs implements Node.
func (n *ProjectSet) Inputs() []Node { return []Node{n.Input} }

// funcArgs returns the functions' arguments, over the input row.
func (n *ProjectSet) funcArgs() []expr.Expr {
	var args []expr.Expr
	for _, f := range n.Funcs {
		args = append(args, setFuncArgs(f)...)
	}
	return args
}

// setFuncArgs returns a set-returning function's arguments.
func setFuncArgs(f Node) []expr.Expr {
	switch f := f.(type) {
	case *GenerateSeries:
		return []expr.Expr{f.Start, f.Stop, f.Step}
	case *Unnest:
		return f.args()
	}
	return nil
}

// setFuncName returns a set-returning function's name.
func setFuncName(f Node) string {
	if u, ok := f.(*Unnest); ok {
		return u.name()
	}
	return "generate_series"
}

// Expander returns a function giving the rows the set-returning
// functions yield together for one input row: each function's columns,
// then the ordinal.
func (n *ProjectSet) Expander() func(ctx context.Context, row []types.Datum) ([][]types.Datum, error) {
	width := len(n.Cols) - len(n.Input.Columns())
	return func(ctx context.Context, row []types.Datum) ([][]types.Datum, error) {
		sets := make([][][]types.Datum, len(n.Funcs))
		longest := 0
		for i, f := range n.Funcs {
			rows, err := setFuncRows(ctx, f, row)
			if err != nil {
				return nil, err
			}
			sets[i], longest = rows, max(longest, len(rows))
		}
		out := make([][]types.Datum, longest)
		flat := make([]types.Datum, longest*width)
		for k := range out {
			r := flat[k*width : (k+1)*width : (k+1)*width]
			p := 0
			for i, f := range n.Funcs {
				if k < len(sets[i]) {
					copy(r[p:], sets[i][k])
				}
				p += len(f.Columns())
			}
			r[p] = int64(k + 1)
			out[k] = r
		}
		return n.keep(row, out)
	}
}

// setFuncRows runs the set-returning function f over one input row.
func setFuncRows(ctx context.Context, f Node, row []types.Datum) ([][]types.Datum, error) {
	args := setFuncArgs(f)
	vals := make([]types.Datum, len(args))
	consts := make([]expr.Expr, len(args))
	for i, a := range args {
		v, err := a.Eval(row)
		if err != nil {
			return nil, err
		}
		vals[i], consts[i] = v, expr.NewConst(v, a.Type())
	}
	var ex batch.Executor
	switch f := f.(type) {
	case *GenerateSeries:
		ex = batch.NewGenerateSeries(consts[0], consts[1], consts[2], f.Cols[0].Type).InZone(f.Zone)
	case *Unnest:
		if f.Set != nil {
			rows, err := f.Set.Fn(vals)
			if err == nil && len(rows) > maxSetRows {
				err = errTooManySetRows
			}
			return rows, err
		}
		ex = batch.NewUnnest(consts[0], f.Cols[0].Type)
	default:
		return nil, pgerr.New(pgerr.Internal, "planner: %T is not a set-returning function", f)
	}
	defer ex.Close()
	return drainRows(ctx, ex)
}

// drainRows reads the rows of ex.
func drainRows(ctx context.Context, ex batch.Executor) ([][]types.Datum, error) {
	var out [][]types.Datum
	w := len(ex.Types())
	for {
		c, err := ex.Next(ctx)
		if err != nil || c == nil {
			return out, err
		}
		flat := make([]types.Datum, c.NumRows()*w)
		for i := 0; i < c.NumRows(); i++ {
			out = append(out, c.Row(i, flat[i*w:(i+1)*w:(i+1)*w]))
		}
		c.Release()
		if len(out) > maxSetRows {
			return nil, errTooManySetRows
		}
	}
}

// StreamExpander is Expander for a view's actor: a row whose arguments
// fail with a data error (or that yields more than maxSetRows rows)
// yields none, as a NULL argument would, and the error goes to sink (see
// expr.Guard).
func (n *ProjectSet) StreamExpander(sink expr.ErrorSink) func(ctx context.Context, row []types.Datum) ([][]types.Datum, error) {
	expand := n.Expander()
	if sink == nil {
		return expand
	}
	return func(ctx context.Context, row []types.Datum) ([][]types.Datum, error) {
		rows, err := expand(ctx, row)
		if err != nil && (expr.IsDataError(err) || err == errTooManySetRows) {
			sink.EvalError(err)
			return n.keep(row, nil)
		}
		return rows, err
	}
}

// keep applies Cond and Outer to the rows of one input row. The ordinals
// stay the functions' own (PostgreSQL numbers the rows before the join
// condition); the NULL-padded row's is NULL.
func (n *ProjectSet) keep(row []types.Datum, rows [][]types.Datum) ([][]types.Datum, error) {
	if n.Cond != nil {
		r := slices.Clone(row)
		kept := rows[:0]
		for _, v := range rows {
			r = append(r[:len(row)], v...)
			ok, err := n.Cond.Eval(r)
			if err != nil {
				return nil, err
			}
			if ok == true {
				kept = append(kept, v)
			}
		}
		rows = kept
	}
	if n.Outer && len(rows) == 0 {
		rows = [][]types.Datum{make([]types.Datum, len(n.Cols)-len(n.Input.Columns()))}
	}
	return rows, nil
}

// describeProjectSet is EXPLAIN's line: ProjectSet: unnest(a), ...,
// then whether it pads a row that yields nothing (a LEFT JOIN LATERAL)
// and its condition.
func describeProjectSet(n *ProjectSet) string {
	calls := make([]string, len(n.Funcs))
	for i, f := range n.Funcs {
		args := setFuncArgs(f)
		strs := make([]string, len(args))
		for j, a := range args {
			strs[j] = a.String()
		}
		calls[i] = setFuncName(f) + "(" + strings.Join(strs, ", ") + ")"
	}
	s := "ProjectSet: " + strings.Join(calls, ", ")
	if n.Outer {
		s += " (left join)"
	}
	if n.Cond != nil {
		s += " filter " + n.Cond.String()
	}
	return s
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
	ps := &ProjectSet{Input: in, Funcs: n.Funcs, Outer: n.Outer,
		Cols: append(slices.Clone(in.Columns()), n.Cols[nin:]...)}
	if n.Cond != nil {
		// The functions' columns and the ordinal move past the added
		// columns.
		ps.Cond = expr.Remap(n.Cond, func(c int) int {
			if c >= nin {
				return c + added
			}
			return c
		})
	}
	key = append(slices.Clone(key), len(ps.Cols)-1) // the ordinal
	if added == 0 {
		return ps, key, nil
	}
	// The input gained hidden key columns: they go after the functions'
	// columns and the ordinal, which keep their positions.
	p, outKey := resultsBeforeAdded(ps, nin, added, key)
	return p, outKey, nil
}
