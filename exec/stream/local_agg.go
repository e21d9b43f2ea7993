package stream

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// LocalAgg is the first phase of a two-phase aggregation: it runs in the
// actors that produce the rows, before the exchange on the group key, and
// sends on, per group, the net change its rows make instead of the rows, so
// the exchange and the second phase (a HashAgg with AggSpec.Partial) see a
// row per group and flush instead of a row per input row. A GROUP BY of
// few groups over a large table (a backfill) then exchanges thousands of
// rows instead of millions.
//
// It keeps no state across epochs and writes nothing: its groups live in
// memory until the barrier, where it emits them (in first-touch order) and
// forgets them; it also emits early when it holds localAggGroups groups.
// A failed epoch tears it down with its actor and the epoch is redone from
// committed state (I6), as for any stateless executor.
//
// Each output row (types AggSpec.PartialTypes, op Insert) holds the
// group key, the net change in the group's row count, and per call the
// net change of its state: a count's, or a sum's signed total and net
// count of non-NULL values. A group whose rows cancelled out entirely is
// not emitted. Only a Splittable spec can run in two phases.
type LocalAgg struct {
	in    Executor
	spec  AggSpec
	calls []aggCallLayout
	types []types.Type
	out   *outQueue

	groups    map[string]*localGroup
	order     []*localGroup
	ints      intCache[*localGroup]
	rowGroups []*localGroup
	keyBuf    []byte
	row       []types.Datum
}

// localGroup is a group's net change so far in the epoch.
type localGroup struct {
	key   []types.Datum
	rows  int64
	calls []partialState
}

// partialState is the net change of one call's state: n (net count of
// values), and for a sum or avg their signed total, in int64 while it
// fits and in over (a numeric, nil while unused) beyond.
type partialState struct {
	n, sum int64
	over   *apd.Decimal
	// ext is a min's or max's extreme so far (nil: none yet); an integer
	// extreme is held in sum, with n 1, until emitted.
	ext types.Datum
}

// localAggGroups is how many groups a LocalAgg holds before it emits
// them without waiting for the barrier (a variable for tests).
var localAggGroups = 1 << 16

// NewLocalAgg returns the first phase of spec's aggregation of in's rows.
func NewLocalAgg(in Executor, spec AggSpec) (*LocalAgg, error) {
	if spec.Partial || !spec.Splittable() {
		return nil, fmt.Errorf("stream: local agg: the aggregates do not run in two phases")
	}
	l := &aggLayout{groupTypes: spec.groupTypes()}
	if err := l.resolveCalls(spec); err != nil {
		return nil, err
	}
	ts := spec.PartialTypes()
	return &LocalAgg{in: in, spec: spec, calls: l.calls, types: ts, out: newOutQueue(ts),
		groups: map[string]*localGroup{}}, nil
}

// Types implements Executor.
func (a *LocalAgg) Types() []types.Type { return a.types }

// Next implements Executor.
func (a *LocalAgg) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := a.out.pop(); ok {
			return m, nil
		}
		msg, err := a.in.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if msg.Barrier != nil {
			if err := a.emit(); err != nil {
				return Message{}, err
			}
			a.out.barrierMsg(msg)
			continue
		}
		err = a.apply(msg.Chunk)
		msg.Chunk.Release()
		if err != nil {
			return Message{}, err
		}
		if len(a.groups) >= localAggGroups {
			if err := a.emit(); err != nil {
				return Message{}, err
			}
			a.out.flush()
		}
	}
}

// apply adds a chunk's rows to their groups, a column at a time.
func (a *LocalAgg) apply(c *chunk.Chunk) error {
	a.rowGroups = a.rowGroups[:0]
	ints := intKeyColumn(c, a.spec.GroupBy)
	for i := range c.NumRows() {
		g, err := a.rowGroup(c, ints, i)
		if err != nil {
			return err
		}
		a.rowGroups = append(a.rowGroups, g)
		g.rows += opSign(c.Op(i))
	}
	for k := range a.calls {
		if err := a.applyCall(c, k); err != nil {
			return err
		}
	}
	return nil
}

// rowGroup returns the group of row i of c, through the integer key
// cache when ints (intKeyColumn of c) is not nil.
func (a *LocalAgg) rowGroup(c *chunk.Chunk, ints arrow.Array, i int) (*localGroup, error) {
	if ints == nil || ints.IsNull(i) {
		return a.groupAt(c, i)
	}
	v := intKeyAt(ints, i)
	if g, ok := a.ints.get(v); ok {
		return g, nil
	}
	g, err := a.groupAt(c, i)
	if err == nil {
		a.ints.put(v, g)
	}
	return g, err
}

// groupAt returns the group of row i of c, made if it is new.
func (a *LocalAgg) groupAt(c *chunk.Chunk, i int) (*localGroup, error) {
	var err error
	if a.keyBuf, err = appendRowGroupKey(a.keyBuf[:0], c, a.spec.GroupBy, i); err != nil {
		return nil, err
	}
	if g, ok := a.groups[string(a.keyBuf)]; ok {
		return g, nil
	}
	g := &localGroup{key: groupKeyDatums(c, a.spec.GroupBy, i), calls: make([]partialState, len(a.calls))}
	a.groups[string(a.keyBuf)] = g
	a.order = append(a.order, g)
	return g, nil
}

// applyCall applies call k to every row of c.
func (a *LocalAgg) applyCall(c *chunk.Chunk, k int) error {
	call := &a.calls[k]
	if call.Kind == expr.AggCountStar {
		for i, g := range a.rowGroups {
			g.calls[k].n += opSign(c.Op(i))
		}
		return nil
	}
	col := c.Rec.Column(call.Arg)
	if isMinMax(call.Kind) {
		return a.applyExtreme(c, col, k)
	}
	if call.Kind == expr.AggCount {
		for i, g := range a.rowGroups {
			if !col.IsNull(i) {
				g.calls[k].n += opSign(c.Op(i))
			}
		}
		return nil
	}
	return addIntColumn(col, c, a.rowGroups, k)
}

// addIntColumn adds the integer values of col to the sums of call k.
// applyExtreme folds a chunk's values of min or max call k into its
// groups' extremes. The spec is append-only (Splittable allows min and max
// only then): a delete fails the aggregate.
func (a *LocalAgg) applyExtreme(c *chunk.Chunk, col arrow.Array, k int) error {
	call := &a.calls[k]
	for i := range c.NumRows() {
		if !c.Op(i).IsInsert() {
			return errAppendOnlyDelete
		}
	}
	max := call.Kind == expr.AggMax
	if ints, ok := intValues(col); ok && call.argType.IsInteger() {
		for i, g := range a.rowGroups {
			if col.IsNull(i) {
				continue
			}
			v, p := ints(i), &g.calls[k]
			if p.n == 0 || max && v > p.sum || !max && v < p.sum {
				p.sum, p.n = v, 1
			}
		}
		return nil
	}
	for i, g := range a.rowGroups {
		v := chunk.Value(col, call.argType, i)
		if v == nil {
			continue
		}
		if p := &g.calls[k]; p.ext == nil || call.better(v, p.ext) {
			p.ext = v
		}
	}
	return nil
}

// intValues returns an accessor of an integer column's values as int64,
// the order in which SQL compares them.
func intValues(col arrow.Array) (func(int) int64, bool) {
	switch col := col.(type) {
	case *array.Int64:
		return col.Value, true
	case *array.Int32:
		return func(i int) int64 { return int64(col.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(col.Value(i)) }, true
	}
	return nil, false
}

func addIntColumn(col arrow.Array, c *chunk.Chunk, groups []*localGroup, k int) error {
	switch col := col.(type) {
	case *array.Int64:
		for i, g := range groups {
			if !col.IsNull(i) {
				g.calls[k].add(col.Value(i), opSign(c.Op(i)))
			}
		}
	case *array.Int32:
		for i, g := range groups {
			if !col.IsNull(i) {
				g.calls[k].add(int64(col.Value(i)), opSign(c.Op(i)))
			}
		}
	case *array.Int16:
		for i, g := range groups {
			if !col.IsNull(i) {
				g.calls[k].add(int64(col.Value(i)), opSign(c.Op(i)))
			}
		}
	default:
		return fmt.Errorf("stream: local agg: sum of a %s column", col.DataType())
	}
	return nil
}

// add adds (sign 1) or retracts (sign -1) a value.
func (p *partialState) add(v, sign int64) {
	p.n += sign
	if r, ok := addSigned(p.sum, v, sign); ok {
		p.sum = r
		return
	}
	p.spill()
	d := apd.New(v, 0)
	if sign < 0 {
		d.Neg(d)
	}
	_, _ = apd.BaseContext.Add(p.over, p.over, d)
}

// spill moves the int64 total into over.
func (p *partialState) spill() {
	if p.over == nil {
		p.over = new(apd.Decimal)
	}
	_, _ = apd.BaseContext.Add(p.over, p.over, apd.New(p.sum, 0))
	p.sum = 0
}

// total is the signed total of the values in the accumulation type acc.
func (p *partialState) total(acc types.Type) (types.Datum, error) {
	if acc.ID == types.IDInt64 {
		if p.over != nil {
			return nil, pgerr.New(pgerr.NumericOutOfRange, "bigint out of range")
		}
		return p.sum, nil
	}
	if p.over == nil {
		return apd.New(p.sum, 0), nil
	}
	p.spill()
	return p.over, nil
}

func (p *partialState) zero() bool {
	return p.n == 0 && p.sum == 0 && (p.over == nil || p.over.IsZero()) && p.ext == nil
}

// emit queues the groups' partial rows and forgets the groups.
func (a *LocalAgg) emit() error {
	for _, g := range a.order {
		if a.cancelled(g) {
			continue
		}
		a.row = append(a.row[:0], g.key...)
		a.row = append(a.row, g.rows)
		for k := range a.calls {
			call := &a.calls[k]
			p := &g.calls[k]
			switch call.Kind {
			case expr.AggCount, expr.AggCountStar:
				a.row = append(a.row, p.n)
			case expr.AggMin, expr.AggMax:
				ext := p.ext
				if p.n != 0 {
					ext = p.sum // an integer extreme
				}
				a.row = append(a.row, ext)
			default:
				sum, err := p.total(expr.AccType(call.argType))
				if err != nil {
					return fmt.Errorf("stream: local agg %s: %w", call.Kind, err)
				}
				a.row = append(a.row, sum, p.n)
			}
		}
		a.out.add(chunk.Insert, a.row)
	}
	clear(a.groups)
	clear(a.order)
	a.order = a.order[:0]
	a.ints.clear()
	return nil
}

// cancelled reports whether g's rows cancelled out: no net change at all.
func (a *LocalAgg) cancelled(g *localGroup) bool {
	if g.rows != 0 {
		return false
	}
	for k := range g.calls {
		if !g.calls[k].zero() {
			return false
		}
	}
	return true
}
