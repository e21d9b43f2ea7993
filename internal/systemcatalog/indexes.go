package systemcatalog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// Indexes in the catalogs: a table's primary key index (oids.go) and the
// indexes users create (catalog.KindIndex), which are stored relations
// listed in pg_class as relkind 'i', with pg_attribute rows for their
// key and INCLUDE columns, a pg_index row and a pg_indexes row; psql's
// \d and \di read them there.

// IndexDef is pg_get_indexdef of an index idx on relation on: CREATE
// INDEX name ON public.on USING btree (key, ...) [INCLUDE (col, ...)],
// as Postgres prints it.
func IndexDef(idx, on *catalog.Relation) string {
	_, name := catalog.SplitName(idx.Name)
	create := "CREATE INDEX"
	if idx.Index != nil && idx.Index.Unique {
		create = "CREATE UNIQUE INDEX"
	}
	return fmt.Sprintf("%s %s ON %s USING btree (%s)%s", create, expr.QuoteIdent(name),
		quoteQualified(on), indexKeyList(idx, on), indexInclude(idx, on))
}

// quoteQualified is a relation's name qualified by its schema, quoted
// where needed, as pg_get_indexdef writes it.
func quoteQualified(r *catalog.Relation) string {
	schema, name := catalog.SplitName(r.Name)
	return expr.QuoteIdent(schema) + "." + expr.QuoteIdent(name)
}

// indexKeyList renders the key columns of idx as Postgres does: DESC,
// and NULLS FIRST / LAST where it is not the direction's default.
func indexKeyList(idx, on *catalog.Relation) string {
	parts := make([]string, len(idx.Index.Keys))
	for i, k := range idx.Index.Keys {
		parts[i] = indexKeyText(k, on)
	}
	return strings.Join(parts, ", ")
}

func indexKeyText(k catalog.IndexKey, on *catalog.Relation) string {
	s := expr.QuoteIdent(on.Columns[k.Column].Name)
	switch {
	case k.Desc && !k.NullsFirst:
		s += " DESC NULLS LAST"
	case k.Desc:
		s += " DESC"
	case k.NullsFirst:
		s += " NULLS FIRST"
	}
	return s
}

func indexInclude(idx, on *catalog.Relation) string {
	if len(idx.Index.Include) == 0 {
		return ""
	}
	names := make([]string, len(idx.Index.Include))
	for i, c := range idx.Index.Include {
		names[i] = expr.QuoteIdent(on.Columns[c].Name)
	}
	return " INCLUDE (" + strings.Join(names, ", ") + ")"
}

// PKIndexName returns the name of the index behind r's primary key, when
// r has one to show (a table with a declared primary key).
func PKIndexName(r *catalog.Relation) (string, bool) {
	if !hasPKIndex(r) {
		return "", false
	}
	return pkIndexName(r), true
}

// indexAttrs are the columns pg_attribute and pg_index give an index:
// its key columns, then its INCLUDE columns, as written (one column may
// appear more than once), named after the indexed relation's columns.
func indexAttrs(idx *catalog.Relation) []int {
	out := make([]int, 0, len(idx.Index.Keys)+len(idx.Index.Include))
	for _, k := range idx.Index.Keys {
		out = append(out, k.Column)
	}
	return append(out, idx.Index.Include...)
}

// nameDataLen is Postgres's NAMEDATALEN: names are at most 63 bytes.
const nameDataLen = 64

// IndexColumnNames returns the names of an index's columns (key, then
// INCLUDE), given the indexed columns' names, as Postgres's
// ChooseIndexColumnNames makes them: a name used already gets a number
// (a, a1, a2 ...).
func IndexColumnNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, orig := range names {
		cur := orig
		for i := 1; containsName(out, cur); i++ {
			n := fmt.Sprint(i)
			cur = clipName(orig, nameDataLen-1-len(n)) + n
		}
		out = append(out, cur)
	}
	return out
}

func containsName(names []string, s string) bool {
	for _, n := range names {
		if n == s {
			return true
		}
	}
	return false
}

// ChooseIndexName returns the name Postgres gives an index created
// without one: table_col1_col2_idx over its column names
// (IndexColumnNames), shortened to fit 63 bytes, with idx1, idx2 ... in
// place of idx while taken says the name is in use.
func ChooseIndexName(table string, colNames []string, taken func(string) bool) string {
	var b strings.Builder
	for _, n := range IndexColumnNames(colNames) {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(clipName(n, nameDataLen-1))
		if b.Len() >= nameDataLen {
			break
		}
	}
	label := "idx"
	for pass := 1; ; pass++ {
		name := makeObjectName(table, b.String(), label)
		if !taken(name) {
			return name
		}
		label = fmt.Sprintf("idx%d", pass)
	}
}

// makeObjectName is Postgres's: name1_name2_label, the longer of name1
// and name2 shortened first until it fits in 63 bytes.
func makeObjectName(name1, name2, label string) string {
	n1, n2 := len(name1), len(name2)
	avail := nameDataLen - 1 - len(label) - 1
	if name2 != "" {
		avail--
	}
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	name := clipName(name1, n1)
	if name2 != "" {
		name += "_" + clipName(name2, n2)
	}
	return name + "_" + label
}

// clipName cuts s to at most n bytes, at a character boundary.
func clipName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// indexedRelations returns the relations that have an index listed.
func (v *view) indexedRelations() map[uint32]bool {
	out := map[uint32]bool{}
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex && r.Index != nil {
			out[r.Index.Table] = true
		}
	}
	return out
}

// indexOn returns the relation index idx is on.
func (v *view) indexOn(idx *catalog.Relation) (*catalog.Relation, bool) {
	if idx.Index == nil {
		return nil, false
	}
	return v.e.RelationByID(idx.Index.Table)
}

// indexClassRow is the pg_class row of an index.
func (v *view) indexClassRow(r *catalog.Relation) []types.Datum {
	natts := int64(0)
	if r.Index != nil {
		natts = int64(len(indexAttrs(r)))
	}
	ns, name := v.relSchema(r)
	return []types.Datum{relOID(r), name, ns, int64(0), int64(0), int64(roleSuper), int64(amBtree), relOID(r),
		int64(0), int64(0), float64(-1), int64(0), int64(0), false, false, "p", "i",
		natts, int64(0), false, false, false, false, false, true, "n", false,
		int64(0), int64(0), int64(0), nil, nil, nil}
}

// indexAttributeRows are the pg_attribute rows of an index's columns.
func (v *view) indexAttributeRows(idx *catalog.Relation) [][]types.Datum {
	on, ok := v.indexOn(idx)
	if !ok {
		return nil
	}
	attrs := indexAttrs(idx)
	names := make([]string, len(attrs))
	for i, c := range attrs {
		names[i] = on.Columns[c].Name
	}
	names = IndexColumnNames(names)
	rows := make([][]types.Datum, len(attrs))
	for i, c := range attrs {
		rows[i] = attributeRow(relOID(idx), catalog.Column{Name: names[i], Type: on.Columns[c].Type}, int64(i+1))
	}
	return rows
}

// indexRow is the pg_index row of an index: never unique nor primary,
// valid and ready once created; indoption holds DESC (1) and NULLS FIRST
// (2) of each key column.
func (v *view) indexRow(idx *catalog.Relation) []types.Datum {
	on, ok := v.indexOn(idx)
	if !ok {
		return nil
	}
	nums := attnums(on)
	attrs := indexAttrs(idx)
	keys := make([]types.Datum, len(attrs))
	for i, c := range attrs {
		keys[i] = nums[c]
	}
	nkeys := len(idx.Index.Keys)
	colls, classes, opts := make([]types.Datum, nkeys), make([]types.Datum, nkeys), make([]types.Datum, nkeys)
	for i, k := range idx.Index.Keys {
		colls[i], classes[i] = typeInfoOf(on.Columns[k.Column].Type).collation, int64(0)
		o := int64(0)
		if k.Desc {
			o |= 1
		}
		if k.NullsFirst {
			o |= 2
		}
		opts[i] = o
	}
	oidType := types.Type{ID: types.IDOid}
	return []types.Datum{relOID(idx), relOID(on), int64(len(attrs)), int64(nkeys),
		enforcedUnique(idx, on), false, false, false, true, false, true, false, true, true, false,
		types.FormatArray(keys, types.TInt16), types.FormatArray(colls, oidType), types.FormatArray(classes, oidType),
		types.FormatArray(opts, types.TInt16), nil, nil}
}

// indexColumnDef is pg_get_indexdef(idx, col, ...) for col > 0: the
// name of the index's col-th column (key or INCLUDE); "" past them.
func indexColumnDef(idx, on *catalog.Relation, col int64) string {
	attrs := indexAttrs(idx)
	if col < 1 || int(col) > len(attrs) {
		return ""
	}
	return expr.QuoteIdent(on.Columns[attrs[col-1]].Name)
}

// enforcedUnique reports whether idx is the index of one of on's UNIQUE
// constraints (an index whose CREATE UNIQUE INDEX a crash interrupted
// before its keys were checked is not).
func enforcedUnique(idx, on *catalog.Relation) bool {
	for _, u := range on.Uniques {
		if u.Index == idx.ID {
			return true
		}
	}
	return false
}
