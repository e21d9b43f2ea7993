package write

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// dmlChunkRows is how many rows a DML chunk carries.
const dmlChunkRows = 1024

// dmlTarget is a table locked for one DML statement: no other statement
// changes it until this one has committed (or failed), so primary-key
// checks against committed state are exact.
type dmlTarget struct {
	w   *Writer
	rel *catalog.Relation
	// cur is the table as it is now that it is locked: its UNIQUE
	// constraints are the ones checked.
	cur    *catalog.Relation
	tab    *Table
	layout *storage.Table
	snap   *storage.Snapshot
	// indexes are the table's indexes the statement's scan may read.
	indexes []*catalog.Relation
	chunks  []*chunk.Chunk
	b       *chunk.Builder
	// empty is 1 when the table held no rows in snap, -1 when it did, 0
	// until known: inserts into an empty table need no key lookups.
	empty int8
	// ingest, when set, holds the rows the statement sends, already
	// written (bulk.go).
	ingest *storage.Ingest
	// beforeCommit, when set, runs once commitMatching has staged the
	// statement's changes, before they are sent.
	beforeCommit func() error
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

// lockTable takes rel's DML lock for one statement and pins a snapshot
// of committed state for its checks and scans.
func (w *Writer) lockTable(rel *catalog.Relation) (*dmlTarget, error) {
	tab, _, ok := w.e.Table(rel.ID)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
	}
	tab.Lock()
	// The table may have been dropped while we waited.
	if _, _, ok := w.e.Table(rel.ID); !ok {
		tab.Unlock()
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
	}
	// Or altered: the statement was bound to its columns as they were.
	if cur, ok := w.e.Relation(rel.ID); ok && !sameRowShape(cur, rel) {
		tab.Unlock()
		e := pgerr.New(pgerr.SerializationFailure, "table %q was altered while the statement waited for it", cur.Name)
		e.Hint = "Run the statement again."
		return nil, e
	}
	cur, ok := w.e.Relation(rel.ID)
	if !ok {
		cur = rel
	}
	return &dmlTarget{w: w, rel: rel, cur: cur, tab: tab, layout: planner.TableLayout(rel),
		snap: w.e.Store().Snapshot(), b: chunk.NewBuilder(rel.ColumnTypes())}, nil
}

func (t *dmlTarget) unlock() {
	t.snap.Close()
	t.b.Release()
	for _, c := range t.chunks {
		c.Release()
	}
	t.tab.Unlock()
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
// rate limit it first waits for the table's limiter (see Limiter),
// before it takes the source, so a throttled or paused statement never
// holds barriers. If next fails once some chunks are sent, the open epoch
// is aborted so that none of them commits.
func (t *dmlTarget) commitStream(ctx context.Context, rows int64, next func() (*chunk.Chunk, error)) error {
	first, err := next()
	if err != nil || first == nil {
		return err
	}
	if err := t.tab.limiter.wait(ctx, t.w.e.Closing(), t.rel.Name, rows); err != nil {
		first.Release()
		return err
	}
	// The source may have been replaced by a recovery since we looked.
	_, src, ok := t.w.e.Table(t.rel.ID)
	if !ok {
		first.Release()
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", t.rel.Name)
	}
	coord := t.w.e.Coordinator()
	done := coord.Done()
	// Live work (COPY and the Go API's writes too): a creating job's
	// actors defer to it.
	defer coord.Live()()
	if err := src.Acquire(ctx); err != nil {
		first.Release()
		return pgerr.As(err)
	}
	if !src.Ingests {
		// The table's graph changed shape since the statement
		// began: its actor writes the rows (the ingest is dropped).
		t.ingest = nil
	}
	mark, err := t.send(src, done, first, next)
	if err != nil {
		return err
	}
	// Once sent, the changes commit with the next barrier whatever the
	// client does; wait for that regardless of cancellation. CommitSource
	// (not Checkpoint) fails if the graph the changes went into was torn
	// down before they committed, even when a rebuilt graph serves the call.
	if err := coord.CommitSource(context.Background(), src, mark); err != nil {
		if errors.Is(err, storage.ErrStoreFailed) {
			return err // not a retry: the store takes no more writes
		}
		return pgerr.Wrap(err, pgerr.SerializationFailure, "could not commit")
	}
	return nil
}

// send sends c and the chunks after it into src, which it holds, and
// releases src. It returns the source's mark of what it sent.
func (t *dmlTarget) send(src *stream.Source, done <-chan struct{}, c *chunk.Chunk, next func() (*chunk.Chunk, error)) (uint64, error) {
	for c != nil {
		select {
		case src.C <- stream.Message{Chunk: c, Ingest: t.ingest}:
		case <-done:
			c.Release()
			src.Release()
			return 0, t.restarted()
		case <-src.Dead():
			c.Release()
			src.Release()
			return 0, t.restarted()
		}
		var err error
		if c, err = next(); err != nil {
			t.abort(src, err)
			return 0, err
		}
	}
	mark := src.Mark()
	src.Release()
	return mark, nil
}

// abort fails the epoch that part of the statement's changes went into,
// and releases src once its graph is gone, so no barrier can follow them.
func (t *dmlTarget) abort(src *stream.Source, cause error) {
	t.w.e.Coordinator().Abort(fmt.Errorf("streamdb: statement on %q failed after sending part of its changes: %w", t.rel.Name, cause))
	<-src.Dead()
	src.Release()
}

func (t *dmlTarget) restarted() error {
	if err := t.w.e.Store().Failed(); err != nil {
		return err
	}
	return pgerr.New(pgerr.SerializationFailure, "could not write to %q: the streaming graph restarted; retry the statement", t.rel.Name)
}

// Returned receives, before the statement commits, each row an INSERT or
// UPDATE leaves or a DELETE removes (for RETURNING); an error fails the
// statement. The row is reused after the call.
type Returned func(row []types.Datum) error

// Insert runs an INSERT and returns the number of rows it added: all of
// them, committed and visible in every view, or none and an error. ret,
// when not nil, gets each row added.
func (w *Writer) Insert(ctx context.Context, ins *planner.Insert, ret Returned) (int64, error) {
	t, err := w.lockTable(ins.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	if ins.OnConflict != nil {
		return t.upsert(ctx, ins, ret)
	}
	ex, err := planner.BuildBatch(ins.Source, t.w.e.Reader(t.snap))
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	uniq, err := newUniqueChecker(w.e, t.cur)
	if err != nil {
		return 0, err
	}
	defer uniq.close()
	l := &insertLoad{t: t, stage: newCopyStage(t.rel.ColumnTypes()), ret: ret, rules: ins.Rules, uniq: uniq}
	defer l.stage.close()
	if err := l.read(ctx, ex); err != nil {
		return 0, l.earlierDuplicate(ctx, err)
	}
	if err := l.stage.finish(); err != nil {
		return 0, err
	}
	dup := func(row []byte, _ int64) error { return t.rowDuplicate(row) }
	return l.stage.rows, t.commitStaged(ctx, l.stage, !t.rel.RowID, dup, nil)
}

// insertLoad stages the rows an INSERT adds, as COPY does (copy_stage.go,
// bulk.go): it fills generated row ids and checks NOT NULL row by row;
// primary-key uniqueness (against committed rows and the statement's
// own) is checked on the sorted keys at commit, and the error reported
// is the first row's in input order, as row-by-row checks give.
type insertLoad struct {
	t        *dmlTarget
	stage    *copyStage
	row      []types.Datum
	key, val []byte
	// good is how many rows passed their own checks: those a key check
	// covers when a later row fails.
	good  int64
	ret   Returned
	rules *planner.RowRules
	uniq  *uniqueChecker
}

// read stages the rows of ex.
func (l *insertLoad) read(ctx context.Context, ex interface {
	Next(context.Context) (*chunk.Chunk, error)
}) error {
	for {
		c, err := ex.Next(ctx)
		if err != nil {
			return err
		}
		if c == nil {
			return nil
		}
		err = l.chunk(c)
		c.Release()
		if err != nil {
			return err
		}
	}
}

// chunk stages the rows of c.
func (l *insertLoad) chunk(c *chunk.Chunk) error {
	t := l.t
	for i := 0; i < c.NumRows(); i++ {
		l.row = c.Row(i, l.row)
		if t.rel.RowID {
			l.row[t.rel.PK[0]] = t.w.e.NextRowID()
		}
		if err := t.checkRules(l.rules, l.row); err != nil {
			return err
		}
		if err := l.checkUnique(); err != nil {
			return err
		}
		if l.ret != nil {
			if err := l.ret(l.row); err != nil {
				return err
			}
		}
		var err error
		if l.key, err = t.layout.AppendRowKey(l.key[:0], l.row); err != nil {
			return err
		}
		if l.val, err = storage.EncodeRow(l.val[:0], t.layout.Types, l.row); err != nil {
			return err
		}
		l.good++
		if err := l.stage.add(l.row, l.key, l.val, l.good); err != nil {
			return err
		}
	}
	return nil
}

// checkUnique checks the row against the table's UNIQUE constraints.
func (l *insertLoad) checkUnique() error {
	if l.uniq == nil {
		return nil
	}
	if err := l.uniq.add(l.row); err != nil {
		return err
	}
	return l.uniq.probe(l.t.snap, l.t.layout)
}

// earlierDuplicate returns, for the error err of a row after the staged
// ones, the unique violation of a staged row if there is one (it comes
// first in input order), else err.
func (l *insertLoad) earlierDuplicate(ctx context.Context, err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code == pgerr.QueryCanceled || l.t.rel.RowID || l.good == 0 {
		return err
	}
	if l.stage.keys.finish() != nil {
		return err
	}
	badRow, badLine, cerr := l.t.checkStaged(ctx, l.stage.keys, math.MaxInt64, true, nil)
	if cerr == nil && badLine >= 0 {
		return l.t.rowDuplicate(badRow)
	}
	return err
}

// checkRules computes the generated columns of row, then checks its NOT
// NULL and CHECK constraints.
func (t *dmlTarget) checkRules(rules *planner.RowRules, row []types.Datum) error {
	if err := generate(rules, row); err != nil {
		return err
	}
	if err := t.checkNotNull(row); err != nil {
		return err
	}
	return checkRow(rules, t.rel, row)
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
	ex, err := planner.BuildBatch(planner.DMLScan(t.rel, filter, t.indexes), t.w.e.Reader(t.snap))
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

// commitMatching stages, for each row of the table that filter accepts,
// the changes add makes of it (row i of chunk c), and commits them as the
// statement's; it returns how many rows matched.
func (t *dmlTarget) commitMatching(ctx context.Context, filter expr.Expr, add func(stage *changeStage, c *chunk.Chunk, i int) error) (int64, error) {
	stage := newChangeStage(t.rel.ColumnTypes())
	defer stage.close()
	n, err := t.eachMatching(ctx, filter, func(c *chunk.Chunk) error {
		for i := 0; i < c.NumRows(); i++ {
			if err := add(stage, c, i); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
	if err == nil {
		err = stage.finish()
	}
	if err == nil && t.beforeCommit != nil {
		err = t.beforeCommit()
	}
	if err != nil {
		return 0, err
	}
	return n, t.commitStream(ctx, n, stage.held.chunks())
}

// eachMatching calls fn with the rows of the table (in the statement's
// snapshot) that filter accepts, a chunk at a time, and returns how many
// there were.
func (t *dmlTarget) eachMatching(ctx context.Context, filter expr.Expr, fn func(*chunk.Chunk) error) (int64, error) {
	ex, err := planner.BuildBatch(planner.DMLScan(t.rel, filter, t.indexes), t.w.e.Reader(t.snap))
	if err != nil {
		return 0, err
	}
	defer ex.Close()
	var n int64
	for {
		c, err := ex.Next(ctx)
		if err != nil || c == nil {
			return n, err
		}
		n += int64(c.NumRows())
		err = fn(c)
		c.Release()
		if err != nil {
			return n, err
		}
	}
}

// changeStage stages the changes of a DELETE or UPDATE, as COPY stages
// its rows (copy_stage.go): in memory up to copyMemBytes, then in a
// temporary file, so that a statement over millions of rows does not hold
// them all in memory.
type changeStage struct {
	b    *chunk.Builder
	dir  *tempDir
	held chunkStage
}

func newChangeStage(ts []types.Type) *changeStage {
	s := &changeStage{b: chunk.NewBuilder(ts), dir: &tempDir{}}
	s.held = chunkStage{types: ts, ops: true, dir: s.dir}
	return s
}

func (s *changeStage) add(op chunk.Op, row []types.Datum) error {
	s.b.Append(op, row)
	if s.b.Len() >= dmlChunkRows {
		return s.held.put(s.b.Build())
	}
	return nil
}

func (s *changeStage) finish() error {
	if s.b.Len() > 0 {
		if err := s.held.put(s.b.Build()); err != nil {
			return err
		}
	}
	return s.held.finish()
}

func (s *changeStage) close() {
	s.b.Release()
	s.held.close()
	s.dir.remove()
}

// Delete runs a DELETE and returns the number of rows it removed; ret,
// when not nil, gets each.
func (w *Writer) Delete(ctx context.Context, del *planner.Delete, ret Returned) (int64, error) {
	t, err := w.lockTable(del.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	if del.Using != nil {
		return t.deleteUsing(ctx, del, ret)
	}
	t.indexes = del.Indexes
	var row []types.Datum
	return t.commitMatching(ctx, del.Filter, func(stage *changeStage, c *chunk.Chunk, i int) error {
		row = c.Row(i, row)
		if ret != nil {
			if err := ret(row); err != nil {
				return err
			}
		}
		return stage.add(chunk.Delete, row)
	})
}

// Update runs an UPDATE and returns the number of rows it changed; ret,
// when not nil, gets each new row.
func (w *Writer) Update(ctx context.Context, up *planner.Update, ret Returned) (int64, error) {
	t, err := w.lockTable(up.Rel)
	if err != nil {
		return 0, err
	}
	defer t.unlock()
	uniq, err := newUniqueChecker(w.e, t.cur)
	if err != nil {
		return 0, err
	}
	defer uniq.close()
	if up.From != nil {
		return t.updateFrom(ctx, up, ret, uniq)
	}
	t.indexes = up.Indexes
	if !setsKey(up) {
		return t.updateInPlace(ctx, up, ret, uniq)
	}
	olds, err := t.matching(ctx, up.Filter)
	if err != nil {
		return 0, err
	}
	news := make([][]types.Datum, len(olds))
	for i, old := range olds {
		nw := append([]types.Datum(nil), old...)
		for j, col := range up.Cols {
			v, err := up.Set[j].Eval(old)
			if err != nil {
				return 0, err
			}
			nw[col] = v
		}
		if err := t.checkRules(up.Rules, nw); err != nil {
			return 0, err
		}
		if ret != nil {
			if err := ret(nw); err != nil {
				return 0, err
			}
		}
		news[i] = nw
	}
	return t.commitUpdates(ctx, uniq, olds, news)
}

// commitUpdates commits an UPDATE that holds its rows: olds[i] becomes
// news[i]. Where a primary key moves, the new keys must be free; uniq
// (nil: none) checks the table's UNIQUE constraints.
func (t *dmlTarget) commitUpdates(ctx context.Context, uniq *uniqueChecker, olds, news [][]types.Datum) (int64, error) {
	pkMoved := false
	for i, old := range olds {
		ko, err := t.pkKey(old)
		if err != nil {
			return 0, err
		}
		kn, err := t.pkKey(news[i])
		if err != nil {
			return 0, err
		}
		pkMoved = pkMoved || ko != kn
	}
	if err := t.checkUpdateUnique(uniq, olds, news); err != nil {
		return 0, err
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
			t.addPair(olds[i], news[i])
		}
	}
	return int64(len(olds)), t.commit(ctx, int64(len(olds)))
}

// checkUpdateUnique checks the rows an UPDATE leaves (news, replacing
// olds) against the table's UNIQUE constraints.
func (t *dmlTarget) checkUpdateUnique(uniq *uniqueChecker, olds, news [][]types.Datum) error {
	if uniq == nil {
		return nil
	}
	for _, r := range olds {
		key, err := t.pkKey(r)
		if err != nil {
			return err
		}
		uniq.free(key)
	}
	for _, r := range news {
		if err := uniq.add(r); err != nil {
			return err
		}
	}
	return uniq.probe(t.snap, t.layout)
}

// setsKey reports whether an UPDATE assigns a primary-key column.
func setsKey(up *planner.Update) bool {
	if generatesKey(up.Rules, up.Rel) {
		return true
	}
	for _, c := range up.Cols {
		if slices.Contains(up.Rel.PK, c) {
			return true
		}
	}
	return false
}

// updateInPlace runs an UPDATE that leaves every primary key as it is
// (each row stays where it is, so no key can collide), staging its
// changes instead of holding them in memory.
func (t *dmlTarget) updateInPlace(ctx context.Context, up *planner.Update, ret Returned, uniq *uniqueChecker) (int64, error) {
	var old []types.Datum
	nw := make([]types.Datum, len(t.rel.Columns))
	if uniq != nil {
		t.beforeCommit = func() error { return uniq.probe(t.snap, t.layout) }
	}
	return t.commitMatching(ctx, up.Filter, func(stage *changeStage, c *chunk.Chunk, i int) error {
		old = c.Row(i, old)
		copy(nw, old)
		for j, col := range up.Cols {
			v, err := up.Set[j].Eval(old)
			if err != nil {
				return err
			}
			nw[col] = v
		}
		if err := t.checkRules(up.Rules, nw); err != nil {
			return err
		}
		if uniq != nil {
			key, err := t.pkKey(old)
			if err != nil {
				return err
			}
			uniq.free(key)
			if err := uniq.add(nw); err != nil {
				return err
			}
		}
		if ret != nil {
			if err := ret(nw); err != nil {
				return err
			}
		}
		// The pair stays in one chunk (dmlChunkRows is even).
		if err := stage.add(chunk.UpdateDelete, old); err != nil {
			return err
		}
		return stage.add(chunk.UpdateInsert, nw)
	})
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

// sameRowShape reports whether relations a and b (two versions of one
// table) write rows alike: the same column types, dropped columns and
// NOT NULL constraints (ALTER TABLE changes them under the table's DML
// lock, so a statement bound before it must not write).
func sameRowShape(a, b *catalog.Relation) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i, c := range a.Columns {
		d := b.Columns[i]
		if c.Type != d.Type || c.Dropped != d.Dropped || c.NotNull != d.NotNull || c.Generated != d.Generated || c.Identity != d.Identity {
			return false
		}
	}
	// Nor its CHECK constraints: a statement bound before ALTER TABLE ...
	// ADD CHECK must not write rows unchecked. (UNIQUE constraints are
	// read from the table as it is once locked: newUniqueChecker.)
	return slices.Equal(a.Checks, b.Checks)
}

// sameUniques reports whether two versions of a table have the same
// UNIQUE constraints.
func sameUniques(a, b *catalog.Relation) bool {
	return slices.EqualFunc(a.Uniques, b.Uniques, func(x, y catalog.Unique) bool {
		return x.Name == y.Name && x.Index == y.Index && slices.Equal(x.Columns, y.Columns)
	})
}
