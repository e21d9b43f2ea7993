package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// checkTemporalJoin makes j, bound from a JOIN ... FOR SYSTEM_TIME AS OF
// PROCTIME() ... ON, a temporal join (planner.Join.Temporal), as
// RisingWave defines one: an inner or left join whose right side is a
// table with a primary key, every column of which the ON condition
// equates with a column or expression of the left side
// (planner.TemporalLookup), so that each left row matches at most one
// right row. A batch query runs it as the plain join it is.
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
	if _, err := planner.TemporalLookup(j, s.Rel); err != nil {
		return err
	}
	j.Temporal = true
	return nil
}
