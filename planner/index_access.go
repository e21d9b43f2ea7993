package planner

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// A Filter over a Scan of a relation with indexes (Scan.Indexes) reads
// through an index when its conjuncts constrain the index's leading key
// columns: col = const pins a column, col IN (const, ...) pins it to each
// value (one key range per combination), and <, <=, >, >= (BETWEEN is
// their AND) bound the first column not pinned. Only constants whose key
// encoding is the column's (KeyCompatible: numeric 1.0 and 1.00, text and
// varchar, the integer widths) and types whose key order is SQL's order
// serve; a NULL constant pins nothing (the filter keeps no row then). The
// index rows of the ranges name the relation's rows, fetched by primary
// key unless the plan needs only columns the index holds (an index-only
// read). The filter still runs over the rows read, so a range need only
// hold every row the filter keeps: NULLs are outside any bound, and
// DESC columns are stored ascending (catalog.Index).
//
// A primary key lookup (keylookup.go) is preferred when there is one.
// Among indexes, the one pinning the most columns wins, then one bounding
// the next, then a covering one, then the first created.

// maxIndexRanges caps the key ranges an IN list multiplies into.
const maxIndexRanges = 1024

// indexAccess is how a Filter over a Scan reads through an index.
type indexAccess struct {
	idx      *catalog.Relation
	ranges   []storage.KeyRange
	covering bool
	pinned   int  // leading key columns pinned
	bounded  bool // the next key column is bounded
	conds    []string
}

// keyPred is what a filter's conjuncts say of one column.
type keyPred struct {
	eq           types.Datum // col = eq (nil: none)
	in           []types.Datum
	lower, upper *storage.KeyBound
	eqText       string
	inText       string
	lowerText    string
	upperText    string
}

// chooseIndex returns the index read of a Filter (cond) over s, or nil.
// needed are the relation's columns the plan reads (nil: all of them).
func chooseIndex(s *Scan, cond expr.Expr, needed []int) *indexAccess {
	if len(s.Indexes) == 0 {
		return nil
	}
	preds := keyPreds(s.Rel, cond)
	if len(preds) == 0 {
		return nil
	}
	if needed == nil {
		needed = allColumns(len(s.Rel.Columns))
	}
	var best *indexAccess
	for _, idx := range s.Indexes {
		a := indexRanges(idx, preds)
		if a == nil {
			continue
		}
		a.covering = idx.Index.Covers(needed)
		if best == nil || a.better(best) {
			best = a
		}
	}
	return best
}

func allColumns(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// better reports whether a reads fewer rows than b, as far as can be told.
func (a *indexAccess) better(b *indexAccess) bool {
	if a.pinned != b.pinned {
		return a.pinned > b.pinned
	}
	if a.bounded != b.bounded {
		return a.bounded
	}
	return a.covering && !b.covering
}

// indexRanges returns the key ranges of idx that preds allow, or nil
// when they do not constrain its first key column.
func indexRanges(idx *catalog.Relation, preds map[int]*keyPred) *indexAccess {
	if !idx.Readable() {
		return nil
	}
	a := &indexAccess{idx: idx, ranges: []storage.KeyRange{{}}}
	for _, k := range idx.Index.Keys {
		p := preds[k.Column]
		if p == nil || !a.add(p, idx.Columns[idx.Index.StoredColumn(k.Column)].Type) {
			break
		}
		if a.bounded {
			break
		}
	}
	if a.pinned == 0 && !a.bounded {
		return nil
	}
	return a
}

// add narrows the ranges by one key column's predicate; false when it
// does not pin or bound the column.
func (a *indexAccess) add(p *keyPred, t types.Type) bool {
	switch {
	case p.eq != nil:
		for i := range a.ranges {
			a.ranges[i].Eq = append(a.ranges[i].Eq, p.eq)
		}
		a.conds = append(a.conds, p.eqText)
	case p.in != nil && len(a.ranges)*len(p.in) <= maxIndexRanges:
		var out []storage.KeyRange
		for _, r := range a.ranges {
			for _, v := range p.in {
				out = append(out, storage.KeyRange{Eq: append(slices.Clone(r.Eq), v)})
			}
		}
		a.ranges = out
		a.conds = append(a.conds, p.inText)
	case p.lower != nil || p.upper != nil:
		if !orderedKeyType(t) {
			return false
		}
		for i := range a.ranges {
			a.ranges[i].Lower, a.ranges[i].Upper = p.lower, p.upper
		}
		a.bounded = true
		for _, s := range []string{p.lowerText, p.upperText} {
			if s != "" {
				a.conds = append(a.conds, s)
			}
		}
		return true
	default:
		return false
	}
	a.pinned++
	return true
}

// keyPreds gathers the conjuncts of cond that compare a column of r with
// a constant, by column.
func keyPreds(r *catalog.Relation, cond expr.Expr) map[int]*keyPred {
	preds := map[int]*keyPred{}
	get := func(c int) *keyPred {
		if preds[c] == nil {
			preds[c] = &keyPred{}
		}
		return preds[c]
	}
	for _, c := range expr.Conjuncts(cond) {
		if eqs, not, ok := expr.InList(c); ok {
			if col, vals, text, ok := inValues(eqs, not); ok && len(vals) > 0 {
				p := get(col)
				if p.in == nil || len(vals) < len(p.in) {
					p.in, p.inText = vals, text
				}
			}
			continue
		}
		op, col, v, ok := columnComparison(c)
		if !ok {
			continue
		}
		get(col.Index).note(op, v, col)
	}
	for c, p := range preds {
		if p.eq == nil && p.in == nil && p.lower == nil && p.upper == nil {
			delete(preds, c)
		}
	}
	return preds
}

// note records col op v.
func (p *keyPred) note(op string, v types.Datum, col *expr.Column) {
	text := fmt.Sprintf("%s %s %s", col.Name, op, types.Format(v, col.Type()))
	switch op {
	case "=":
		if p.eq == nil {
			p.eq, p.eqText = v, text
		}
	case ">", ">=":
		b := &storage.KeyBound{Value: v, Inclusive: op == ">="}
		if p.lower == nil || tighter(col.Type(), b, p.lower, 1) {
			p.lower, p.lowerText = b, text
		}
	case "<", "<=":
		b := &storage.KeyBound{Value: v, Inclusive: op == "<="}
		if p.upper == nil || tighter(col.Type(), b, p.upper, -1) {
			p.upper, p.upperText = b, text
		}
	}
}

// tighter reports whether bound a excludes more than b: a lower bound
// (dir 1) that is greater, an upper bound (dir -1) that is less, or an
// exclusive one at the same value. Values compare by key encoding.
func tighter(t types.Type, a, b *storage.KeyBound, dir int) bool {
	ka, errA := storage.AppendKey(nil, t, a.Value)
	kb, errB := storage.AppendKey(nil, t, b.Value)
	if errA != nil || errB != nil {
		return false
	}
	if c := bytes.Compare(ka, kb) * dir; c != 0 {
		return c > 0
	}
	return !a.Inclusive && b.Inclusive
}

// columnComparison takes apart col op const (or const op col, the
// operator flipped) where const's value keys like col's and col's type
// has a key for =; ok is false otherwise or when const is NULL.
func columnComparison(e expr.Expr) (op string, col *expr.Column, v types.Datum, ok bool) {
	op, l, r, ok := expr.Comparison(e)
	if !ok || op == "<>" {
		return "", nil, nil, false
	}
	col, ok = l.(*expr.Column)
	cst := r
	if !ok {
		if col, ok = r.(*expr.Column); !ok {
			return "", nil, nil, false
		}
		cst = l
		op = flipped[op]
	}
	v, ok = constValue(cst, col.Type())
	return op, col, v, ok
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// constValue evaluates e, a constant whose values key like those of t;
// ok is false when e is not such a constant, or is NULL.
func constValue(e expr.Expr, t types.Type) (types.Datum, bool) {
	if len(expr.Columns(e)) > 0 || expr.IsVolatile(e) || expr.HasOuterRefs(e) ||
		!KeyCompatible(t, e.Type()) || !equalityKeyType(t) {
		return nil, false
	}
	v, err := e.Eval(nil)
	if err != nil || v == nil {
		return nil, false
	}
	if _, err := storage.AppendKey(nil, t, v); err != nil {
		return nil, false
	}
	return v, true
}

// inValues takes apart col IN (const, ...): the column, its distinct
// non-NULL values and the text of the condition.
func inValues(eqs []expr.Expr, not bool) (col int, vals []types.Datum, text string, ok bool) {
	if not || len(eqs) == 0 {
		return 0, nil, "", false
	}
	seen := map[string]bool{}
	var c *expr.Column
	var items []string
	for _, eq := range eqs {
		op, l, r, isCmp := expr.Comparison(eq)
		lc, isCol := l.(*expr.Column)
		if !isCmp || op != "=" || !isCol || c != nil && lc.Index != c.Index {
			return 0, nil, "", false
		}
		c = lc
		if len(expr.Columns(r)) > 0 || expr.IsVolatile(r) || expr.HasOuterRefs(r) {
			return 0, nil, "", false
		}
		if v, err := r.Eval(nil); err == nil && v == nil {
			continue // = NULL holds for no row
		}
		v, isConst := constValue(r, c.Type())
		if !isConst {
			return 0, nil, "", false
		}
		k, _ := storage.AppendKey(nil, c.Type(), v)
		if !seen[string(k)] {
			seen[string(k)] = true
			vals = append(vals, v)
			items = append(items, types.Format(v, c.Type()))
		}
	}
	return c.Index, vals, fmt.Sprintf("%s IN (%s)", c.Name, strings.Join(items, ", ")), true
}

// equalityKeyType reports whether = on values of t is equality of their
// keys (AppendKey), so that a key lookup finds exactly the equal values.
// Arrays key by their text and json has no equality: neither is looked
// up, nor any type not listed.
func equalityKeyType(t types.Type) bool {
	switch t.ID {
	case types.IDBool, types.IDInt16, types.IDInt32, types.IDInt64, types.IDFloat32, types.IDFloat64,
		types.IDNumeric, types.IDText, types.IDVarchar, types.IDDate, types.IDTimestamp, types.IDTimestampTZ,
		types.IDInterval, types.IDJSONB, types.IDBytea, types.IDUUID, types.IDTime, types.IDTimeTZ, types.IDBpchar:
		return true
	}
	return false
}

// orderedKeyType reports whether the key order of t's values is SQL's
// order, so that a range of keys holds a range of values.
func orderedKeyType(t types.Type) bool {
	return equalityKeyType(t) && t.ID != types.IDJSONB
}

// describe is the EXPLAIN line of the index read of s.
func (a *indexAccess) describe(s *Scan) string {
	kind := "Index Scan"
	if a.covering {
		kind = "Index Only Scan"
	}
	return fmt.Sprintf("%s using %s on %s: %s", kind, a.idx.Name, s.Rel.Name, strings.Join(a.conds, " AND "))
}

// scanAccess returns how Filter f over Scan s reads: the key prefix it
// looks up, or else the index read it makes (both nil: a full scan).
// needed are the columns f's parent reads (nil: all).
func scanAccess(f *Filter, s *Scan, needed []int) ([]types.Datum, *indexAccess) {
	if prefix := keyLookup(s.Rel, f.Cond); prefix != nil {
		return prefix, nil
	}
	if needed != nil {
		needed = append(slices.Clone(needed), expr.Columns(f.Cond)...)
	}
	return nil, chooseIndex(s, f.Cond, needed)
}

// inputNeeds returns the columns of its input that n reads, or nil when
// not known (then all).
func inputNeeds(n Node) []int {
	var cols []int
	switch n := n.(type) {
	case *Project:
		for _, e := range n.Exprs {
			cols = append(cols, expr.Columns(e)...)
		}
	case *Aggregate:
		cols = append(cols, n.GroupBy...)
		for _, a := range n.Aggs {
			if a.Arg >= 0 {
				cols = append(cols, a.Arg)
			}
			if a.Filtered {
				cols = append(cols, a.FilterCol)
			}
			for _, k := range a.Order {
				cols = append(cols, k.Col)
			}
		}
	default:
		return nil
	}
	if cols == nil {
		cols = []int{} // count(*): none
	}
	return cols
}
