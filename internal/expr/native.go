package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Native builds a call of a function this package does not define: one
// the caller implements over state it owns (the database's catalog, for
// the pg_catalog functions and the reg* types' name lookups). The
// arguments must already have the types fn expects. A strict function
// yields NULL for a NULL argument without calling fn. fn must be safe for
// concurrent use.
func Native(name string, args []Expr, result types.Type, strict bool,
	fn func(args []types.Datum) (types.Datum, error)) Expr {
	return &call{name: name, style: styleFunc, args: args, typ: result, fn: fn, nonStrict: !strict}
}

// OuterRow holds the current row of the query enclosing a correlated
// subquery: the executor that runs the subquery once per row of its
// input sets it before each run, and the subquery's OuterRefs read it.
// It belongs to one execution of one plan, which runs on one goroutine.
type OuterRow struct{ row []types.Datum }

// Set makes row the current outer row.
func (o *OuterRow) Set(row []types.Datum) { o.row = row }

// OuterRef reads column Index of an enclosing query's current row.
type OuterRef struct {
	Row   *OuterRow
	Index int
	Typ   types.Type
	Name  string // for display only
}

// NewOuterRef returns a reference to column idx of the row held by o.
func NewOuterRef(o *OuterRow, idx int, t types.Type, name string) *OuterRef {
	return &OuterRef{Row: o, Index: idx, Typ: t, Name: name}
}

func (r *OuterRef) Type() types.Type         { return r.Typ }
func (r *OuterRef) Children() []Expr         { return nil }
func (r *OuterRef) WithChildren([]Expr) Expr { return r }
func (r *OuterRef) String() string           { return "outer." + r.Name }

func (r *OuterRef) Eval([]types.Datum) (types.Datum, error) {
	if r.Index >= len(r.Row.row) {
		return nil, pgerr.New(pgerr.Internal, "correlated reference to %s evaluated outside its subquery", r.Name)
	}
	return r.Row.row[r.Index], nil
}

// randomFuncs are the functions that read the random source.
var randomFuncs = map[string]bool{"random": true, "gen_random_uuid": true}

// IsVolatile reports whether e calls a function whose value may change
// between two calls with the same arguments (random, gen_random_uuid),
// or that changes state (nextval, setval).
func IsVolatile(e Expr) bool {
	if c, ok := e.(*call); ok && (randomFuncs[c.name] || c.name == "nextval" || c.name == "setval") {
		return true
	}
	for _, c := range e.Children() {
		if IsVolatile(c) {
			return true
		}
	}
	return false
}

// CallsFunc reports whether e calls the function name.
func CallsFunc(e Expr, name string) bool {
	if c, ok := e.(*call); ok && c.name == name {
		return true
	}
	for _, c := range e.Children() {
		if CallsFunc(c, name) {
			return true
		}
	}
	return false
}

// HasOuterRefs reports whether e reads an enclosing query's row.
func HasOuterRefs(e Expr) bool {
	if _, ok := e.(*OuterRef); ok {
		return true
	}
	for _, c := range e.Children() {
		if HasOuterRefs(c) {
			return true
		}
	}
	return false
}

// CallOf returns the function name and arguments of e when e is a call
// of a function (built in or Native); ok is false otherwise.
func CallOf(e Expr) (name string, args []Expr, ok bool) {
	c, ok := e.(*call)
	if !ok {
		return "", nil, false
	}
	return c.name, c.args, true
}
