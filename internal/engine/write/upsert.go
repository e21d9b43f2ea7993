package write

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// upsertKey is what an INSERT ... ON CONFLICT knows of one primary key
// it touched: whether a row has it now, and whether the statement
// already inserted or updated that row (a second time is 21000, as in
// PostgreSQL). Only a row the statement has not changed is kept (row):
// a later proposal may update it.
type upsertKey struct {
	present, affected bool
	row               []types.Datum
}

// upsert is one INSERT ... ON CONFLICT. Its changes are staged as they
// are decided (in memory up to a bound, then in a temporary file, as
// UPDATE's: changeStage); the keys it touched stay in memory.
type upsert struct {
	t     *dmlTarget
	oc    *planner.OnConflict
	rules *planner.RowRules // the table's generated columns and CHECKs
	// genKey: rules generate a primary-key column, so a row's key is
	// known once they ran.
	genKey bool
	ret    Returned
	keys   map[string]*upsertKey
	stage  *changeStage
	probe  *storage.PrefixProbe
	n      int64 // rows inserted or updated
	row    []types.Datum
	both   []types.Datum
	// uniq checks the table's UNIQUE constraints (nil: none) over the
	// rows the statement leaves.
	uniq *uniqueChecker
}

// upsert runs an INSERT ... ON CONFLICT under the table's lock: each
// proposed row, in order, is inserted unless a row has its key (one
// committed, or one this statement left); then it is skipped (DO
// NOTHING) or updates that row (DO UPDATE, when WHERE holds). The
// changes commit together, as one statement's.
func (t *dmlTarget) upsert(ctx context.Context, ins *planner.Insert, ret Returned) (int64, error) {
	ex, err := planner.BuildBatch(ins.Source, t.w.e.Reader(t.snap))
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	probe, err := t.layout.NewPrefixProbe(t.snap)
	if err != nil {
		return 0, err
	}
	defer probe.Close()
	u := &upsert{t: t, oc: ins.OnConflict, rules: ins.Rules, genKey: generatesKey(ins.Rules, t.rel), ret: ret, keys: map[string]*upsertKey{},
		stage: newChangeStage(t.rel.ColumnTypes()), probe: probe}
	defer u.stage.close()
	if u.uniq, err = newUniqueChecker(t.w.e, t.cur); err != nil {
		return 0, err
	}
	defer u.uniq.close()
	for {
		c, err := ex.Next(ctx)
		if err != nil {
			return 0, err
		}
		if c == nil {
			break
		}
		err = u.chunk(c)
		c.Release()
		if err != nil {
			return 0, err
		}
	}
	if u.uniq != nil {
		if err := u.uniq.probe(t.snap, t.layout); err != nil {
			return 0, err
		}
	}
	if err := u.stage.finish(); err != nil {
		return 0, err
	}
	return u.n, t.commitStream(ctx, u.n, u.stage.held.chunks())
}

// chunk proposes the rows of c in order, having first read the
// committed rows of their keys in ascending key order (one forward walk
// of the probe, rather than a point read each).
func (u *upsert) chunk(c *chunk.Chunk) error {
	var fresh []string
	for i := 0; i < c.NumRows(); i++ {
		u.row = c.Row(i, u.row)
		if u.genKey {
			if err := generate(u.rules, u.row); err != nil {
				return err
			}
		}
		k, err := u.t.pkKey(u.row)
		if err != nil {
			return err
		}
		if _, ok := u.keys[k]; !ok {
			u.keys[k] = nil // read below
			fresh = append(fresh, k)
		}
	}
	slices.Sort(fresh)
	for _, k := range fresh {
		if err := u.read(k); err != nil {
			return err
		}
	}
	for i := 0; i < c.NumRows(); i++ {
		u.row = c.Row(i, u.row)
		if err := u.propose(u.row); err != nil {
			return err
		}
	}
	return nil
}

// read reads the committed row of key k into the key's state.
func (u *upsert) read(k string) error {
	old, ok, err := u.probe.GetAscendingInto([]byte(k), nil)
	if err != nil {
		return err
	}
	s := &upsertKey{present: ok}
	if ok {
		s.row = old
	}
	u.keys[k] = s
	return nil
}

// key returns the state of the key of row, reading the committed row
// the first time.
func (u *upsert) key(row []types.Datum) (string, *upsertKey, error) {
	k, err := u.t.pkKey(row)
	if err != nil {
		return "", nil, err
	}
	if s := u.keys[k]; s != nil {
		return k, s, nil
	}
	if err := u.read(k); err != nil {
		return "", nil, err
	}
	return k, u.keys[k], nil
}

// propose takes one proposed row (reused by the caller).
func (u *upsert) propose(row []types.Datum) error {
	t := u.t
	// As PostgreSQL: the proposed row's generated columns are computed
	// and its constraints checked before its key is looked at.
	if err := t.checkRules(u.rules, row); err != nil {
		return err
	}
	k, s, err := u.key(row)
	if err != nil {
		return err
	}
	if !s.present {
		s.present = true
		return u.insert(s, row)
	}
	if u.oc.DoNothing {
		return nil
	}
	if s.affected {
		e := pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time")
		e.Hint = "Ensure that no rows proposed for insertion within the same command have duplicate constrained values."
		return e
	}
	nw, err := u.updated(s.row, row)
	if err != nil || nw == nil {
		return err
	}
	k2, err := t.pkKey(nw)
	if err != nil {
		return err
	}
	u.uniq.free(k) // the row updated leaves its values
	if k2 == k {
		if err := u.uniq.add(nw); err != nil {
			return err
		}
		if err := u.stage.addPair(s.row, nw); err != nil {
			return err
		}
		return u.leave(s, nw)
	}
	// The update moves the row to another key, which must be free.
	_, s2, err := u.key(nw)
	if err != nil {
		return err
	}
	if s2.present {
		return t.duplicate(nw)
	}
	if err := u.stage.add(chunk.Delete, s.row); err != nil {
		return err
	}
	s.present = false
	s2.present = true
	s.affected, s.row = true, nil
	return u.insert(s2, nw)
}

// updated returns the row DO UPDATE makes of old for the proposed row,
// or nil when its WHERE does not hold.
func (u *upsert) updated(old, proposed []types.Datum) ([]types.Datum, error) {
	u.both = append(append(u.both[:0], old...), proposed...)
	if u.oc.Where != nil {
		v, err := u.oc.Where.Eval(u.both)
		if err != nil {
			return nil, err
		}
		if ok, _ := v.(bool); !ok {
			return nil, nil
		}
	}
	nw := append([]types.Datum(nil), old...)
	for j, col := range u.oc.Cols {
		v, err := u.oc.Set[j].Eval(u.both)
		if err != nil {
			return nil, err
		}
		nw[col] = v
	}
	return nw, u.t.checkRules(u.rules, nw)
}

func (u *upsert) insert(s *upsertKey, row []types.Datum) error {
	if err := u.uniq.add(row); err != nil {
		return err
	}
	if err := u.stage.add(chunk.Insert, row); err != nil {
		return err
	}
	return u.leave(s, row)
}

// leave records that the statement inserted or updated row under s's
// key.
func (u *upsert) leave(s *upsertKey, row []types.Datum) error {
	s.affected, s.row = true, nil
	u.n++
	if u.ret != nil {
		return u.ret(row)
	}
	return nil
}

// addPair adds an update's delete and insert to one chunk.
func (t *dmlTarget) addPair(old, nw []types.Datum) {
	if t.b.Len() >= dmlChunkRows-1 {
		t.chunks = append(t.chunks, t.b.Build())
	}
	t.b.Append(chunk.UpdateDelete, old)
	t.b.Append(chunk.UpdateInsert, nw)
}

// addPair stages an update's delete and insert in one chunk.
func (s *changeStage) addPair(old, nw []types.Datum) error {
	if s.b.Len() >= dmlChunkRows-1 {
		if err := s.held.put(s.b.Build()); err != nil {
			return err
		}
	}
	s.b.Append(chunk.UpdateDelete, old)
	return s.add(chunk.UpdateInsert, nw)
}
