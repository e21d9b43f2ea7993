package engine

import (
	"fmt"
	"slices"
	"sync"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/binder"
)

// createSequence runs CREATE SEQUENCE.
func (db *DB) createSequence(cs *planner.CreateSequence, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(cs.Name, cs.IfNotExists, w); done || err != nil {
		if err != nil {
			return err
		}
		return w.Complete("CREATE SEQUENCE")
	}
	if _, err := db.addSequence(cs); err != nil {
		return err
	}
	return w.Complete("CREATE SEQUENCE")
}

// addSequence records a new sequence (caller holds ddlMu, and checked
// the name).
func (db *DB) addSequence(cs *planner.CreateSequence) (*catalog.Relation, error) {
	id, err := db.allocID()
	if err != nil {
		return nil, err
	}
	seq := cs.Seq
	rel := &catalog.Relation{ID: id, Name: cs.Name, Kind: catalog.KindSequence, State: catalog.StateCreated, Sequence: &seq}
	if err := db.saveRelation(rel); err != nil {
		return nil, err
	}
	db.mu.Lock()
	db.rels[rel.ID] = rel
	db.byName[rel.Name] = rel
	db.mu.Unlock()
	return rel, nil
}

// addOwnedSequences creates the sequences of table rel's serial and
// identity columns, owned by it (caller holds ddlMu).
func (db *DB) addOwnedSequences(ct *planner.CreateTable, rel *catalog.Relation) ([]*catalog.Relation, error) {
	var out []*catalog.Relation
	for _, cs := range ct.Sequences {
		if _, taken := db.Relation(cs.Name); taken {
			db.removeSequences(out)
			_, own := catalog.SplitName(cs.Name)
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", own)
		}
		c := *cs
		c.Seq.OwnedBy = rel.ID
		seq, err := db.addSequence(&c)
		if err != nil {
			db.removeSequences(out)
			return nil, err
		}
		out = append(out, seq)
		for i := range rel.Columns {
			if rel.Columns[i].Name == cs.Seq.OwnedColumn && rel.Columns[i].Identity != "" {
				rel.Columns[i].IdentitySeq = seq.ID
			}
		}
	}
	return out, nil
}

// removeSequences drops sequences made for a table that was not created.
func (db *DB) removeSequences(seqs []*catalog.Relation) {
	for _, s := range seqs {
		if err := db.dropSequence(s); err != nil {
			db.opts.Logger.Error("removing the sequence of a table not created", "sequence", s.Name, "err", err)
		}
	}
}

// alterSequence runs ALTER SEQUENCE.
func (db *DB) alterSequence(as *planner.AlterSequence, w ResultWriter) error {
	if as.Missing {
		if err := w.Notice("NOTICE", fmt.Sprintf("relation %q does not exist, skipping", as.Name)); err != nil {
			return err
		}
		return w.Complete("ALTER SEQUENCE")
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	old, ok := db.Relation(as.Name)
	if !ok || old.Kind != catalog.KindSequence {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", as.Name)
	}
	next := *old
	seq := as.Seq
	next.Sequence = &seq
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	if as.Restart != nil {
		if err := db.resetSequence(&next, *as.Restart, false); err != nil {
			return err
		}
	} else {
		db.invalidateSequenceBlock(next.ID)
	}
	return w.Complete("ALTER SEQUENCE")
}

// dropSequence removes a sequence's catalog entry and state (caller
// holds ddlMu).
func (db *DB) dropSequence(rel *catalog.Relation) error {
	if err := db.store.DeleteMeta(relKey(rel.ID)); err != nil {
		return err
	}
	db.unregister(rel)
	return db.forgetSequence(rel.ID)
}

// sequenceUser is a table whose columns' DEFAULTs call a sequence.
type sequenceUser struct {
	table *catalog.Relation
	cols  []string
}

// sequenceUsers returns the tables whose DEFAULTs call sequence rel.
func (db *DB) sequenceUsers(rel *catalog.Relation) ([]sequenceUser, error) {
	cat := db.NewSession().catalog()
	var out []sequenceUser
	for _, t := range db.relationsSorted() {
		if t.Kind != catalog.KindTable {
			continue
		}
		cols, err := binder.DefaultsUsing(cat, t, rel.ID)
		if err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			out = append(out, sequenceUser{t, cols})
		}
	}
	return out, nil
}

// checkSequenceDrop refuses DROP SEQUENCE of a sequence an identity
// column owns, or (without CASCADE) one a column's DEFAULT calls (a
// serial column's), as PostgreSQL does.
func (db *DB) checkSequenceDrop(rel *catalog.Relation, users []sequenceUser, cascade bool) error {
	if t, ok := db.RelationByID(rel.Sequence.OwnedBy); ok && rel.Sequence.OwnedBy != 0 {
		for _, c := range t.Columns {
			if c.Name == rel.Sequence.OwnedColumn && c.Identity != "" {
				e := pgerr.New(pgerr.DependentObjects, "cannot drop sequence %s because column %s of table %s requires it", ownNameOf(rel), c.Name, ownNameOf(t))
				e.Hint = fmt.Sprintf("You can drop column %s of table %s instead.", c.Name, ownNameOf(t))
				return e
			}
		}
	}
	if len(users) == 0 || cascade {
		return nil
	}
	e := pgerr.New(pgerr.DependentObjects, "cannot drop sequence %s because other objects depend on it", ownNameOf(rel))
	e.Detail = fmt.Sprintf("default value for column %s of table %s depends on sequence %s", users[0].cols[0], ownNameOf(users[0].table), ownNameOf(rel))
	e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
	return e
}

// dropSequenceDefaults removes, for DROP SEQUENCE ... CASCADE, the
// DEFAULTs that call the sequence.
func (db *DB) dropSequenceDefaults(users []sequenceUser, w ResultWriter) error {
	for _, u := range users {
		t, ok := db.RelationByID(u.table.ID)
		if !ok {
			continue
		}
		next := *t
		next.Columns = append([]catalog.Column(nil), t.Columns...)
		for i, c := range next.Columns {
			if !slices.Contains(u.cols, c.Name) {
				continue
			}
			if err := w.Notice("NOTICE", fmt.Sprintf("drop cascades to default value for column %s of table %s", c.Name, ownNameOf(t))); err != nil {
				return err
			}
			next.Columns[i].Default = ""
		}
		if err := db.saveRelation(&next); err != nil {
			return err
		}
		db.replaceRelation(&next)
	}
	return nil
}

// dropOwnedSequences drops the sequences table t's columns own (caller
// holds ddlMu).
func (db *DB) dropOwnedSequences(t *catalog.Relation) error {
	for _, r := range db.relationsSorted() {
		if r.Kind == catalog.KindSequence && r.Sequence.OwnedBy == t.ID {
			if err := db.dropSequence(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func ownNameOf(r *catalog.Relation) string {
	_, n := catalog.SplitName(r.Name)
	return n
}

// sessionSequences is a session's view of the sequences: the value each
// returned last in it (currval) and the one nextval used last (lastval).
type sessionSequences struct {
	mu      sync.Mutex
	vals    map[uint32]int64
	last    uint32
	hasLast bool
}

// sequenceFunction returns nextval, currval, setval or lastval (or the
// state a SELECT from a sequence reads) for arguments of types args,
// bound to session s; ok is false for other functions.
func (s *Session) sequenceFunction(name string, args []types.Type) (*catalog.Func, bool) {
	reg := types.Type{ID: types.IDRegclass}
	one := []types.Type{reg}
	switch {
	case name == "nextval" && len(args) == 1:
		return &catalog.Func{Params: one, Result: types.TInt64, Strict: true, Eval: s.nextval}, true
	case name == "currval" && len(args) == 1:
		return &catalog.Func{Params: one, Result: types.TInt64, Strict: true, Eval: s.currval}, true
	case name == "lastval" && len(args) == 0:
		return &catalog.Func{Result: types.TInt64, Eval: s.lastval}, true
	case name == SequenceLastFunc && len(args) == 1:
		return &catalog.Func{Params: one, Result: types.TInt64, Strict: true, Eval: s.sequenceState(false)}, true
	case name == SequenceCalledFunc && len(args) == 1:
		return &catalog.Func{Params: one, Result: types.TBool, Strict: true, Eval: s.sequenceState(true)}, true
	case name == "setval" && (len(args) == 2 || len(args) == 3):
		params := []types.Type{reg, types.TInt64, types.TBool}[:len(args)]
		return &catalog.Func{Params: params, Result: types.TInt64, Strict: true, Eval: s.setval}, true
	}
	return nil, false
}

// sequenceArg is the sequence id of a regclass argument.
func sequenceArg(a types.Datum) (uint32, error) {
	id, ok := systemcatalog.RelationIDOfOID(a.(int64))
	if !ok {
		return 0, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", a.(int64))
	}
	return id, nil
}

// remember records v as the session's currval of sequence id (and, for
// nextval, its lastval).
func (ss *sessionSequences) remember(id uint32, v int64, last bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.vals == nil {
		ss.vals = map[uint32]int64{}
	}
	ss.vals[id] = v
	if last {
		ss.last, ss.hasLast = id, true
	}
}

func (s *Session) nextval(a []types.Datum) (types.Datum, error) {
	id, err := sequenceArg(a[0])
	if err != nil {
		return nil, err
	}
	v, err := s.db.nextSequenceValue(id)
	if err != nil {
		return nil, err
	}
	s.seqs.remember(id, v, true)
	return v, nil
}

func (s *Session) currval(a []types.Datum) (types.Datum, error) {
	id, err := sequenceArg(a[0])
	if err != nil {
		return nil, err
	}
	rel, err := s.db.sequenceRelation(id)
	if err != nil {
		return nil, err
	}
	s.seqs.mu.Lock()
	v, ok := s.seqs.vals[id]
	s.seqs.mu.Unlock()
	if !ok {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState, "currval of sequence %q is not yet defined in this session", ownNameOf(rel))
	}
	return v, nil
}

func (s *Session) lastval([]types.Datum) (types.Datum, error) {
	s.seqs.mu.Lock()
	id, ok := s.seqs.last, s.seqs.hasLast
	v := s.seqs.vals[id]
	s.seqs.mu.Unlock()
	if ok {
		_, err := s.db.sequenceRelation(id)
		ok = err == nil
	}
	if !ok {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState, "lastval is not yet defined in this session")
	}
	return v, nil
}

// setval is setval(seq, v [, is_called]); currval becomes v only when
// is_called, as in PostgreSQL.
func (s *Session) setval(a []types.Datum) (types.Datum, error) {
	id, err := sequenceArg(a[0])
	if err != nil {
		return nil, err
	}
	v, called := a[1].(int64), true
	if len(a) == 3 {
		called = a[2].(bool)
	}
	if err := s.db.setSequenceValue(id, v, called); err != nil {
		return nil, err
	}
	if called {
		s.seqs.remember(id, v, false)
	}
	return v, nil
}

// sequenceState returns the function that reads a sequence's last value
// (or, with called, whether a nextval returned it).
func (s *Session) sequenceState(called bool) func(a []types.Datum) (types.Datum, error) {
	return func(a []types.Datum) (types.Datum, error) {
		id, err := sequenceArg(a[0])
		if err != nil {
			return nil, err
		}
		rel, err := s.db.sequenceRelation(id)
		if err != nil {
			return nil, err
		}
		last, isCalled, err := s.db.sequenceValues(rel)
		if called {
			return isCalled, err
		}
		return last, err
	}
}

// Function implements catalog.Functions: the sequence functions of the
// session, then the catalog's.
func (c sessionCatalog) Function(name string, args []types.Type) (*catalog.Func, bool) {
	if c.session != nil {
		if f, ok := c.session.sequenceFunction(name, args); ok {
			return f, true
		}
	}
	return c.Functions.Function(name, args)
}

// restartOwnedSequences starts the sequences table id's columns own over
// (TRUNCATE ... RESTART IDENTITY).
func (db *DB) restartOwnedSequences(id uint32) error {
	for _, r := range db.relationsSorted() {
		if r.Kind == catalog.KindSequence && r.Sequence.OwnedBy == id {
			if err := db.resetSequence(r, r.Sequence.Start, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropOrphanSequences drops, at Open, the sequences owned by a table
// that does not exist: a crash interrupted the CREATE TABLE that made
// them, or the DROP TABLE that dropped the table.
func (db *DB) dropOrphanSequences() error {
	for _, r := range db.relationsSorted() {
		if r.Kind != catalog.KindSequence || r.Sequence.OwnedBy == 0 {
			continue
		}
		if _, ok := db.rels[r.Sequence.OwnedBy]; ok {
			continue
		}
		if err := db.dropSequence(r); err != nil {
			return err
		}
	}
	return nil
}

// The functions a SELECT from a sequence reads its state with
// (binder.SequenceRow).
const (
	SequenceLastFunc   = binder.SequenceLastFunc
	SequenceCalledFunc = binder.SequenceCalledFunc
)
