package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// scopeCol is one column visible to name resolution. Its index in
// scope.cols is its index in the row of the plan node the scope describes.
type scopeCol struct {
	table string // qualifier: alias or relation name ("" for none)
	name  string
	typ   types.Type
	// hidden columns (row ids) are left out of * but can be named.
	hidden bool
	// merged marks the side of a JOIN USING column pair that the merged
	// column stands for: it is reachable only qualified, and not by *.
	merged bool
	// rel and relCol identify the catalog column a Scan column reads, so
	// grouping by a table's primary key can make its other columns
	// available (a functional dependency, as Postgres allows).
	rel    *catalog.Relation
	relCol int
}

// scope is the set of columns an expression can name.
type scope struct {
	cols []scopeCol
	// star lists the columns * expands to, in order; nil means every
	// column that is neither hidden nor merged.
	star []int
}

// rel is a bound FROM item or query: a plan node and its scope.
type rel struct {
	node  planner.Node
	scope *scope
	// fns, when set, are the set-returning functions (node is the first)
	// a lateral rel runs in lockstep: unnest(a, b).
	fns []planner.Node
	// lateral: node is a set-returning function whose arguments read
	// the row of the FROM items before it (bindJoin runs it over them).
	lateral bool
	// ordinality: a lateral function WITH ORDINALITY (bindLateral shows
	// the ProjectSet's ordinal, the last column of scope).
	ordinality bool
	// lateralRow is set for a LATERAL subquery that reads the FROM items
	// before it: the row its references read (bindLateralJoin).
	lateralRow *expr.OuterRow
}

// scopeOf builds the scope of a node whose columns are all qualified by
// table (or by their own Table when table is "").
func scopeOf(cols []planner.Column, table string) *scope {
	s := &scope{cols: make([]scopeCol, len(cols))}
	for i, c := range cols {
		t := table
		if t == "" {
			t = c.Table
		}
		s.cols[i] = scopeCol{table: t, name: c.Name, typ: c.Type, hidden: c.Hidden}
	}
	return s
}

// requalify returns the columns with their Table set to table.
func requalify(cols []planner.Column, table string) []planner.Column {
	out := make([]planner.Column, len(cols))
	for i, c := range cols {
		c.Table = table
		out[i] = c
	}
	return out
}

// starColumns returns the column indexes * (table "") or t.* expands to;
// ok is false when no column has qualifier table.
func (s *scope) starColumns(table string) (idx []int, ok bool) {
	if table == "" {
		if s.star != nil {
			return s.star, true
		}
		for i, c := range s.cols {
			if !c.hidden && !c.merged {
				idx = append(idx, i)
			}
		}
		return idx, true
	}
	for i, c := range s.cols {
		if c.table != table {
			continue
		}
		ok = true
		if !c.hidden {
			idx = append(idx, i)
		}
	}
	return idx, ok
}

// hasTable reports whether any column is qualified by table.
func (s *scope) hasTable(table string) bool {
	for _, c := range s.cols {
		if c.table == table {
			return true
		}
	}
	return false
}

// resolve finds the column table.name (table "" for an unqualified name).
func (s *scope) resolve(table, name string) (int, *pgerr.Error) {
	found := -1
	for i, c := range s.cols {
		if c.name != name || table != "" && c.table != table || table == "" && c.merged {
			continue
		}
		if found >= 0 {
			return -1, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", qualified(table, name))
		}
		found = i
	}
	if found >= 0 {
		return found, nil
	}
	if table != "" && !s.hasTable(table) {
		return -1, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	if table != "" {
		return -1, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name)
	}
	return -1, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
}

func qualified(table, name string) string {
	if table == "" {
		return name
	}
	return table + "." + name
}

// concat returns the scope of a join: l's columns then r's.
func concatScopes(l, r *scope) *scope {
	s := &scope{cols: append(append([]scopeCol{}, l.cols...), r.cols...)}
	if l.star == nil && r.star == nil {
		return s
	}
	ls, _ := l.starColumns("")
	rs, _ := r.starColumns("")
	s.star = append([]int{}, ls...)
	for _, i := range rs {
		s.star = append(s.star, i+len(l.cols))
	}
	return s
}
