package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// A filter over a table or materialized view that pins its leading
// primary key columns to constants (pk = const, ANDed), covering the
// columns that place a row (its DistKey), reads only the rows under that
// key prefix: a point lookup when it pins the whole key. The filter still
// runs over them.

// keyLookup returns the key prefix a Filter over a Scan reads, or nil for
// a full scan.
func keyLookup(r *catalog.Relation, cond expr.Expr) []types.Datum {
	if r.Kind == catalog.KindSystem || len(r.PK) == 0 {
		return nil
	}
	pinned := map[int]types.Datum{}
	for _, c := range expr.Conjuncts(cond) {
		op, l, rr, ok := expr.Comparison(c)
		if !ok || op != "=" {
			continue
		}
		col, ok := l.(*expr.Column)
		cst := rr
		if !ok {
			col, ok = rr.(*expr.Column)
			cst = l
		}
		if !ok || len(expr.Columns(cst)) > 0 || !KeyCompatible(col.Type(), cst.Type()) {
			continue
		}
		v, err := cst.Eval(nil)
		if err != nil || v == nil {
			continue
		}
		pinned[col.Index] = v
	}
	var prefix []types.Datum
	for _, k := range r.PK {
		v, ok := pinned[k]
		if !ok {
			break
		}
		prefix = append(prefix, v)
	}
	for _, d := range r.DistKey {
		if i := slices.Index(r.PK, d); i < 0 || i >= len(prefix) {
			return nil
		}
	}
	if len(prefix) == 0 {
		return nil
	}
	return prefix
}

// KeyCompatible reports whether values of types a and b encode alike in
// keys, so that = on them is equality of key encodings: they can be join
// keys, and a constant of one looks up a key of the other.
func KeyCompatible(a, b types.Type) bool {
	return a.ID == b.ID || a.IsInteger() && b.IsInteger() || a.IsString() && b.IsString()
}

// describeKeyLookup is the Scan's EXPLAIN line under a filter that looks
// its key up.
func describeKeyLookup(r *catalog.Relation, prefix []types.Datum) string {
	parts := make([]string, len(prefix))
	for i, v := range prefix {
		c := r.Columns[r.PK[i]]
		parts[i] = fmt.Sprintf("%s = %s", c.Name, types.Format(v, c.Type))
	}
	return fmt.Sprintf("Scan %s (primary key lookup: %s)", r.Name, strings.Join(parts, ", "))
}
