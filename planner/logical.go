package planner

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Column is one output column of a plan node.
type Column struct {
	Name string
	Type types.Type
	// Table is the name (or alias) qualifying the column, for binding.
	Table string
	// Hidden columns are carried for keys but not shown to the user.
	Hidden bool
}

// Node is a logical plan node.
type Node interface {
	Columns() []Column
	Inputs() []Node
}

// Scan reads every column of a table or materialized view, hidden ones
// included, in catalog column order.
type Scan struct {
	Rel   *catalog.Relation
	Alias string
	Cols  []Column
	// Indexes are the created indexes on Rel a batch plan may read it
	// through (see index_access.go); none in a view's plan.
	Indexes []*catalog.Relation
}

// ScanOf returns a scan of every column of rel, hidden ones included.
func ScanOf(rel *catalog.Relation) *Scan {
	cols := make([]Column, len(rel.Columns))
	for i, c := range rel.Columns {
		cols[i] = Column{Name: c.Name, Type: c.Type, Table: rel.Name, Hidden: c.Hidden}
	}
	return &Scan{Rel: rel, Cols: cols}
}

// Values produces constant rows (each expression has no column references).
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
}

// GenerateSeries produces one column of integers (or timestamps, with an
// interval step) from Start to Stop inclusive. Start, Stop and Step are
// constant expressions. Zone is the session time zone a timestamptz
// series steps its days and months in (nil: UTC).
type GenerateSeries struct {
	Start, Stop, Step expr.Expr
	Cols              []Column
	Zone              *types.Zone
}

// Filter keeps the rows for which Cond is true.
type Filter struct {
	Input Node
	Cond  expr.Expr
}

// Project computes one expression per output column.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Cols  []Column
}

// AggCall is one aggregate of an Aggregate node.
type AggCall struct {
	Kind     expr.AggKind
	Arg      int // input column; -1 for count(*)
	Distinct bool
	Type     types.Type // result type
	Sep      string     // string_agg's delimiter
	// Filtered: the aggregate has a FILTER clause it evaluates itself
	// (one that keeps NULLs, array_agg): it skips the rows whose input
	// column FilterCol is not true.
	Filtered  bool
	FilterCol int
	// Order is the ORDER BY of string_agg and array_agg, over the input.
	Order []SortKey
}

// Aggregate groups its input by GroupBy columns and computes Aggs per group.
// Its output is the group columns, in order, followed by one column per
// AggCall. With no GroupBy it yields exactly one row (even for no input).
// SELECT DISTINCT is an Aggregate with no Aggs.
type Aggregate struct {
	Input   Node
	GroupBy []int
	Aggs    []AggCall
	Cols    []Column
	// FixedGroups are values of the GroupBy columns whose group has a row
	// even when no input row falls in it, as a global aggregate's one
	// group does: the empty grouping sets of a GROUP BY ROLLUP, CUBE or
	// GROUPING SETS.
	FixedGroups [][]types.Datum
}

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	// SemiJoin keeps the left rows with a match, AntiJoin those with
	// none; both output the left columns only. The binder makes them from
	// [NOT] EXISTS and IN subqueries of a materialized view.
	SemiJoin
	AntiJoin
)

func (k JoinKind) String() string {
	return [...]string{"inner", "left outer", "right outer", "full outer", "semi", "anti"}[k]
}

// FiltersLeft reports whether the join only keeps or drops left rows.
func (k JoinKind) FiltersLeft() bool { return k == SemiJoin || k == AntiJoin }

// Join joins Left and Right on LeftKeys[i] = RightKeys[i] for every i (an
// equi-join; NULL keys never match), then keeps pairs for which Cond (over
// the concatenated row; nil means true) holds. Outer joins pad the
// unmatched side with NULLs. Output: left columns then right columns.
//
// Temporal marks RisingWave's process-time temporal join (JOIN t FOR
// SYSTEM_TIME AS OF PROCTIME()): Right is a Scan of a table whose primary
// key RightKeys cover, Kind inner or left. A batch plan runs it as the
// join it is; a view looks each left row up in the table as it is when
// the row arrives (temporal_join.go).
type Join struct {
	Left, Right         Node
	Kind                JoinKind
	LeftKeys, RightKeys []int
	Cond                expr.Expr
	Temporal            bool
}

// SortKey is one ORDER BY key over the input columns.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool // Postgres default: NULLS LAST for ASC, FIRST for DESC
}

// Sort orders its input.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows and then passes at most Count rows (Count < 0:
// no limit).
type Limit struct {
	Input         Node
	Count, Offset int64
}

// UnionAll concatenates inputs with identical column types.
type UnionAll struct {
	Ins  []Node
	Cols []Column
	// Key, in a view's stream plan, is the stream key withStreamKey gave
	// it (unionWithKey): where the stream builder sends each row.
	Key []int
}

func (n *Scan) Columns() []Column           { return n.Cols }
func (n *Values) Columns() []Column         { return n.Cols }
func (n *GenerateSeries) Columns() []Column { return n.Cols }
func (n *Filter) Columns() []Column         { return n.Input.Columns() }
func (n *Project) Columns() []Column        { return n.Cols }
func (n *Aggregate) Columns() []Column      { return n.Cols }
func (n *Sort) Columns() []Column           { return n.Input.Columns() }
func (n *Limit) Columns() []Column          { return n.Input.Columns() }
func (n *UnionAll) Columns() []Column       { return n.Cols }
func (n *Join) Columns() []Column {
	if n.Kind.FiltersLeft() {
		return append([]Column{}, n.Left.Columns()...)
	}
	return append(append([]Column{}, n.Left.Columns()...), n.Right.Columns()...)
}

func (n *Scan) Inputs() []Node           { return nil }
func (n *Values) Inputs() []Node         { return nil }
func (n *GenerateSeries) Inputs() []Node { return nil }
func (n *Filter) Inputs() []Node         { return []Node{n.Input} }
func (n *Project) Inputs() []Node        { return []Node{n.Input} }
func (n *Aggregate) Inputs() []Node      { return []Node{n.Input} }
func (n *Sort) Inputs() []Node           { return []Node{n.Input} }
func (n *Limit) Inputs() []Node          { return []Node{n.Input} }
func (n *UnionAll) Inputs() []Node       { return n.Ins }
func (n *Join) Inputs() []Node           { return []Node{n.Left, n.Right} }
