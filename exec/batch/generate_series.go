package batch

import (
	"context"
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// GenerateSeries yields start, start+step, ... up to stop (down to stop for
// a negative step), a chunk at a time in constant memory: over integers,
// numerics, or timestamps with an interval step.
type GenerateSeries struct {
	start, stop, step expr.Expr
	types             []types.Type
	rb                *rowBuilder
	started, done     bool
	cur, end          types.Datum
	inc               int64     // integer step
	add               expr.Expr // timestamp + interval or numeric + numeric step, over column 0
	desc              bool
	zone              *types.Zone
}

// NewGenerateSeries returns the series of type t (an integer, numeric or
// timestamp type) over constant expressions.
func NewGenerateSeries(start, stop, step expr.Expr, t types.Type) *GenerateSeries {
	ts := []types.Type{t}
	return &GenerateSeries{start: start, stop: stop, step: step, types: ts, rb: newRowBuilder(ts)}
}

// InZone makes a timestamptz series step its days and months in time zone
// z (nil: UTC), as local days and months; it returns g.
func (g *GenerateSeries) InZone(z *types.Zone) *GenerateSeries {
	g.zone = z
	return g
}

// Types implements Executor.
func (g *GenerateSeries) Types() []types.Type { return g.types }

// Next implements Executor.
func (g *GenerateSeries) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !g.started {
		g.started = true
		if err := g.init(); err != nil {
			return nil, err
		}
	}
	row := make([]types.Datum, 1)
	for !g.done && !g.rb.full() {
		row[0] = g.cur
		g.rb.append(row)
		if err := g.advance(); err != nil {
			return nil, err
		}
	}
	return g.rb.build(), nil
}

// init evaluates the bounds and the step; a NULL makes the series empty.
func (g *GenerateSeries) init() error {
	vals := make([]types.Datum, 3)
	for i, e := range []expr.Expr{g.start, g.stop, g.step} {
		v, err := e.Eval(nil)
		if err != nil {
			return err
		}
		if v == nil {
			g.done = true
			return nil
		}
		vals[i] = v
	}
	g.cur, g.end = vals[0], vals[1]
	if g.types[0].IsInteger() {
		return g.initInt(vals[2].(int64))
	}
	if g.types[0].ID == types.IDNumeric {
		return g.initNumeric(vals)
	}
	return g.initTimestamp(vals[2])
}

// initNumeric checks a numeric series' bounds and step as PostgreSQL
// does (no NaN, no infinity, no zero step) and steps by addition.
func (g *GenerateSeries) initNumeric(vals []types.Datum) error {
	for i, what := range []string{"start value", "stop value", "step size"} {
		d, _ := vals[i].(*apd.Decimal)
		switch {
		case d == nil:
			return pgerr.New(pgerr.Internal, "generate_series: %s is %T, not numeric", what, vals[i])
		case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
			return pgerr.New(pgerr.InvalidParameterValue, "%s cannot be NaN", what)
		case d.Form == apd.Infinite:
			return pgerr.New(pgerr.InvalidParameterValue, "%s cannot be infinity", what)
		}
	}
	step := vals[2].(*apd.Decimal)
	if step.IsZero() {
		return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	add, err := expr.Binary("+", expr.NewColumn(0, g.types[0], "n"), expr.NewConst(step, g.types[0]))
	if err != nil {
		return err
	}
	g.add, g.desc = add, step.Negative
	g.done = g.past(g.cur)
	return nil
}

func (g *GenerateSeries) initInt(step int64) error {
	if step == 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	g.inc, g.desc = step, step < 0
	g.done = g.past(g.cur)
	return nil
}

func (g *GenerateSeries) initTimestamp(step types.Datum) error {
	t := g.types[0]
	add, err := expr.Binary("+", expr.NewColumn(0, t, "ts"), expr.NewConst(step, types.TInterval))
	if err != nil {
		return err
	}
	g.add = expr.WithZone(add, g.zone)
	next, err := g.add.Eval([]types.Datum{g.cur})
	if err != nil {
		return err
	}
	c := expr.Compare(next, g.cur, t)
	if c == 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	g.desc = c < 0
	g.done = g.past(g.cur)
	return nil
}

// past reports whether v lies beyond the end of the series.
func (g *GenerateSeries) past(v types.Datum) bool {
	var c int
	if g.types[0].IsInteger() {
		c = cmpInt(v.(int64), g.end.(int64))
	} else {
		c = expr.Compare(v, g.end, g.types[0])
	}
	if g.desc {
		return c < 0
	}
	return c > 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// advance moves to the next value, ending the series past its end or on
// overflow.
func (g *GenerateSeries) advance() error {
	var next types.Datum
	if g.add == nil {
		cur := g.cur.(int64)
		lo, hi := intRange(g.types[0])
		if g.inc > 0 && cur > hi-g.inc || g.inc < 0 && cur < lo-g.inc {
			g.done = true
			return nil
		}
		next = cur + g.inc
	} else {
		v, err := g.add.Eval([]types.Datum{g.cur})
		if err != nil {
			return err
		}
		next = v
	}
	g.cur = next
	g.done = g.past(next)
	return nil
}

// intRange returns the bounds of an integer type.
func intRange(t types.Type) (int64, int64) {
	switch t.ID {
	case types.IDInt16:
		return math.MinInt16, math.MaxInt16
	case types.IDInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// Close implements Executor.
func (g *GenerateSeries) Close() error {
	g.rb.release()
	return nil
}
