package stream

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/vec"
)

// Expand emits, for every input row, one row per projection, with the
// row's op (HOP windows: one row per window). The rows an update pair
// expands to are not adjacent pairs, so UpdateDelete and UpdateInsert
// become Delete and Insert. Barriers pass through; it keeps no state.
//
// The output is row-major, as a row-at-a-time expansion emits it: input
// row i's projection k is output row i*P+k (P projections). The order
// matters: an output key (the input's key and the branch column) can
// come from two input rows of one chunk (a HOP window a row's old and
// new time both fall in), and its delete must stay before its insert.
//
// A chunk is evaluated a column at a time: each projection list is a
// vec.Projection, compiled once, whose kernels compute a column over all
// the chunk's rows; the expressions without kernels are evaluated a row
// at a time over the input columns they read. The columns are then
// interleaved into the row-major output, and an input column every
// projection passes through at the same position is repeated (with one
// projection, shared). Values, the first error (row by row, then
// projection by projection, then column by column) and the data errors
// of guarded expressions, handed to their sinks in that order up to the
// first error, are the row evaluator's.
type Expand struct {
	in     Executor
	projs  [][]expr.Expr
	typs   []types.Type
	schema *arrow.Schema
	vecs   []*vec.Projection
	mem    memory.Allocator
	// repeat[j] is the input column that output column j is in every
	// projection, or -1.
	repeat []int
	// rowCols[k] are the columns of projection k evaluated a row at a
	// time, b[k] builds them; reads are the input columns they read.
	rowCols [][]int
	rowTyps [][]types.Type
	b       []*chunk.Builder
	reads   []int
	row     []types.Datum
	out     [][]types.Datum
}

// NewExpand returns an Expand over in; typs are the output types.
func NewExpand(in Executor, projs [][]expr.Expr, typs []types.Type) *Expand {
	e := &Expand{in: in, projs: projs, typs: typs, schema: chunk.Schema(typs), mem: chunk.Allocator()}
	inTyps := in.Types()
	e.repeat = make([]int, len(typs))
	for j := range typs {
		e.repeat[j] = repeatedColumn(projs, j, inTyps, typs[j])
	}
	seen := map[int]bool{}
	for _, p := range projs {
		vp := vec.CompileProjection(p, inTyps, typs)
		e.vecs = append(e.vecs, vp)
		var rc []int
		var rt []types.Type
		for j, x := range p {
			if e.repeat[j] >= 0 || vp.Compiled(j) {
				continue
			}
			rc, rt = append(rc, j), append(rt, typs[j])
			for _, i := range expr.Columns(x) {
				if !seen[i] && i < len(inTyps) {
					seen[i] = true
					e.reads = append(e.reads, i)
				}
			}
		}
		e.rowCols, e.rowTyps = append(e.rowCols, rc), append(e.rowTyps, rt)
		e.b = append(e.b, chunk.NewBuilder(rt))
		e.out = append(e.out, make([]types.Datum, len(rc)))
	}
	e.row = make([]types.Datum, len(inTyps))
	return e
}

// repeatedColumn is the input column that output column j is in every
// projection, held in the output's Arrow type, or -1.
func repeatedColumn(projs [][]expr.Expr, j int, inTyps []types.Type, t types.Type) int {
	idx := -1
	for _, p := range projs {
		c, ok := p[j].(*expr.Column)
		if !ok || c.Index < 0 || c.Index >= len(inTyps) || (idx >= 0 && c.Index != idx) ||
			!arrow.TypeEqual(chunk.ArrowType(inTyps[c.Index]), chunk.ArrowType(t)) {
			return -1
		}
		idx = c.Index
	}
	return idx
}

// setAllocator makes the buffers of the columns the kernels and the row
// evaluator build come from mem (tests: a memory.CheckedAllocator).
func (e *Expand) setAllocator(mem memory.Allocator) {
	e.mem = mem
	for k, b := range e.b {
		b.Release()
		e.b[k] = chunk.NewBuilderWith(mem, e.rowTyps[k])
	}
}

// Types implements Executor.
func (e *Expand) Types() []types.Type { return e.typs }

// Next implements Executor.
func (e *Expand) Next(ctx context.Context) (Message, error) {
	msg, err := e.in.Next(ctx)
	if err != nil {
		return msg, err
	}
	if failpoint.Enabled {
		if err := hitStateless(msg); err != nil {
			return Message{}, err
		}
	}
	if msg.Chunk == nil {
		return msg, nil
	}
	c, err := e.expand(msg.Chunk)
	msg.Chunk.Release()
	if err != nil {
		return Message{}, err
	}
	return Message{Chunk: c}, nil
}

// expandAt is a position in the row-at-a-time order of evaluation: input
// row, projection, column.
type expandAt struct{ row, k, j int }

func (a expandAt) before(b expandAt) bool {
	if a.row != b.row {
		return a.row < b.row
	}
	if a.k != b.k {
		return a.k < b.k
	}
	return a.j < b.j
}

// expandGuarded is a guarded expression's data error, where the row
// evaluator raised it.
type expandGuarded struct {
	at   expandAt
	sink expr.ErrorSink
	err  error
}

// expandEval is the evaluation of one chunk: the columns of each
// projection (cols[k][j], nil for repeated ones), the guarded data
// errors and the first error (err at stop; stop is past the last row
// when there is none).
type expandEval struct {
	cols    [][]arrow.Array
	guarded []expandGuarded
	stop    expandAt
	err     error
}

// fail records err at `at` when it is before the first error so far.
func (ev *expandEval) fail(at expandAt, err error) {
	if at.before(ev.stop) {
		ev.stop, ev.err = at, err
	}
}

func (ev *expandEval) release() {
	for _, cs := range ev.cols {
		for _, a := range cs {
			if a != nil {
				a.Release()
			}
		}
	}
}

// expand builds the output chunk of in; in stays owned by the caller.
func (e *Expand) expand(in *chunk.Chunk) (*chunk.Chunk, error) {
	n := in.NumRows()
	if n == 0 || len(e.projs) == 0 {
		return e.empty(), nil
	}
	ev := &expandEval{cols: make([][]arrow.Array, len(e.projs)), stop: expandAt{row: n}}
	for k, p := range e.vecs {
		ev.cols[k] = make([]arrow.Array, len(e.typs))
		for j := range e.typs {
			if e.repeat[j] >= 0 || !p.Compiled(j) {
				continue
			}
			a, g, ce := p.Eval(in, j, e.mem)
			for _, ge := range g {
				ev.guarded = append(ev.guarded, expandGuarded{at: expandAt{ge.Row, k, j}, sink: ge.Sink, err: ge.Err})
			}
			if ce != nil {
				ev.fail(expandAt{ce.Row, k, j}, ce.Err)
			}
			ev.cols[k][j] = a
		}
	}
	e.evalRows(in, ev)
	slices.SortFunc(ev.guarded, func(a, b expandGuarded) int {
		if a.at.before(b.at) {
			return -1
		}
		return 1
	})
	for _, g := range ev.guarded {
		if !g.at.before(ev.stop) {
			break
		}
		g.sink.EvalError(g.err)
	}
	if ev.err != nil {
		ev.release()
		return nil, fmt.Errorf("stream: expand %s: %w", e.projs[ev.stop.k][ev.stop.j], ev.err)
	}
	c, err := e.assemble(in, ev)
	if err != nil {
		return nil, fmt.Errorf("stream: expand: %w", err)
	}
	return c, nil
}

// evalRows evaluates the expressions without kernels a row at a time, in
// the row evaluator's order, up to the first error; a guarded
// expression's data errors are recorded for the sink, not raised.
func (e *Expand) evalRows(in *chunk.Chunk, ev *expandEval) {
	some := false
	for _, rc := range e.rowCols {
		some = some || len(rc) > 0
	}
	if !some {
		return
	}
	for i := 0; i < in.NumRows() && i <= ev.stop.row; i++ {
		for _, col := range e.reads {
			e.row[col] = chunk.Value(in.Rec.Column(col), in.Types[col], i)
		}
		for k, rc := range e.rowCols {
			for m, j := range rc {
				at := expandAt{i, k, j}
				if !at.before(ev.stop) {
					e.discardRows()
					return
				}
				v, err := e.evalGuarded(e.projs[k][j], at, ev)
				if err != nil {
					ev.fail(at, err)
					e.discardRows()
					return
				}
				e.out[k][m] = v
			}
			if len(rc) > 0 {
				e.b[k].Append(chunk.Insert, e.out[k])
			}
		}
	}
	for k, rc := range e.rowCols {
		if len(rc) == 0 {
			continue
		}
		c := e.b[k].Build()
		for m, j := range rc {
			ev.cols[k][j] = c.Rec.Column(m)
			ev.cols[k][j].Retain()
		}
		c.Release()
	}
}

// evalGuarded evaluates x over e.row; a guarded expression's data error
// is recorded at `at` and its value is NULL, as Guarded.Eval would make
// it, but for the sink, which gets it once the order is known.
func (e *Expand) evalGuarded(x expr.Expr, at expandAt, ev *expandEval) (types.Datum, error) {
	g, ok := x.(*expr.Guarded)
	if !ok || g.Sink == nil {
		return x.Eval(e.row)
	}
	v, err := g.E.Eval(e.row)
	if err != nil && expr.IsDataError(err) {
		ev.guarded = append(ev.guarded, expandGuarded{at: at, sink: g.Sink, err: err})
		return nil, nil
	}
	return v, err
}

// discardRows drops the rows the builders hold (after an error).
func (e *Expand) discardRows() {
	for k, rc := range e.rowCols {
		if len(rc) > 0 {
			e.b[k].Build().Release()
		}
	}
}

// assemble builds the row-major output chunk from ev's columns and
// releases them.
func (e *Expand) assemble(in *chunk.Chunk, ev *expandEval) (*chunk.Chunk, error) {
	defer ev.release()
	n, np := in.NumRows(), len(e.projs)
	out := make([]arrow.Array, len(e.typs))
	var repeated []int
	for j := range e.typs {
		if e.repeat[j] >= 0 {
			repeated = append(repeated, j)
			continue
		}
		arrs := make([]arrow.Array, np)
		for k := range arrs {
			arrs[k] = ev.cols[k][j]
		}
		var err error
		if out[j], err = interleave(arrs, n, e.typs[j]); err != nil {
			for _, a := range out {
				if a != nil {
					a.Release()
				}
			}
			return nil, err
		}
	}
	if len(repeated) > 0 {
		e.repeatColumns(in, repeated, out)
	}
	ops := make([]chunk.Op, n*np)
	for i := range n {
		op := in.Op(i)
		switch op {
		case chunk.UpdateDelete:
			op = chunk.Delete
		case chunk.UpdateInsert:
			op = chunk.Insert
		}
		for k := range np {
			ops[i*np+k] = op
		}
	}
	rec := array.NewRecordBatch(e.schema, out, int64(n*np)) // retains the columns
	for _, a := range out {
		a.Release()
	}
	return &chunk.Chunk{Rec: rec, Ops: ops, Types: e.typs}, nil
}

// repeatColumns sets out[j], for the repeated columns j, to its input
// column with each row repeated once per projection (with one projection,
// the input column itself).
func (e *Expand) repeatColumns(in *chunk.Chunk, repeated []int, out []arrow.Array) {
	np := len(e.projs)
	var rest []int // columns of other types, taken together
	for _, j := range repeated {
		a := in.Rec.Column(e.repeat[j])
		if np == 1 {
			a.Retain()
			out[j] = a
		} else if out[j] = repeatRows(a, np); out[j] == nil {
			rest = append(rest, j)
		}
	}
	if len(rest) == 0 {
		return
	}
	n := in.NumRows()
	cols := make([]arrow.Array, len(rest))
	ts := make([]types.Type, len(rest))
	for m, j := range rest {
		cols[m], ts[m] = in.Rec.Column(e.repeat[j]), in.Types[e.repeat[j]]
	}
	src := &chunk.Chunk{Rec: array.NewRecordBatch(chunk.Schema(ts), cols, int64(n)), Types: ts}
	defer src.Release()
	rows := make([]int, n*np)
	for r := range rows {
		rows[r] = r / np
	}
	c := chunk.Take(src, rows, nil)
	for m, j := range rest {
		out[j] = c.Rec.Column(m)
		out[j].Retain()
	}
	c.Release()
}

// empty returns a chunk of no rows.
func (e *Expand) empty() *chunk.Chunk {
	cols := make([]arrow.Array, len(e.typs))
	for j, t := range e.typs {
		cols[j] = array.MakeArrayOfNull(chunk.Allocator(), chunk.ArrowType(t), 0)
	}
	rec := array.NewRecordBatch(e.schema, cols, 0)
	for _, a := range cols {
		a.Release()
	}
	return &chunk.Chunk{Rec: rec, Types: e.typs}
}

// release frees the row evaluator's builders and the projections' (Expand
// has no Close: their buffers are otherwise the garbage collector's; tests
// with a checked allocator call it).
func (e *Expand) release() {
	for _, b := range e.b {
		b.Release()
	}
	for _, p := range e.vecs {
		p.Close()
	}
}
