package vec

import (
	"slices"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Predicate is a compiled filter condition.
type Predicate struct {
	root boolNode
	cond expr.Expr
	sink expr.ErrorSink // of a guarded condition (expr.Guard), else nil
	ctx  evalCtx
}

// Compile compiles cond, a boolean expression over rows of the given
// column types, into kernels; ok is false when some part of it has no
// kernel (the caller then evaluates cond a row at a time). cond may be
// guarded as a whole (expr.Guard, as a view's filter is).
func Compile(cond expr.Expr, ts []types.Type) (p *Predicate, ok bool) {
	if cond.Type().ID != types.IDBool {
		return nil, false
	}
	p = &Predicate{cond: cond}
	e := cond
	if g, isGuarded := cond.(*expr.Guarded); isGuarded {
		if g.Sink == nil {
			return nil, false
		}
		e, p.sink = g.E, g.Sink
	}
	c := compiler{types: ts}
	if p.root, ok = c.boolean(e); !ok {
		return nil, false
	}
	return p, true
}

// String returns the condition the predicate evaluates.
func (p *Predicate) String() string { return p.cond.String() }

// Select appends to sel[:0] the indexes, ascending, of the rows of c for
// which the condition is true, and returns it. It fails with the error
// the row evaluator raises on the first row that raises one. A guarded
// condition instead hands the data errors of rows, in row order, to its
// sink, those rows not passing, up to the first other error.
func (p *Predicate) Select(c *chunk.Chunk, sel []int) ([]int, error) {
	sel = sel[:0]
	n := c.NumRows()
	if n == 0 {
		return sel, nil
	}
	p.ctx.reset(c)
	v := p.root.eval(&p.ctx)
	if len(v.errs) > 0 {
		if p.sink == nil {
			return sel, v.errs.first()
		}
		rows := make([]int, 0, len(v.errs))
		for r := range v.errs {
			rows = append(rows, r)
		}
		slices.Sort(rows)
		for _, r := range rows {
			err := v.errs[r]
			if !expr.IsDataError(err) {
				return sel, err
			}
			p.sink.EvalError(err)
		}
	}
	return appendSet(sel, v.t), nil
}

// evalCtx is the chunk being evaluated and scratch buffers reused
// between chunks.
type evalCtx struct {
	c     *chunk.Chunk
	n     int
	words int
	free  [][]uint64 // scratch bitmaps
	used  [][]uint64
	freeI [][]int64
	usedI [][]int64
	valid map[int][]uint64 // column -> validity (nil: no NULLs)
	// The scratch of value expressions (projections, value.go).
	freeF, usedF [][]float64
	freeS, usedS [][]string
	freeN, usedN [][]num
	arena        []byte // the bytes of the strings value kernels make
}

// reset readies x for chunk c: the scratch of the last chunk is free
// again, but for the buffers too short for c (dropped, so that the pool
// stays as large as one evaluation needs).
func (x *evalCtx) reset(c *chunk.Chunk) {
	x.c, x.n, x.words = c, c.NumRows(), (c.NumRows()+63)/64
	x.free, x.used = recycle(x.free, x.used, x.words)
	x.freeI, x.usedI = recycle(x.freeI, x.usedI, x.n)
	x.freeF, x.usedF = recycle(x.freeF, x.usedF, x.n)
	x.freeS, x.usedS = recycle(x.freeS, x.usedS, x.n)
	x.freeN, x.usedN = recycle(x.freeN, x.usedN, x.n)
	x.arena = x.arena[:0]
	clear(x.valid)
}

// recycle moves the used buffers to the free ones, keeping those of at
// least size elements.
func recycle[T any](free, used [][]T, size int) ([][]T, [][]T) {
	kept := free[:0]
	for _, b := range free {
		if cap(b) >= size {
			kept = append(kept, b)
		}
	}
	for _, b := range used {
		if cap(b) >= size {
			kept = append(kept, b)
		}
	}
	clear(used)
	return kept, used[:0]
}

// bits returns a scratch bitmap for the chunk's rows (contents
// undefined).
func (x *evalCtx) bits() []uint64 {
	var w []uint64
	if k := len(x.free); k > 0 && cap(x.free[k-1]) >= x.words {
		w = x.free[k-1][:x.words]
		x.free = x.free[:k-1]
	} else {
		w = make([]uint64, x.words)
	}
	x.used = append(x.used, w)
	return w
}

// zeros returns a cleared scratch bitmap.
func (x *evalCtx) zeros() []uint64 {
	w := x.bits()
	clear(w)
	return w
}

// ints returns a scratch vector of the chunk's rows (contents undefined).
func (x *evalCtx) ints() []int64 {
	var v []int64
	if k := len(x.freeI); k > 0 && cap(x.freeI[k-1]) >= x.n {
		v = x.freeI[k-1][:x.n]
		x.freeI = x.freeI[:k-1]
	} else {
		v = make([]int64, x.n)
	}
	x.usedI = append(x.usedI, v)
	return v
}

// validOf returns the validity bitmap of column idx (nil: no NULLs).
func (x *evalCtx) validOf(idx int) []uint64 {
	if w, ok := x.valid[idx]; ok {
		return w
	}
	w := validity(x.c.Rec.Column(idx), x.bits())
	if x.valid == nil {
		x.valid = map[int][]uint64{}
	}
	x.valid[idx] = w
	return w
}
