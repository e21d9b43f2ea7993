package expr

import (
	"github.com/streamdb/streamdb/internal/types"
)

// Expr is a typed scalar expression over one input row.
type Expr interface {
	// Type is the SQL type of the result.
	Type() types.Type
	// Eval computes the value for one row; nil is SQL NULL. An expression
	// reads the row only through its *Column descendants (see Columns):
	// executors may decode only those columns of row.
	Eval(row []types.Datum) (types.Datum, error)
	// String renders the expression for EXPLAIN and error messages.
	String() string
	// Children returns the direct sub-expressions.
	Children() []Expr
	// WithChildren returns a copy with the sub-expressions replaced
	// (same count and types as Children).
	WithChildren(ch []Expr) Expr
}

// Column reads column Index of the input row.
type Column struct {
	Index int
	Typ   types.Type
	Name  string // for display only
}

// NewColumn returns a reference to column idx of type t.
func NewColumn(idx int, t types.Type, name string) *Column {
	return &Column{Index: idx, Typ: t, Name: name}
}

func (c *Column) Type() types.Type                            { return c.Typ }
func (c *Column) Eval(row []types.Datum) (types.Datum, error) { return row[c.Index], nil }
func (c *Column) Children() []Expr                            { return nil }
func (c *Column) WithChildren([]Expr) Expr                    { return c }
func (c *Column) String() string {
	if c.Name != "" {
		return c.Name
	}
	return "$" + itoa(c.Index)
}

// Const is a constant value.
type Const struct {
	Value types.Datum
	Typ   types.Type
	// lit is the text a literal of a type whose input depends on the
	// session time zone was read from (in UTC), for WithZone to read
	// again.
	lit string
}

// NewConst returns a constant of type t (Value must be a Datum of t, or nil).
func NewConst(v types.Datum, t types.Type) *Const { return &Const{Value: v, Typ: t} }

func (c *Const) Type() types.Type                        { return c.Typ }
func (c *Const) Eval([]types.Datum) (types.Datum, error) { return c.Value, nil }
func (c *Const) Children() []Expr                        { return nil }
func (c *Const) WithChildren([]Expr) Expr                { return c }
func (c *Const) String() string {
	if c.Value == nil {
		return "NULL"
	}
	return types.Format(c.Value, c.Typ)
}

// Remap returns e with every Column index i replaced by m(i).
func Remap(e Expr, m func(int) int) Expr {
	if c, ok := e.(*Column); ok {
		return &Column{Index: m(c.Index), Typ: c.Typ, Name: c.Name}
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e
	}
	nc := make([]Expr, len(ch))
	for i, c := range ch {
		nc[i] = Remap(c, m)
	}
	return e.WithChildren(nc)
}

// Columns returns the indexes of the columns e reads, in first-use order.
func Columns(e Expr) []int {
	var out []int
	seen := map[int]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		if c, ok := e.(*Column); ok {
			if !seen[c.Index] {
				seen[c.Index] = true
				out = append(out, c.Index)
			}
			return
		}
		for _, ch := range e.Children() {
			walk(ch)
		}
	}
	walk(e)
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
