package binder

import (
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// checkTemporalJoin makes j, bound from a JOIN ... FOR SYSTEM_TIME AS OF
// PROCTIME() ... ON, a temporal join (planner.Join.Temporal), as
// RisingWave defines one: an inner or left join whose right side is a
// table with a primary key, every column of which the ON condition
// equates with a column of the left side, so that each left row matches
// at most one right row. A batch query runs it as the plain join it is.
func checkTemporalJoin(j *planner.Join) error {
	if j.Kind != planner.InnerJoin && j.Kind != planner.LeftJoin {
		return pgerr.New(pgerr.FeatureNotSupported, "a temporal join (FOR SYSTEM_TIME AS OF PROCTIME()) must be an inner or left join")
	}
	s, ok := j.Right.(*planner.Scan)
	if !ok || s.Rel.Kind != catalog.KindTable {
		what := "a subquery or view"
		if ok {
			what = s.Rel.Kind.String()
		}
		return pgerr.New(pgerr.WrongObjectType, "the right side of a temporal join must be a table, not %s", what)
	}
	if s.Rel.RowID || len(s.Rel.PK) == 0 {
		err := pgerr.New(pgerr.FeatureNotSupported,
			"the right side of a temporal join must be a table with a primary key: %q has none", s.Rel.Name)
		err.Hint = "Declare a PRIMARY KEY on the table, or use a plain join."
		return err
	}
	for _, pk := range s.Rel.PK {
		i := slices.Index(j.RightKeys, pk)
		if i < 0 {
			err := pgerr.New(pgerr.FeatureNotSupported,
				"a temporal join must equate every primary key column of %q with a left column: %q is missing",
				s.Rel.Name, s.Rel.Columns[pk].Name)
			err.Hint = "Join ON left_column = right_pk_column for each primary key column of the table."
			return err
		}
		lt := j.Left.Columns()[j.LeftKeys[i]].Type
		if !temporalKeyTypes(lt, s.Rel.Columns[pk].Type) {
			return pgerr.New(pgerr.FeatureNotSupported,
				"a temporal join key must have the type of the primary key column %q (%s), not %s",
				s.Rel.Columns[pk].Name, s.Rel.Columns[pk].Type, lt)
		}
	}
	j.Temporal = true
	return nil
}

// temporalKeyTypes reports whether a left key of type l looks up a
// primary key column of type r exactly: the same type, or two integer
// types (a value out of the column's range matches no row), or text and
// varchar (one key encoding).
func temporalKeyTypes(l, r types.Type) bool {
	if l.ID == r.ID {
		return true
	}
	isInt := func(t types.Type) bool {
		return t.ID == types.IDInt16 || t.ID == types.IDInt32 || t.ID == types.IDInt64
	}
	isText := func(t types.Type) bool { return t.ID == types.IDText || t.ID == types.IDVarchar }
	return isInt(l) && isInt(r) || isText(l) && isText(r)
}
