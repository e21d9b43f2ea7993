package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ErrorSink receives the data errors that guarded expressions turned into
// NULLs (see Guard).
type ErrorSink interface {
	EvalError(err error)
}

// IsDataError reports whether err is an error of the data, SQLSTATE class
// 22 (division by zero, a value out of range, text that is not a number):
// evaluating the same expression over the same row fails the same way.
func IsDataError(err error) bool {
	return strings.HasPrefix(pgerr.Code(err), "22")
}

// Guarded evaluates E; when E fails with a data error the value is NULL
// and the error goes to Sink. It is how a materialized view evaluates its
// expressions: a row its expression fails on must not fail the write that
// carries it (see Guard). Any other error is returned as it is.
type Guarded struct {
	E    Expr
	Sink ErrorSink
}

// Guard returns e guarded by sink (e itself when sink is nil or e cannot
// fail: a column or a constant). A view's executors evaluate guarded
// expressions, so that a data error in a view's expression (a division by
// zero, say) makes the expression's value NULL and is recorded, instead
// of failing the stream graph and with it the writes of the view's
// upstream tables. The whole expression's value is NULL, not its failing
// part's: coalesce(10 / v, 0) is NULL for v = 0. Evaluation is
// deterministic, so a row later retracted evaluates to the same NULL.
func Guard(e Expr, sink ErrorSink) Expr {
	switch e.(type) {
	case nil, *Column, *Const, *Guarded:
		return e
	}
	if sink == nil {
		return e
	}
	return &Guarded{E: e, Sink: sink}
}

// GuardAll guards each of es (see Guard), in a new slice.
func GuardAll(es []Expr, sink ErrorSink) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = Guard(e, sink)
	}
	return out
}

// Type implements Expr.
func (g *Guarded) Type() types.Type { return g.E.Type() }

// Eval implements Expr.
func (g *Guarded) Eval(row []types.Datum) (types.Datum, error) {
	v, err := g.E.Eval(row)
	if err != nil && IsDataError(err) {
		g.Sink.EvalError(err)
		return nil, nil
	}
	return v, err
}

// String implements Expr: a guard does not show.
func (g *Guarded) String() string { return g.E.String() }

// Children implements Expr: the guarded expression's.
func (g *Guarded) Children() []Expr { return g.E.Children() }

// WithChildren implements Expr.
func (g *Guarded) WithChildren(ch []Expr) Expr {
	return &Guarded{E: g.E.WithChildren(ch), Sink: g.Sink}
}
