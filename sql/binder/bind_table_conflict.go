package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// RisingWave's ON CONFLICT clause of CREATE TABLE says what an INSERT of
// a primary key already in the table does: DO UPDATE FULL (OVERWRITE) the
// new row replaces the old one, DO NOTHING (IGNORE) keeps the old one,
// DO UPDATE IF NOT NULL takes the new row's non-NULL columns. An INSERT
// without an ON CONFLICT clause of its own then runs as INSERT ... ON
// CONFLICT (pk) DO UPDATE SET ... (or DO NOTHING) would, generated and
// identity columns kept; without the clause, as in PostgreSQL, it fails
// with 23505. COPY is not covered: it fails on a key already there.

// tableConflictOption checks CREATE TABLE's ON CONFLICT clause and
// returns its catalog.Conflict* word.
func tableConflictOption(ct *planner.CreateTable, s *sql.CreateTableStmt) (string, error) {
	if s.OnConflict == "" {
		return "", nil
	}
	word := map[string]string{sql.ConflictOverwrite: catalog.ConflictOverwrite, sql.ConflictIgnore: catalog.ConflictIgnore,
		sql.ConflictIfNotNull: catalog.ConflictIfNotNull}[s.OnConflict]
	switch {
	case s.Source:
		return "", notSupported("ON CONFLICT on a source")
	case len(ct.PK) == 0:
		return "", pgerr.New("42P16", "ON CONFLICT needs a table with a primary key")
	case ct.AppendOnly && word != catalog.ConflictIgnore:
		return "", notSupported("ON CONFLICT %s on an APPEND ONLY table", word)
	}
	return word, nil
}

// tableConflict is the ON CONFLICT of an INSERT into r that has none of
// its own: the table's.
func tableConflict(r *catalog.Relation) *planner.OnConflict {
	if r.OnConflict == catalog.ConflictIgnore {
		return &planner.OnConflict{DoNothing: true}
	}
	oc := &planner.OnConflict{}
	w := len(r.Columns)
	for i, c := range r.Columns {
		if c.Hidden || c.Dropped || c.Generated != "" || c.Identity != "" || isPK(r, i) {
			continue
		}
		// The Set expressions read the table's row, then EXCLUDED's.
		var e expr.Expr = expr.NewColumn(w+i, c.Type, c.Name)
		if r.OnConflict == catalog.ConflictIfNotNull {
			if f, err := expr.Func("coalesce", []expr.Expr{e, expr.NewColumn(i, c.Type, c.Name)}); err == nil {
				e = f
			}
		}
		oc.Cols = append(oc.Cols, i)
		oc.Set = append(oc.Set, e)
	}
	return oc
}

func isPK(r *catalog.Relation, col int) bool {
	for _, k := range r.PK {
		if k == col {
			return true
		}
	}
	return false
}
