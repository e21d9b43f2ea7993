package systemcatalog

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/expr"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// Sequences and the column rules in the catalogs: pg_sequence and
// pg_sequences (and information_schema.sequences) list the sequences,
// pg_depend the columns that own them (what psql's \d shows as "Owned
// by"), pg_constraint the CHECK constraints (contype 'c'), whose
// pg_get_constraintdef is CHECK (expr) as written.

var (
	pgDepend      = newTable(nsPgCatalog, "pg_depend", 2608, "r", dependRows, `classid oid, objid oid, objsubid integer, refclassid oid, refobjid oid, refobjsubid integer, deptype "char"`)
	infoSequences = newTable(nsInfo, "sequences", 13428, "v", infoSequenceRows, `sequence_catalog sql_identifier, sequence_schema sql_identifier, sequence_name sql_identifier, data_type character_data, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, start_value character_data, minimum_value character_data, maximum_value character_data, increment character_data, cycle_option yes_or_no`)
)

// checkOIDBase marks the OIDs of CHECK constraints: checkOIDBase |
// relOID<<checkOIDShift | k for the k-th CHECK of a relation.
const (
	checkOIDBase  = 1 << 28
	checkOIDShift = 6
)

func checkOID(r *catalog.Relation, k int) int64 {
	return checkOIDBase | relOID(r)<<checkOIDShift | int64(k)
}

// uniqueOID is the OID of the k-th UNIQUE constraint of r.
func uniqueOID(r *catalog.Relation, k int) int64 {
	return checkOIDBase | relOID(r)<<checkOIDShift | int64(1<<(checkOIDShift-1)+k)
}

// uniqueByOID returns the relation and UNIQUE constraint of an OID
// uniqueOID made.
func (v *view) uniqueByOID(oid int64) (*catalog.Relation, *catalog.Unique, bool) {
	if oid&checkOIDBase == 0 || oid >= constraintOIDBit {
		return nil, nil, false
	}
	rest := oid &^ checkOIDBase
	r, ok := v.relByOID(rest >> checkOIDShift)
	k := int(rest&(1<<checkOIDShift-1)) - 1<<(checkOIDShift-1)
	if !ok || k < 0 || k >= len(r.Uniques) {
		return nil, nil, false
	}
	return r, &r.Uniques[k], true
}

// uniqueConstraintDef is pg_get_constraintdef of a UNIQUE constraint.
func uniqueConstraintDef(r *catalog.Relation, u *catalog.Unique) string {
	names := make([]string, len(u.Columns))
	for i, c := range u.Columns {
		names[i] = expr.QuoteIdent(r.Columns[c].Name)
	}
	return "UNIQUE (" + strings.Join(names, ", ") + ")"
}

// checkByOID returns the relation and CHECK constraint of a check OID.
func (v *view) checkByOID(oid int64) (*catalog.Relation, *catalog.Check, bool) {
	if oid&checkOIDBase == 0 || oid >= constraintOIDBit {
		return nil, nil, false
	}
	rest := oid &^ checkOIDBase
	r, ok := v.relByOID(rest >> checkOIDShift)
	k := int(rest & (1<<checkOIDShift - 1))
	if !ok || k >= len(r.Checks) {
		return nil, nil, false
	}
	return r, &r.Checks[k], true
}

// checkConstraintRows are pg_constraint's rows of the CHECK constraints.
func checkConstraintRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		ns, _ := v.relSchema(r)
		for k, c := range r.Checks {
			rows = append(rows, []types.Datum{checkOID(r, k), c.Name, ns, "c",
				false, false, true, relOID(r), int64(0), int64(0), int64(0), int64(0), " ", " ", " ",
				true, int64(0), false, nil, nil, nil, nil, nil, nil, nil, c.Expr})
		}
		nums := attnums(r)
		for k, u := range r.Uniques {
			if u.IndexOnly {
				continue // CREATE UNIQUE INDEX makes no constraint
			}
			keys := make([]types.Datum, len(u.Columns))
			for i, c := range u.Columns {
				keys[i] = nums[c]
			}
			_, name := catalog.SplitName(u.Name)
			rows = append(rows, []types.Datum{uniqueOID(r, k), name, ns, "u",
				false, false, true, relOID(r), int64(0), int64(catalog.FirstUserOID) + int64(u.Index), int64(0), int64(0), " ", " ", " ",
				true, int64(0), true, types.FormatArray(keys, types.TInt16), nil, nil, nil, nil, nil, nil, nil})
		}
	}
	return rows
}

func seqTypeOID(s *catalog.Sequence) int64 { return int64(s.Type.OID()) }

func sequenceRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if s := r.Sequence; s != nil {
			rows = append(rows, []types.Datum{relOID(r), seqTypeOID(s), s.Start, s.Increment, s.Max, s.Min, s.Cache, s.Cycle})
		}
	}
	return rows
}

func sequencesViewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		s := r.Sequence
		if s == nil {
			continue
		}
		ns, name := v.relSchema(r)
		var last types.Datum
		if l, called, err := v.e.SequenceState(r.ID); err == nil && called {
			last = l
		}
		rows = append(rows, []types.Datum{v.nsName(ns), name, v.id.User, seqTypeOID(s), s.Start, s.Min, s.Max, s.Increment, s.Cycle, s.Cache, last})
	}
	return rows
}

func infoSequenceRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		s := r.Sequence
		if s == nil || v.identitySequence(s) {
			continue // PostgreSQL leaves out identity columns' sequences
		}
		ns, name := v.relSchema(r)
		prec := map[types.ID]int64{types.IDInt16: 16, types.IDInt32: 32, types.IDInt64: 64}[s.Type.ID]
		f := func(n int64) string { return strconv.FormatInt(n, 10) }
		rows = append(rows, []types.Datum{v.id.Database, v.nsName(ns), name, s.Type.String(), prec, int64(2), int64(0),
			f(s.Start), f(s.Min), f(s.Max), f(s.Increment), yesNo(s.Cycle)})
	}
	return rows
}

// dependRows are the dependencies psql's \d reads: of a sequence on the
// column that owns it ('a' for serial and OWNED BY, 'i' for identity).
func dependRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		s := r.Sequence
		if s == nil || s.OwnedBy == 0 {
			continue
		}
		t, ok := v.e.RelationByID(s.OwnedBy)
		if !ok {
			continue
		}
		nums := attnums(t)
		for i, c := range t.Columns {
			if c.Name != s.OwnedColumn || nums[i] == 0 {
				continue
			}
			dep := "a"
			if c.Identity != "" {
				dep = "i"
			}
			rows = append(rows, []types.Datum{int64(pgClass.oid), relOID(r), int64(0), int64(pgClass.oid), relOID(t), nums[i], dep})
		}
	}
	return rows
}

// columnDefault is what pg_attrdef holds for column c: its DEFAULT, or
// its generation expression.
func columnDefault(c catalog.Column) string {
	if c.Generated != "" {
		return c.Generated
	}
	return c.Default
}

// attGenerated is pg_attribute.attgenerated of c.
func attGenerated(c catalog.Column) string {
	if c.Generated != "" {
		return "s"
	}
	return ""
}

// identitySequence reports whether s is the sequence of an identity
// column.
func (v *view) identitySequence(s *catalog.Sequence) bool {
	t, ok := v.e.RelationByID(s.OwnedBy)
	if !ok || s.OwnedBy == 0 {
		return false
	}
	for _, c := range t.Columns {
		if c.Name == s.OwnedColumn && c.Identity != "" {
			return true
		}
	}
	return false
}
