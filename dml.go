package streamdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/streamdb/streamdb/exec/expr"
	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// dmlChunkRows is how many rows a DML chunk carries.
const dmlChunkRows = 1024

func newDMLMutex() *sync.Mutex { return new(sync.Mutex) }

// dmlTarget is a table locked for one DML statement: no other statement
// changes it until this one has committed (or failed), so primary-key
// checks against committed state are exact.
type dmlTarget struct {
	db     *DB
	rel    *catalog.Relation
	rt     *relRuntime
	layout *storage.Table
	snap   *storage.Snapshot
	chunks []*chunk.Chunk
	b      *chunk.Builder
	// empty is 1 when the table held no rows in snap, -1 when it did, 0
	// until known: inserts into an empty table need no key lookups.
	empty int8
}

// snapEmpty reports whether the table held no rows in the snapshot.
func (t *dmlTarget) snapEmpty() (bool, error) {
	if t.empty == 0 {
		it := t.layout.Scan(t.snap)
		t.empty = 1
		if it.Next() {
			t.empty = -1
		}
		err := it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.empty = 0
			return false, err
		}
	}
	return t.empty > 0, nil
}

func (db *DB) lockTable(rel *catalog.Relation) (*dmlTarget, error) {
	db.mu.RLock()
	rt := db.runtime[rel.ID]
	db.mu.RUnlock()
	if rt == nil || rt.dml == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
	}
	rt.dml.Lock()
	db.mu.RLock()
	cur := db.runtime[rel.ID]
	db.mu.RUnlock()
	if cur == nil {
		rt.dml.Unlock()
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
	}
	return &dmlTarget{db: db, rel: rel, rt: cur, layout: planner.TableLayout(rel),
		snap: db.store.Snapshot(), b: chunk.NewBuilder(rel.ColumnTypes())}, nil
}

func (t *dmlTarget) unlock() {
	t.snap.Close()
	t.b.Release()
	for _, c := range t.chunks {
		c.Release()
	}
	t.rt.dml.Unlock()
}

func (t *dmlTarget) add(op chunk.Op, row []types.Datum) {
	t.b.Append(op, row)
	if t.b.Len() >= dmlChunkRows {
		t.chunks = append(t.chunks, t.b.Build())
	}
}

// commit sends the statement's changes (rows of them: the statement's
// row count) into the table's source and waits until they are committed;
// see commitStream.
func (t *dmlTarget) commit(ctx context.Context, rows int64) error {
	if t.b.Len() > 0 {
		t.chunks = append(t.chunks, t.b.Build())
	}
	chunks := t.chunks
	t.chunks = nil
	return t.commitStream(ctx, rows, func() (*chunk.Chunk, error) {
		if len(chunks) == 0 {
			return nil, nil
		}
		c := chunks[0]
		chunks[0], chunks = nil, chunks[1:]
		return c, nil
	})
}

// commitStream sends the chunks next returns (each handed over; nil at
// the end), rows in all, into the table's source, holding it so no
// barrier splits them, and waits until they are committed. Under a DML
// rate limit it first waits for the table's limiter (see dmlLimiter),
// before it takes the source, so a throttled or paused statement never
// holds barriers. If next fails once some chunks are sent, the open epoch
// is aborted so that none of them commits.
func (t *dmlTarget) commitStream(ctx context.Context, rows int64, next func() (*chunk.Chunk, error)) error {
	first, err := next()
	if err != nil || first == nil {
		return err
	}
	if err := t.rt.limiter.wait(ctx, t.db.closing, t.rel.Name, rows); err != nil {
		first.Release()
		return err
	}
	// The source may have been replaced by a recovery since we looked.
	t.db.mu.RLock()
	rt := t.db.runtime[t.rel.ID]
	t.db.mu.RUnlock()
	if rt == nil {
		first.Release()
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", t.rel.Name)
	}
	done := t.db.coord.Done()
	if err := rt.source.Acquire(ctx); err != nil {
		first.Release()
		return pgerr.As(err)
	}
	if err := t.send(rt.source, done, first, next); err != nil {
		return err
	}
	// Once sent, the changes commit with the next barrier whatever the
	// client does; wait for that regardless of cancellation. CommitSource
	// (not Checkpoint) fails if the graph the changes went into was torn
	// down before they committed, even when a rebuilt graph serves the call.
	if err := t.db.coord.CommitSource(context.Background(), rt.source); err != nil {
		if errors.Is(err, storage.ErrStoreFailed) {
			return err // not a retry: the store takes no more writes
		}
		return pgerr.Wrap(err, pgerr.SerializationFailure, "could not commit")
	}
	return nil
}

// send sends c and the chunks after it into src, which it holds, and
// releases src.
func (t *dmlTarget) send(src *stream.Source, done <-chan struct{}, c *chunk.Chunk, next func() (*chunk.Chunk, error)) error {
	for c != nil {
		select {
		case src.C <- stream.Message{Chunk: c}:
		case <-done:
			c.Release()
			src.Release()
			return t.restarted()
		case <-src.Dead():
			c.Release()
			src.Release()
			return t.restarted()
		}
		var err error
		if c, err = next(); err != nil {
			t.abort(src, err)
			return err
		}
	}
	src.Release()
	return nil
}

// abort fails the epoch that part of the statement's changes went into,
// and releases src once its graph is gone, so no barrier can follow them.
func (t *dmlTarget) abort(src *stream.Source, cause error) {
	t.db.coord.Abort(fmt.Errorf("streamdb: statement on %q failed after sending part of its changes: %w", t.rel.Name, cause))
	<-src.Dead()
	src.Release()
}

func (t *dmlTarget) restarted() error {
	if err := t.db.store.Failed(); err != nil {
		return err
	}
	return pgerr.New(pgerr.SerializationFailure, "could not write to %q: the streaming graph restarted; retry the statement", t.rel.Name)
}

func (db *DB) insert(ctx context.Context, ins *planner.Insert) (int64, error) {
	t, err := db.lockTable(ins.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	ex, err := planner.BuildBatch(ins.Source, &snapshotSource{db: t.db, snap: t.snap})
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	ck := &insertCheck{t: t, seen: map[string]bool{}}
	defer ck.close()
	var n int64
	for {
		c, err := ex.Next(ctx)
		if err != nil {
			return 0, err
		}
		if c == nil {
			break
		}
		rows, err := ck.chunk(c)
		c.Release()
		if err != nil {
			return 0, err
		}
		for _, row := range rows {
			t.add(chunk.Insert, row)
		}
		n += int64(len(rows))
	}
	return n, t.commit(ctx, n)
}

// insertCheck checks the rows an INSERT adds, a chunk at a time: it fills
// generated row ids and checks NOT NULL and primary-key uniqueness
// (against committed rows and the statement's own). The keys of a chunk
// are looked up in the table in ascending order with one iterator
// (storage.KeyProbe) rather than one point read each, and the error
// reported is the first row's in input order, as row-by-row checks give.
type insertCheck struct {
	t     *dmlTarget
	seen  map[string]bool
	probe *storage.KeyProbe
	keys  []probeKey
}

type probeKey struct {
	key string
	row int
}

func (k *insertCheck) close() {
	if k.probe != nil {
		k.probe.Close()
	}
}

// chunk checks the rows of c and returns them (copies).
func (k *insertCheck) chunk(c *chunk.Chunk) ([][]types.Datum, error) {
	t := k.t
	n := c.NumRows()
	rows := make([][]types.Datum, 0, n)
	k.keys = k.keys[:0]
	// Row by row: everything but the lookups. firstErr is the first row
	// that fails so; the rows before it are then looked up.
	var firstErr error
	for i := 0; i < n; i++ {
		row := c.Row(i, nil)
		if t.rel.RowID {
			row[t.rel.PK[0]] = t.db.rowIDs.next()
		}
		if err := t.checkNotNull(row); err != nil {
			firstErr = err
			break
		}
		rows = append(rows, row)
		if t.rel.RowID {
			continue
		}
		key, err := t.pkKey(row)
		if err != nil {
			return nil, err
		}
		if k.seen[key] {
			firstErr = t.duplicate(row)
			break
		}
		k.seen[key] = true
		k.keys = append(k.keys, probeKey{key, len(rows) - 1})
	}
	bad, err := k.lookup()
	if err != nil {
		return nil, err
	}
	if bad >= 0 {
		return nil, t.duplicate(rows[bad])
	}
	return rows, firstErr
}

// lookup returns the first row (in input order) of k.keys whose key the
// table holds, or -1.
func (k *insertCheck) lookup() (int, error) {
	if len(k.keys) == 0 {
		return -1, nil
	}
	if empty, err := k.t.snapEmpty(); err != nil || empty {
		return -1, err
	}
	if k.probe == nil {
		p, err := k.t.layout.NewKeyProbe(k.t.snap)
		if err != nil {
			return -1, err
		}
		k.probe = p
	}
	slices.SortFunc(k.keys, func(a, b probeKey) int { return strings.Compare(a.key, b.key) })
	bad := -1
	for _, pk := range k.keys {
		if bad >= 0 && pk.row > bad {
			continue
		}
		has, err := k.probe.Has([]byte(pk.key))
		if err != nil {
			return -1, err
		}
		if has {
			bad = pk.row
		}
	}
	return bad, nil
}

func (t *dmlTarget) checkNotNull(row []types.Datum) error {
	for i, c := range t.rel.Columns {
		if row[i] == nil && c.NotNull {
			e := pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, t.rel.Name)
			return e
		}
	}
	return nil
}

func (t *dmlTarget) pk(row []types.Datum) []types.Datum {
	out := make([]types.Datum, len(t.rel.PK))
	for i, k := range t.rel.PK {
		out[i] = row[k]
	}
	return out
}

// pkKey is the row's storage key: equal exactly when the rows would
// collide in the table.
func (t *dmlTarget) pkKey(row []types.Datum) (string, error) {
	k, err := t.layout.Key(row)
	return string(k), err
}

func (t *dmlTarget) duplicate(row []types.Datum) error {
	names := make([]string, len(t.rel.PK))
	vals := make([]string, len(t.rel.PK))
	for i, k := range t.rel.PK {
		names[i] = t.rel.Columns[k].Name
		vals[i] = types.Format(row[k], t.rel.Columns[k].Type)
	}
	e := pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", t.rel.Name+"_pkey")
	e.Detail = fmt.Sprintf("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", "))
	return e
}

// matching returns the rows of the table that satisfy filter (nil: all).
func (t *dmlTarget) matching(ctx context.Context, filter expr.Expr) ([][]types.Datum, error) {
	var plan planner.Node = scanOf(t.rel)
	if filter != nil {
		plan = &planner.Filter{Input: plan, Cond: filter}
	}
	ex, err := planner.BuildBatch(plan, &snapshotSource{db: t.db, snap: t.snap})
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	var rows [][]types.Datum
	for {
		c, err := ex.Next(ctx)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return rows, nil
		}
		rows = append(rows, c.Rows()...)
		c.Release()
	}
}

func scanOf(rel *catalog.Relation) *planner.Scan {
	cols := make([]planner.Column, len(rel.Columns))
	for i, c := range rel.Columns {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type, Table: rel.Name, Hidden: c.Hidden}
	}
	return &planner.Scan{Rel: rel, Cols: cols}
}

func (db *DB) delete(ctx context.Context, del *planner.Delete) (int64, error) {
	t, err := db.lockTable(del.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	rows, err := t.matching(ctx, del.Filter)
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		t.add(chunk.Delete, r)
	}
	return int64(len(rows)), t.commit(ctx, int64(len(rows)))
}

func (db *DB) update(ctx context.Context, up *planner.Update) (int64, error) {
	t, err := db.lockTable(up.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	olds, err := t.matching(ctx, up.Filter)
	if err != nil {
		return 0, err
	}
	news := make([][]types.Datum, len(olds))
	pkMoved := false
	for i, old := range olds {
		nw := append([]types.Datum(nil), old...)
		for j, col := range up.Cols {
			v, err := up.Set[j].Eval(old)
			if err != nil {
				return 0, err
			}
			nw[col] = v
		}
		if err := t.checkNotNull(nw); err != nil {
			return 0, err
		}
		news[i] = nw
		ko, err := t.pkKey(old)
		if err != nil {
			return 0, err
		}
		kn, err := t.pkKey(nw)
		if err != nil {
			return 0, err
		}
		pkMoved = pkMoved || ko != kn
	}
	if pkMoved {
		if err := t.checkMovedKeys(olds, news); err != nil {
			return 0, err
		}
		for _, r := range olds {
			t.add(chunk.Delete, r)
		}
		for _, r := range news {
			t.add(chunk.Insert, r)
		}
	} else {
		for i := range olds {
			t.add(chunk.UpdateDelete, olds[i])
			t.add(chunk.UpdateInsert, news[i])
		}
	}
	return int64(len(olds)), t.commit(ctx, int64(len(olds)))
}

// checkMovedKeys checks that an UPDATE that changes primary keys leaves
// them unique: new keys must differ from each other and from the keys of
// rows the statement does not touch.
func (t *dmlTarget) checkMovedKeys(olds, news [][]types.Datum) error {
	freed := map[string]bool{}
	for _, r := range olds {
		key, err := t.pkKey(r)
		if err != nil {
			return err
		}
		freed[key] = true
	}
	seen := map[string]bool{}
	for _, r := range news {
		key, err := t.pkKey(r)
		if err != nil {
			return err
		}
		if seen[key] {
			return t.duplicate(r)
		}
		seen[key] = true
		if freed[key] {
			continue
		}
		_, exists, err := t.layout.Get(t.snap, t.pk(r))
		if err != nil {
			return err
		}
		if exists {
			return t.duplicate(r)
		}
	}
	return nil
}
