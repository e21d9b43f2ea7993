package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindCreateSequence binds CREATE SEQUENCE: its options resolved and
// checked as PostgreSQL's (init_params), OWNED BY resolved to a column.
func (b *binder) bindCreateSequence(s *sql.CreateSequenceStmt) (*planner.CreateSequence, error) {
	name, err := b.creationName(s.Name)
	if err != nil {
		return nil, err
	}
	seq, _, err := ResolveSequence(s.Opts, nil)
	if err != nil {
		return nil, err
	}
	if err := b.bindOwnedBy(s.Opts, seq); err != nil {
		return nil, err
	}
	return &planner.CreateSequence{Name: name, IfNotExists: s.IfNotExists, Seq: *seq}, nil
}

// bindAlterSequence binds ALTER SEQUENCE against the sequence's options
// as they are now.
func (b *binder) bindAlterSequence(s *sql.AlterSequenceStmt) (*planner.AlterSequence, error) {
	r, ok := b.lookupName(s.Name)
	if !ok {
		if s.IfExists {
			return &planner.AlterSequence{Name: s.Name, Missing: true}, nil
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s.Name)
	}
	if r.Kind != catalog.KindSequence {
		return nil, pgerr.New(WrongObjectType, "%q is not a sequence", ownName(r))
	}
	seq, restart, err := ResolveSequence(s.Opts, r.Sequence)
	if err != nil {
		return nil, err
	}
	if err := b.bindOwnedBy(s.Opts, seq); err != nil {
		return nil, err
	}
	return &planner.AlterSequence{Name: r.Name, Seq: *seq, Restart: restart}, nil
}

// bindOwnedBy resolves OWNED BY table.column (or NONE) into seq.
func (b *binder) bindOwnedBy(o sql.SequenceOptions, seq *catalog.Sequence) error {
	if !o.HasOwnedBy {
		return nil
	}
	if o.OwnedBy == "none" {
		seq.OwnedBy, seq.OwnedColumn = 0, ""
		return nil
	}
	dot := strings.LastIndexByte(o.OwnedBy, '.')
	if dot < 0 {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid OWNED BY option")
		e.Hint = "Specify OWNED BY table.column or OWNED BY NONE."
		return e
	}
	tn, col := o.OwnedBy[:dot], o.OwnedBy[dot+1:]
	r, ok := b.lookupName(tn)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", tn)
	}
	if r.Kind != catalog.KindTable {
		return pgerr.New(pgerr.ObjectNotInPrereqState, "sequence cannot be owned by relation %q", ownName(r))
	}
	for _, c := range r.Columns {
		if c.Name == col && !c.Hidden {
			seq.OwnedBy, seq.OwnedColumn = r.ID, col
			return nil
		}
	}
	return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, ownName(r))
}

// ResolveSequence returns the options o give a new sequence (old nil) or
// an existing one (old), checked as PostgreSQL checks them (init_params),
// and the value of RESTART [WITH] when o has one.
func ResolveSequence(o sql.SequenceOptions, old *catalog.Sequence) (*catalog.Sequence, *int64, error) {
	seq := &catalog.Sequence{Type: types.TInt64, Increment: 1, Cache: 1}
	if old != nil {
		*seq = *old
	}
	resetMin, resetMax, err := resolveSequenceType(o, old, seq)
	if err != nil {
		return nil, nil, err
	}
	if o.Increment != nil {
		if *o.Increment == 0 {
			return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
		}
		seq.Increment = *o.Increment
	}
	if o.Cycle != nil {
		seq.Cycle = *o.Cycle
	}
	if err := resolveSequenceBounds(o, seq, resetMin, resetMax); err != nil {
		return nil, nil, err
	}
	if err := resolveSequenceStart(o, old == nil, seq); err != nil {
		return nil, nil, err
	}
	restart, err := sequenceRestart(o, seq)
	if err != nil {
		return nil, nil, err
	}
	if o.Cache != nil {
		if *o.Cache <= 0 {
			return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", *o.Cache)
		}
		seq.Cache = *o.Cache
	}
	return seq, restart, nil
}

// resolveSequenceType sets seq's AS type; it reports whether the bounds
// are to be reset to the type's defaults: for a new sequence, for NO
// MINVALUE / NO MAXVALUE, and for the bounds that were the old type's
// defaults when the type changes.
func resolveSequenceType(o sql.SequenceOptions, old, seq *catalog.Sequence) (resetMin, resetMax bool, err error) {
	resetMin, resetMax = old == nil || o.NoMin, old == nil || o.NoMax
	if o.Type == "" {
		return resetMin, resetMax, nil
	}
	t, err := parseTypeName(o.Type)
	if err != nil {
		return false, false, err
	}
	if t.ID != types.IDInt16 && t.ID != types.IDInt32 && t.ID != types.IDInt64 {
		return false, false, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
	}
	if old != nil && t != seq.Type {
		oldLo, oldHi := catalog.SequenceTypeRange(seq.Type)
		resetMax = resetMax || seq.Increment > 0 && seq.Max == oldHi || seq.Increment < 0 && seq.Max == -1
		resetMin = resetMin || seq.Increment > 0 && seq.Min == 1 || seq.Increment < 0 && seq.Min == oldLo
	}
	seq.Type = t
	return resetMin, resetMax, nil
}

// resolveSequenceBounds sets and checks seq's MINVALUE and MAXVALUE.
func resolveSequenceBounds(o sql.SequenceOptions, seq *catalog.Sequence, resetMin, resetMax bool) error {
	lo, hi := catalog.SequenceTypeRange(seq.Type)
	switch {
	case o.Max != nil:
		seq.Max = *o.Max
	case resetMax && seq.Increment > 0:
		seq.Max = hi
	case resetMax:
		seq.Max = -1
	}
	switch {
	case o.Min != nil:
		seq.Min = *o.Min
	case resetMin && seq.Increment > 0:
		seq.Min = 1
	case resetMin:
		seq.Min = lo
	}
	typeName := seqTypeName(seq.Type)
	if seq.Max < lo || seq.Max > hi {
		return pgerr.New(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", seq.Max, typeName)
	}
	if seq.Min < lo || seq.Min > hi {
		return pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", seq.Min, typeName)
	}
	if seq.Min >= seq.Max {
		return pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", seq.Min, seq.Max)
	}
	return nil
}

// resolveSequenceStart sets and checks seq's START (by default the
// bound it counts away from, for a new sequence).
func resolveSequenceStart(o sql.SequenceOptions, isNew bool, seq *catalog.Sequence) error {
	switch {
	case o.Start != nil:
		seq.Start = *o.Start
	case isNew && seq.Increment > 0:
		seq.Start = seq.Min
	case isNew:
		seq.Start = seq.Max
	}
	if seq.Start < seq.Min {
		return pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", seq.Start, seq.Min)
	}
	if seq.Start > seq.Max {
		return pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", seq.Start, seq.Max)
	}
	return nil
}

// sequenceRestart is the value of RESTART [WITH n] (START without n),
// nil without RESTART.
func sequenceRestart(o sql.SequenceOptions, seq *catalog.Sequence) (*int64, error) {
	if !o.Restart {
		return nil, nil
	}
	v := seq.Start
	if o.RestartWith != nil {
		v = *o.RestartWith
	}
	if v < seq.Min {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", v, seq.Min)
	}
	if v > seq.Max {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", v, seq.Max)
	}
	return &v, nil
}

// seqTypeName is the name PostgreSQL gives a sequence's type.
func seqTypeName(t types.Type) string {
	switch t.ID {
	case types.IDInt16:
		return "smallint"
	case types.IDInt32:
		return "integer"
	}
	return "bigint"
}

// The catalog functions a SELECT from a sequence reads its state with:
// its last value (its START before any nextval) and whether a nextval
// returned it (is_called).
const (
	SequenceLastFunc   = "__sdb_sequence_last"
	SequenceCalledFunc = "__sdb_sequence_called"
)

// bindSequenceRow binds a sequence named in FROM: one row (last_value,
// log_cnt, is_called), as PostgreSQL shows a sequence, read when the
// query runs. A materialized view may not read one.
func (b *binder) bindSequenceRow(tn *ast.TableName, r *catalog.Relation, q string) (*rel, error) {
	fs := b.functions()
	reg := types.Type{ID: types.IDRegclass}
	var last, called *catalog.Func
	if fs != nil && !b.inView {
		last, _ = fs.Function(SequenceLastFunc, []types.Type{reg})
		called, _ = fs.Function(SequenceCalledFunc, []types.Type{reg})
	}
	if last == nil || called == nil {
		err := pgerr.New(pgerr.FeatureNotSupported, "reading sequence %q is not supported here", r.Name)
		err.Hint = "A materialized view cannot read a sequence."
		return nil, b.at(err, tn, tn.Name.O)
	}
	oid := expr.NewConst(int64(catalog.FirstUserOID)+int64(r.ID), reg)
	cols := []planner.Column{{Name: "last_value", Type: types.TInt64, Table: q}, {Name: "log_cnt", Type: types.TInt64, Table: q},
		{Name: "is_called", Type: types.TBool, Table: q}}
	row := []expr.Expr{expr.Native(SequenceLastFunc, []expr.Expr{oid}, types.TInt64, true, last.Eval), expr.NewConst(int64(0), types.TInt64),
		expr.Native(SequenceCalledFunc, []expr.Expr{oid}, types.TBool, true, called.Eval)}
	v := &planner.Values{Rows: [][]expr.Expr{row}, Cols: cols}
	return &rel{node: v, scope: scopeOf(cols, q)}, nil
}

// DefaultsUsing returns the columns of table r whose DEFAULT calls
// nextval, currval or setval of sequence seq (a serial column's, or one a
// user wrote).
func DefaultsUsing(cat catalog.Reader, r *catalog.Relation, seq uint32) ([]string, error) {
	b := newBinder(cat, &sql.Statement{}, Options{})
	oid := int64(catalog.FirstUserOID) + int64(seq)
	var out []string
	for _, c := range r.Columns {
		if c.Default == "" || c.Dropped || c.Identity != "" {
			continue
		}
		n, err := sql.ParseExpr(c.Default)
		if err != nil {
			return nil, err
		}
		e, err := b.bindDefault(n, c)
		if err != nil {
			continue // a default that no longer binds names no sequence
		}
		if callsSequence(e, oid) {
			out = append(out, c.Name)
		}
	}
	return out, nil
}

// callsSequence reports whether e calls a sequence function of the
// sequence whose OID is oid.
func callsSequence(e expr.Expr, oid int64) bool {
	if name, args, ok := expr.CallOf(e); ok && (name == "nextval" || name == "currval" || name == "setval") && len(args) > 0 {
		if k, isConst := args[0].(*expr.Const); isConst && k.Value == oid {
			return true
		}
	}
	for _, c := range e.Children() {
		if callsSequence(c, oid) {
			return true
		}
	}
	return false
}
