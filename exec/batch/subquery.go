package batch

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// SubqueryKind is what an Apply computes from one subquery.
type SubqueryKind uint8

// Subquery kinds.
const (
	// ScalarSubquery yields the subquery's one value: NULL when it has no
	// row, an error (21000) when it has more than one.
	ScalarSubquery SubqueryKind = iota
	// InSubquery yields Probe IN (subquery), three-valued as in Postgres:
	// true when some row equals the probe; else NULL when the probe is
	// NULL (and there is a row) or some row is NULL; else false. NOT IN
	// negates it.
	InSubquery
	// ExistsSubquery yields whether the subquery has a row.
	ExistsSubquery
	// ArraySubquery yields ARRAY(subquery): the values of its one column,
	// in order, as an array (empty when it has no row).
	ArraySubquery
	// QuantifiedSubquery yields Probe op ANY|ALL (subquery): Cmp over
	// (probe, value) for each row, combined with OR (ANY) or AND (ALL) in
	// three-valued logic; ANY of no rows is false, ALL of none true.
	QuantifiedSubquery
)

// CardinalityViolation is the SQLSTATE of a scalar subquery with more than
// one row.
const CardinalityViolation = "21000"

// SubquerySpec is one subquery of an Apply.
type SubquerySpec struct {
	Kind SubqueryKind
	// Plan yields one column (Scalar, In, Array); for In, of Probe's type.
	// Nil for a correlated subquery.
	Plan Executor
	// Probe is, for In, the left operand over the Apply's input row.
	Probe expr.Expr
	// Not negates In (NOT IN).
	Not bool
	// Elem is, for Array, the type of the plan's column.
	Elem types.Type
	// Cmp is, for Quantified, the comparison over a row (probe, value),
	// or (probes..., row...) when Probes is set: a row on the left, Probe
	// nil. All is whether the quantifier is ALL.
	Cmp    expr.Expr
	Probes []expr.Expr
	All    bool
	// Outer is set for a correlated subquery, whose plan reads the
	// Apply's current input row through it: Build makes a fresh executor
	// of the plan, which runs once per input row with Outer set to it.
	Outer *expr.OuterRow
	Build func() (Executor, error)
	// Memo: the subquery's result depends only on the values of the
	// input row's OuterCols (it reads no other, and calls no volatile
	// function), so it runs once per distinct values of them.
	Memo      bool
	OuterCols []int
}

// memoLimit bounds the results a correlated subquery keeps; past it they
// are dropped and collected anew.
const memoLimit = 4096

// Apply runs each uncorrelated subquery once, before its first output row,
// and each correlated one once per input row, and appends to every input
// row one column per subquery.
type Apply struct {
	in    Executor
	subs  []SubquerySpec
	types []types.Type
	rb    *rowBuilder

	ready   bool
	values  []types.Datum     // per subquery: the Scalar or Exists result
	sets    []*subquerySet    // per subquery: the In set
	lists   [][][]types.Datum // per subquery: the Quantified rows
	closed  []bool            // per subquery: its Plan is closed
	memos   []map[string]types.Datum
	memoKey []byte
}

// subquerySet is the rows of an In subquery.
type subquerySet struct {
	keys    map[string]struct{}
	hasNull bool
	typ     types.Type // the subquery's column type
}

// NewApply returns an executor appending the subqueries' results to the
// rows of in; ts are the output types (in's, then one per subquery).
func NewApply(in Executor, subs []SubquerySpec, ts []types.Type) *Apply {
	return &Apply{in: in, subs: subs, types: ts, rb: newRowBuilder(ts),
		values: make([]types.Datum, len(subs)), sets: make([]*subquerySet, len(subs)),
		lists:  make([][][]types.Datum, len(subs)),
		closed: make([]bool, len(subs)), memos: make([]map[string]types.Datum, len(subs))}
}

// Types implements Executor.
func (a *Apply) Types() []types.Type { return a.types }

// Next implements Executor.
func (a *Apply) Next(ctx context.Context) (*chunk.Chunk, error) {
	if !a.ready {
		if err := a.runSubqueries(ctx); err != nil {
			return nil, err
		}
		a.ready = true
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := a.in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		out, err := a.extend(ctx, c)
		if err != nil || out != nil {
			return out, err
		}
	}
}

// runSubqueries evaluates every uncorrelated subquery and closes its plan.
func (a *Apply) runSubqueries(ctx context.Context) error {
	for i, s := range a.subs {
		if s.Outer != nil {
			a.closed[i] = true
			continue
		}
		err := a.runSubquery(ctx, i, s)
		a.closed[i] = true
		if cerr := s.Plan.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *Apply) runSubquery(ctx context.Context, i int, s SubquerySpec) error {
	switch s.Kind {
	case ArraySubquery:
		return a.runArraySubquery(ctx, i, s)
	case QuantifiedSubquery:
		rows, err := collectRows(ctx, s.Plan)
		a.lists[i] = rows
		return err
	case ExistsSubquery:
		c, err := s.Plan.Next(ctx)
		for err == nil && c != nil && c.NumRows() == 0 {
			c.Release()
			c, err = s.Plan.Next(ctx)
		}
		if c != nil {
			c.Release()
		}
		a.values[i] = err == nil && c != nil
		return err
	case ScalarSubquery:
		n := 0
		for {
			c, err := s.Plan.Next(ctx)
			if err != nil || c == nil {
				return err
			}
			if n == 0 && c.NumRows() > 0 {
				a.values[i] = cloneDatum(c.Row(0, nil)[0])
			}
			n += c.NumRows()
			c.Release()
			if n > 1 {
				return pgerr.New(CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
		}
	}
	set := &subquerySet{keys: map[string]struct{}{}, typ: s.Plan.Types()[0]}
	var buf []byte
	for {
		c, err := s.Plan.Next(ctx)
		if err != nil || c == nil {
			a.sets[i] = set
			return err
		}
		var row []types.Datum
		for r := 0; r < c.NumRows(); r++ {
			row = c.Row(r, row)
			if row[0] == nil {
				set.hasNull = true
				continue
			}
			buf = storage.AppendDatumKeyOf(buf[:0], c.Types[0], row[0])
			set.keys[string(buf)] = struct{}{}
		}
		c.Release()
	}
}

// extend appends the subquery columns to the rows of c (nil when c is
// empty) and releases c.
func (a *Apply) extend(ctx context.Context, c *chunk.Chunk) (*chunk.Chunk, error) {
	defer c.Release()
	var in []types.Datum
	out := make([]types.Datum, len(a.types))
	var buf []byte
	base := len(a.types) - len(a.subs)
	for r := 0; r < c.NumRows(); r++ {
		in = c.Row(r, in)
		copy(out, in[:base])
		for i, s := range a.subs {
			if s.Outer != nil {
				if err := a.runCorrelated(ctx, i, s, in[:base]); err != nil {
					a.rb.discard()
					return nil, err
				}
			}
			if s.Kind != InSubquery && s.Kind != QuantifiedSubquery {
				out[base+i] = a.values[i]
				continue
			}
			if s.Kind == QuantifiedSubquery {
				v, err := quantify(s, in, a.lists[i])
				if err != nil {
					a.rb.discard()
					return nil, err
				}
				out[base+i] = v
				continue
			}
			v, err := s.Probe.Eval(in)
			if err != nil {
				a.rb.discard()
				return nil, err
			}
			out[base+i] = a.sets[i].contains(v, &buf, s.Not)
		}
		a.rb.append(out)
	}
	return a.rb.build(), nil
}

// runArraySubquery collects the values of an Array subquery.
func (a *Apply) runArraySubquery(ctx context.Context, i int, s SubquerySpec) error {
	vals, err := collectColumn(ctx, s.Plan)
	if err != nil {
		return err
	}
	if s.Elem.ID == types.IDArray {
		a.values[i], err = expr.StackArrays(vals, s.Elem)
		return err
	}
	a.values[i] = expr.ArrayFromValues(vals, s.Elem)
	return nil
}

// collectColumn drains e and returns the values of its first column.
func collectColumn(ctx context.Context, e Executor) ([]types.Datum, error) {
	var vals []types.Datum
	var row []types.Datum
	for {
		c, err := e.Next(ctx)
		if err != nil || c == nil {
			return vals, err
		}
		for r := 0; r < c.NumRows(); r++ {
			row = c.Row(r, row)
			vals = append(vals, cloneDatum(row[0]))
		}
		c.Release()
	}
}

// collectRows drains e and returns its rows, copied out of its chunks.
func collectRows(ctx context.Context, e Executor) ([][]types.Datum, error) {
	var rows [][]types.Datum
	var row []types.Datum
	for {
		c, err := e.Next(ctx)
		if err != nil || c == nil {
			return rows, err
		}
		for r := 0; r < c.NumRows(); r++ {
			row = c.Row(r, row)
			rows = append(rows, cloneRow(row))
		}
		c.Release()
	}
}

// quantify evaluates probe op ANY|ALL (rows) for the input row in: ANY
// is true at the first true comparison, ALL false at the first false
// one; else NULL when a comparison was NULL; else ALL's true or ANY's
// false.
func quantify(s SubquerySpec, in []types.Datum, rows [][]types.Datum) (types.Datum, error) {
	probes := s.Probes
	if probes == nil {
		probes = []expr.Expr{s.Probe}
	}
	pair := make([]types.Datum, len(probes), 2*len(probes))
	for k, p := range probes {
		v, err := p.Eval(in)
		if err != nil {
			return nil, err
		}
		pair[k] = v
	}
	unknown := false
	for _, row := range rows {
		pair = append(pair[:len(probes)], row...)
		r, err := s.Cmp.Eval(pair)
		if err != nil {
			return nil, err
		}
		switch {
		case r == nil:
			unknown = true
		case r.(bool) != s.All:
			return !s.All, nil
		}
	}
	if unknown {
		return nil, nil
	}
	return s.All, nil
}

// runCorrelated runs a correlated subquery for the input row in.
func (a *Apply) runCorrelated(ctx context.Context, i int, s SubquerySpec, in []types.Datum) error {
	if !s.Memo {
		return a.runOnce(ctx, i, s, in)
	}
	// The exact representation of each value (its Go type and printed
	// form): equal values that print differently (1.0, 1.00) may give
	// different results.
	k := a.memoKey[:0]
	for _, c := range s.OuterCols {
		k = fmt.Appendf(k, "%T\x00%v\x01", in[c], in[c])
	}
	a.memoKey = k
	m := a.memos[i]
	if v, ok := m[string(k)]; ok {
		a.values[i] = v
		return nil
	}
	if err := a.runOnce(ctx, i, s, in); err != nil {
		return err
	}
	if m == nil || len(m) >= memoLimit {
		m = map[string]types.Datum{}
		a.memos[i] = m
	}
	m[string(k)] = a.values[i]
	return nil
}

// runOnce runs correlated subquery i for the input row in.
func (a *Apply) runOnce(ctx context.Context, i int, s SubquerySpec, in []types.Datum) error {
	s.Outer.Set(in)
	defer s.Outer.Set(nil)
	a.values[i] = nil
	e, err := s.Build()
	if err != nil {
		return err
	}
	s.Plan = e
	err = a.runSubquery(ctx, i, s)
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	return err
}

// contains returns v IN set (NOT IN when not), NULL when unknown.
func (s *subquerySet) contains(v types.Datum, buf *[]byte, not bool) types.Datum {
	if len(s.keys) == 0 && !s.hasNull {
		return not // IN of no rows is false, even for NULL
	}
	if v == nil {
		return nil
	}
	*buf = storage.AppendDatumKeyOf((*buf)[:0], s.typ, v)
	if _, ok := s.keys[string(*buf)]; ok {
		return !not
	}
	if s.hasNull {
		return nil
	}
	return not
}

// Close implements Executor.
func (a *Apply) Close() error {
	a.rb.release()
	err := a.in.Close()
	for i, s := range a.subs {
		if !a.closed[i] && s.Plan != nil {
			a.closed[i] = true
			if cerr := s.Plan.Close(); err == nil {
				err = cerr
			}
		}
	}
	return err
}
