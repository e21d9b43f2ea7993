package write

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// A table's row rules (planner.RowRules) apply to each row an INSERT,
// UPDATE or COPY writes, in PostgreSQL's order: the generated columns are
// computed (generate), then NOT NULL is checked, then the CHECK
// constraints (checkRow).

// generate computes the generated columns of row in place.
func generate(rules *planner.RowRules, row []types.Datum) error {
	if rules == nil {
		return nil
	}
	for _, g := range rules.Generated {
		v, err := g.Expr.Eval(row)
		if err != nil {
			return err
		}
		row[g.Col] = v
	}
	return nil
}

// checkRow checks row against the CHECK constraints of rules: one that
// is false refuses it (NULL passes).
func checkRow(rules *planner.RowRules, rel *catalog.Relation, row []types.Datum) error {
	if rules == nil {
		return nil
	}
	for _, c := range rules.Checks {
		v, err := c.Expr.Eval(row)
		if err != nil {
			return err
		}
		if ok, isBool := v.(bool); isBool && !ok {
			_, own := catalog.SplitName(rel.Name)
			e := pgerr.New(pgerr.CheckViolation, "new row for relation %q violates check constraint %q", own, c.Name)
			e.Detail = "Failing row contains (" + failingRow(rel, row) + ")."
			return e
		}
	}
	return nil
}

// failingRow renders the visible columns of row as PostgreSQL does in a
// "Failing row contains" detail.
func failingRow(rel *catalog.Relation, row []types.Datum) string {
	var b strings.Builder
	for n, i := range rel.VisibleColumns() {
		if n > 0 {
			b.WriteString(", ")
		}
		if row[i] == nil {
			b.WriteString("null")
		} else {
			b.WriteString(types.Format(row[i], rel.Columns[i].Type))
		}
	}
	return b.String()
}

// generatesKey reports whether rules compute a primary-key column of rel.
func generatesKey(rules *planner.RowRules, rel *catalog.Relation) bool {
	if rules == nil {
		return false
	}
	for _, g := range rules.Generated {
		for _, k := range rel.PK {
			if k == g.Col {
				return true
			}
		}
	}
	return false
}
