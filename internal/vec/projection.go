package vec

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Projection is a list of compiled value expressions, one per output
// column of a projection. An expression compiles on its own: the caller
// evaluates those that do not (Compiled is false) a row at a time, and
// merges the errors with ColumnError's rules.
type Projection struct {
	exprs []expr.Expr
	cols  []projCol
	ctx   evalCtx
	mem   memory.Allocator // nil: the default allocator
	// The expressions evaluated a row at a time: their indexes, types,
	// the input columns they read, and the builder of their columns.
	rowExprs []int
	rowTypes []types.Type
	reads    []int
	row, out []types.Datum
	b        *chunk.Builder
}

// projCol is one compiled expression.
type projCol struct {
	node  valueNode // nil: not compiled
	pass  int       // the input column the expression is, unchanged; -1 if none
	sink  expr.ErrorSink
	typ   types.Type
	atype arrow.DataType
}

// CompileProjection compiles each of exprs, value expressions over rows
// of the given column types. An expression may be guarded (expr.Guard);
// guarded expressions compile only when all of them do, so that their
// data errors reach the sinks in the row evaluator's order (row by row,
// column by column) whoever evaluates them.
//
// out are the types of the output columns (nil: the expressions' types);
// an expression whose type is held in another Arrow type than its
// column's is evaluated a row at a time, into a column of out's type.
func CompileProjection(exprs []expr.Expr, ts, out []types.Type) *Projection {
	p := &Projection{exprs: exprs, cols: make([]projCol, len(exprs))}
	c := compiler{types: ts}
	allGuarded := true
	for j, e := range exprs {
		col := &p.cols[j]
		col.pass, col.typ = -1, e.Type()
		if out != nil {
			col.typ = out[j]
		}
		col.atype = chunk.ArrowType(col.typ)
		if !arrow.TypeEqual(col.atype, chunk.ArrowType(e.Type())) {
			if _, ok := e.(*expr.Guarded); ok {
				allGuarded = false
			}
			continue
		}
		if g, ok := e.(*expr.Guarded); ok {
			if g.Sink == nil {
				allGuarded = false
				continue
			}
			e, col.sink = g.E, g.Sink
		}
		if x, ok := e.(*expr.Column); ok && x.Index >= 0 && x.Index < len(ts) &&
			arrow.TypeEqual(chunk.ArrowType(ts[x.Index]), col.atype) {
			col.pass = x.Index
			continue
		}
		if n, ok := c.value(e); ok {
			col.node = n
		} else if col.sink != nil {
			allGuarded = false
		}
	}
	if !allGuarded {
		for j := range p.cols {
			if p.cols[j].sink != nil && p.cols[j].pass < 0 {
				p.cols[j].node = nil
			}
		}
	}
	return p
}

// Compiled reports whether expression j is evaluated by Eval (a kernel,
// or a column passed through).
func (p *Projection) Compiled(j int) bool { return p.cols[j].node != nil || p.cols[j].pass >= 0 }

// Vectorized returns how many expressions have kernels (not counting
// columns passed through): for EXPLAIN-like reports and tests.
func (p *Projection) Vectorized() int {
	n := 0
	for _, c := range p.cols {
		if c.node != nil {
			n++
		}
	}
	return n
}

// ColumnError is the first error evaluating a column raised: on Row, in
// row order. A guarded column's data errors are not errors: Sinks holds
// them in row order, with their rows, for the caller to hand to the sink
// (in the row evaluator's order, and only those before the first error
// of the whole projection).
type ColumnError struct {
	Row int
	Err error
}

// GuardedError is a data error of a guarded column's row.
type GuardedError struct {
	Row  int
	Sink expr.ErrorSink
	Err  error
}

// Eval evaluates compiled expression j over c: the output column (owned
// by the caller; a column passed through is c's, retained), or the first
// error in row order (the array is then nil), and the data errors of a
// guarded expression in row order (up to the error). Buffers come from
// mem (nil: the default allocator). c stays owned by the caller.
func (p *Projection) Eval(c *chunk.Chunk, j int, mem memory.Allocator) (arrow.Array, []GuardedError, *ColumnError) {
	col := &p.cols[j]
	if col.pass >= 0 {
		a := c.Rec.Column(col.pass)
		a.Retain()
		return a, nil, nil
	}
	if mem == nil {
		mem = chunk.Allocator()
	}
	n := c.NumRows()
	p.ctx.reset(c)
	v := col.node.eval(&p.ctx)
	var guarded []GuardedError
	if len(v.errs) > 0 {
		rows := make([]int, 0, len(v.errs))
		for r := range v.errs {
			rows = append(rows, r)
		}
		slices.Sort(rows)
		for _, r := range rows {
			err := v.errs[r]
			if col.sink == nil || !expr.IsDataError(err) {
				return nil, guarded, &ColumnError{Row: r, Err: err}
			}
			guarded = append(guarded, GuardedError{Row: r, Sink: col.sink, Err: err})
		}
	}
	return toArray(mem, col.typ, v, n), guarded, nil
}

// Expr returns expression j as given.
func (p *Projection) Expr(j int) expr.Expr { return p.exprs[j] }

// Type returns the type of expression j.
func (p *Projection) Type(j int) types.Type { return p.cols[j].typ }

// SetAllocator makes the buffers of the columns Columns builds come from
// mem (the default allocator until then). Call it before the first
// chunk.
func (p *Projection) SetAllocator(mem memory.Allocator) {
	p.mem = mem
	if p.b != nil {
		p.b.Release()
		p.b = nil
	}
}

// Columns evaluates every expression over c's rows, those that did not
// compile a row at a time, and returns the output columns (the caller
// owns them). It fails with the error the row evaluator raises first,
// row by row and within a row column by column, and the index of the
// expression that raised it; the data errors of guarded expressions
// before that point reach their sinks in that order. c stays owned by
// the caller and must have rows.
func (p *Projection) Columns(c *chunk.Chunk) ([]arrow.Array, int, error) {
	n := c.NumRows()
	cols := make([]arrow.Array, len(p.cols))
	stop := ColumnError{Row: n}
	stopCol := len(p.cols)
	var guarded []guardedAt
	for j := range p.cols {
		if !p.Compiled(j) {
			continue
		}
		a, g, ce := p.Eval(c, j, p.mem)
		for _, e := range g {
			guarded = append(guarded, guardedAt{GuardedError: e, col: j})
		}
		if ce != nil && ce.Row < stop.Row {
			stop, stopCol = *ce, j
		}
		cols[j] = a
	}
	rowCols, err := p.rowColumns(c, &stop, &stopCol)
	slices.SortFunc(guarded, func(a, b guardedAt) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.col - b.col
	})
	for _, g := range guarded {
		if g.Row > stop.Row || (g.Row == stop.Row && g.col > stopCol) {
			break
		}
		g.Sink.EvalError(g.Err)
	}
	if err != nil || stop.Err != nil {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
		return nil, stopCol, stop.Err
	}
	if rowCols != nil {
		k := 0
		for j := range cols {
			if !p.Compiled(j) {
				cols[j] = rowCols.Rec.Column(k)
				cols[j].Retain()
				k++
			}
		}
		rowCols.Release()
	}
	return cols, -1, nil
}

// guardedAt is a guarded data error of column col.
type guardedAt struct {
	GuardedError
	col int
}

// rowColumns evaluates the expressions that did not compile a row at a
// time, up to the first error (stop, which it may move earlier): a chunk
// of their columns, nil when there are none or on an error.
func (p *Projection) rowColumns(c *chunk.Chunk, stop *ColumnError, stopCol *int) (*chunk.Chunk, error) {
	if p.rowExprs == nil {
		p.initRows(c.Types)
	}
	if len(p.rowExprs) == 0 {
		return nil, nil
	}
	if p.b == nil {
		mem := p.mem
		if mem == nil {
			mem = chunk.Allocator()
		}
		p.b = chunk.NewBuilderWith(mem, p.rowTypes)
	}
	if len(p.row) < len(c.Types) {
		p.row = make([]types.Datum, len(c.Types))
	}
	for i := 0; i < c.NumRows() && i <= stop.Row; i++ {
		for _, col := range p.reads {
			p.row[col] = chunk.Value(c.Rec.Column(col), c.Types[col], i)
		}
		for k, j := range p.rowExprs {
			if i == stop.Row && j > *stopCol {
				break
			}
			v, err := p.exprs[j].Eval(p.row)
			if err != nil {
				*stop, *stopCol = ColumnError{Row: i, Err: err}, j
				p.b.Build().Release()
				return nil, err
			}
			p.out[k] = v
		}
		if i == stop.Row {
			break
		}
		p.b.Append(chunk.Insert, p.out)
	}
	if stop.Err != nil {
		p.b.Build().Release()
		return nil, nil
	}
	return p.b.Build(), nil
}

// initRows lists the expressions evaluated a row at a time and the
// input columns they read.
func (p *Projection) initRows(ts []types.Type) {
	p.rowExprs = []int{}
	seen := map[int]bool{}
	for j := range p.cols {
		if p.Compiled(j) {
			continue
		}
		p.rowExprs = append(p.rowExprs, j)
		p.rowTypes = append(p.rowTypes, p.cols[j].typ)
		for _, i := range expr.Columns(p.exprs[j]) {
			if !seen[i] && i < len(ts) {
				seen[i] = true
				p.reads = append(p.reads, i)
			}
		}
	}
	p.out = make([]types.Datum, len(p.rowExprs))
}

// Close releases the builder of the row-evaluated columns.
func (p *Projection) Close() {
	if p.b != nil {
		p.b.Release()
		p.b = nil
	}
}
