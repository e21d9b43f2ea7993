package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	// SemiJoin emits each left row that has a partner, once; AntiJoin
	// each that has none. Both output the left columns only.
	SemiJoin
	AntiJoin
)

// filtersLeft reports whether the join only keeps or drops left rows.
func (k JoinKind) filtersLeft() bool { return k == SemiJoin || k == AntiJoin }

// HashJoin joins left and right on leftKeys[i] = rightKeys[i] and a
// residual condition over the concatenated row. It builds a hash table of
// the right input, then streams the left input through it; NULL keys never
// match. With no keys every pair is a candidate (a nested-loop join).
// Outer joins pad the unmatched side with NULLs; unmatched right rows come
// after all left rows.
type HashJoin struct {
	left, right         Executor
	kind                JoinKind
	leftKeys, rightKeys []int
	cond                expr.Expr
	types               []types.Type
	rb                  *rowBuilder

	built   bool
	build   [][]types.Datum  // right rows
	table   map[string][]int // key -> indexes into build
	all     []int            // every build index, when there are no keys
	matched []bool           // build rows that found a partner (right/full)
	probe   probeState
	tail    int // next build row to check for the unmatched phase
}

// probeState is where the probe is in the current left chunk, so an
// output chunk can end mid-row.
type probeState struct {
	rows     [][]types.Datum
	i        int   // current left row
	cands    []int // its candidate build rows
	j        int   // next candidate
	started  bool  // cands computed for row i
	matched  bool  // row i matched something
	leftDone bool
}

// NewHashJoin returns a join of left and right; cond may be nil.
func NewHashJoin(left, right Executor, kind JoinKind, leftKeys, rightKeys []int, cond expr.Expr) *HashJoin {
	ts := append(append([]types.Type{}, left.Types()...), right.Types()...)
	if kind.filtersLeft() {
		ts = ts[:len(left.Types())]
	}
	return &HashJoin{
		left: left, right: right, kind: kind, leftKeys: leftKeys, rightKeys: rightKeys,
		cond: cond, types: ts, rb: newRowBuilder(ts),
	}
}

// Types implements Executor.
func (j *HashJoin) Types() []types.Type { return j.types }

// Next implements Executor.
func (j *HashJoin) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !j.built {
		if err := j.buildTable(ctx); err != nil {
			return nil, err
		}
	}
	for !j.rb.full() && !j.probe.leftDone {
		if err := j.probeStep(ctx); err != nil {
			j.rb.discard()
			return nil, err
		}
	}
	if j.probe.leftDone && (j.kind == RightJoin || j.kind == FullJoin) {
		j.emitUnmatchedRight()
	}
	return j.rb.build(), nil
}

// buildTable reads the whole right input into the hash table.
func (j *HashJoin) buildTable(ctx context.Context) error {
	j.built = true
	j.table = map[string][]int{}
	var key []byte
	for {
		c, err := j.right.Next(ctx)
		if err != nil || c == nil {
			return err
		}
		for i := 0; i < c.NumRows(); i++ {
			row := cloneRow(c.Row(i, nil))
			idx := len(j.build)
			j.build = append(j.build, row)
			j.all = append(j.all, idx)
			if k, ok := keyOf(key[:0], row, j.rightKeys, j.right.Types()); ok {
				key = k
				j.table[string(k)] = append(j.table[string(k)], idx)
			}
		}
		c.Release()
		j.matched = append(j.matched, make([]bool, len(j.build)-len(j.matched))...)
	}
}

// keyOf encodes the key columns of row, of types ts; ok is false if one
// is NULL.
func keyOf(buf []byte, row []types.Datum, cols []int, ts []types.Type) ([]byte, bool) {
	for _, c := range cols {
		if row[c] == nil {
			return buf, false
		}
		buf = storage.AppendDatumKeyOf(buf, ts[c], row[c])
	}
	return buf, true
}

// probeStep advances the probe by one candidate pair, one finished left
// row, or one fetched left chunk.
func (j *HashJoin) probeStep(ctx context.Context) error {
	p := &j.probe
	if p.i >= len(p.rows) {
		return j.fetchLeft(ctx)
	}
	lrow := p.rows[p.i]
	if !p.started {
		p.started, p.matched, p.j = true, false, 0
		p.cands = j.candidates(lrow)
	}
	if p.j < len(p.cands) {
		idx := p.cands[p.j]
		p.j++
		return j.tryPair(lrow, idx)
	}
	if !p.matched && (j.kind == LeftJoin || j.kind == FullJoin) {
		j.rb.append(padRight(lrow, len(j.types)))
	}
	if !p.matched && j.kind == AntiJoin {
		j.rb.append(lrow)
	}
	p.i++
	p.started = false
	return nil
}

func (j *HashJoin) fetchLeft(ctx context.Context) error {
	p := &j.probe
	c, err := j.left.Next(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		p.leftDone = true
		return nil
	}
	p.rows = p.rows[:0]
	for i := 0; i < c.NumRows(); i++ {
		p.rows = append(p.rows, cloneRow(c.Row(i, nil)))
	}
	c.Release()
	p.i, p.started = 0, false
	return nil
}

// candidates returns the build rows whose key equals the left row's.
func (j *HashJoin) candidates(lrow []types.Datum) []int {
	if len(j.leftKeys) == 0 {
		return j.all
	}
	k, ok := keyOf(nil, lrow, j.leftKeys, j.left.Types())
	if !ok {
		return nil
	}
	return j.table[string(k)]
}

// tryPair emits left row + build row idx if the residual condition holds.
func (j *HashJoin) tryPair(lrow []types.Datum, idx int) error {
	row := append(append(make([]types.Datum, 0, len(lrow)+len(j.build[idx])), lrow...), j.build[idx]...)
	if j.cond != nil {
		ok, err := isTrue(j.cond, row)
		if err != nil || !ok {
			return err
		}
	}
	j.probe.matched = true
	j.matched[idx] = true
	switch j.kind {
	case SemiJoin:
		j.rb.append(lrow)
		j.probe.j = len(j.probe.cands) // one match is enough
	case AntiJoin:
		j.probe.j = len(j.probe.cands)
	default:
		j.rb.append(row)
	}
	return nil
}

// padRight returns lrow followed by NULLs up to n columns.
func padRight(lrow []types.Datum, n int) []types.Datum {
	return append(append(make([]types.Datum, 0, n), lrow...), make([]types.Datum, n-len(lrow))...)
}

// emitUnmatchedRight emits, NULL-padded on the left, the build rows that
// found no partner, up to a chunk's worth.
func (j *HashJoin) emitUnmatchedRight() {
	nl := len(j.types) - len(j.right.Types())
	for ; j.tail < len(j.build) && !j.rb.full(); j.tail++ {
		if j.matched[j.tail] {
			continue
		}
		row := append(make([]types.Datum, nl, len(j.types)), j.build[j.tail]...)
		j.rb.append(row)
	}
}

// Close implements Executor.
func (j *HashJoin) Close() error {
	j.rb.release()
	j.build, j.table = nil, nil
	err := j.left.Close()
	if rerr := j.right.Close(); err == nil {
		err = rerr
	}
	return err
}
