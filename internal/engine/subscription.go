package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// Subscriptions (CREATE SUBSCRIPTION s FROM v WITH (retention = '1h'), in
// RisingWave's syntax) keep the change log of a table or materialized
// view: one actor in the running graph follows the relation's changes
// from the barrier that attached it and appends them, with the epoch they
// committed in, to Pebble in that epoch's batch (stream.SubscriptionLog).
// The log is truncated past its retention. Readers (subscription cursors,
// COPY (SUBSCRIBE ...), DB.Subscribe) read the committed log from an
// epoch on (subReader): no reader holds the engine back, and a slow one
// only leaves its changes waiting in the log.

// createSubscription records a subscription and attaches its log actor to
// the relation's running actors at one barrier.
func (db *DB) createSubscription(ctx context.Context, cs *planner.CreateSubscription, w ResultWriter) error {
	return db.createSubscriptionOf(ctx, cs, false, w)
}

// createSubscriptionOf is createSubscription, of a temporary subscription
// with temporary.
func (db *DB) createSubscriptionOf(ctx context.Context, cs *planner.CreateSubscription, temporary bool, w ResultWriter) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(cs.Name, cs.IfNotExists, w); done || err != nil {
		if err == nil {
			return w.Complete("CREATE SUBSCRIPTION")
		}
		return err
	}
	from, ok := db.RelationByID(cs.From.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", cs.From.Name)
	}
	if from.State == catalog.StateCreating {
		// Its changes during the backfill are the backfill's own; a
		// subscription starts from a complete view.
		e := pgerr.New(pgerr.ObjectNotInPrereqState, "materialized view %q is still being created", from.Name)
		e.Hint = "Create the subscription once the view's backfill has finished (SHOW JOBS; WAIT)."
		return e
	}
	id, err := db.allocID()
	if err != nil {
		return err
	}
	rel := &catalog.Relation{ID: id, Name: cs.Name, Kind: catalog.KindSubscription, State: catalog.StateCreated,
		Columns: slices.Clone(from.Columns), Deps: []uint32{from.ID}, Retention: cs.Retention.Microseconds(),
		Parallelism: 1, Temporary: temporary}
	sj, err := planner.BuildSubscriptionJob(rel, &jobEnv{db: db, rel: rel, allocate: true}, true)
	if err != nil {
		return err
	}
	gen := db.coord.Generation() // before reading the upstream's actors
	add, err := db.attachInlets(sj)
	if err != nil {
		return err
	}
	if err := db.saveRelation(rel); err != nil {
		return err
	}
	db.register(rel, sj)
	if err := db.coord.MutateIn(ctx, gen, add, sj.Actors, nil); err != nil {
		db.abandonViewLocked(rel, err)
		return err
	}
	return w.Complete("CREATE SUBSCRIPTION")
}

// showSubscriptions answers SHOW SUBSCRIPTIONS: name, the relation each
// follows, its retention, and the epochs its log holds.
func (db *DB) showSubscriptions(w ResultWriter) error {
	cols := []Column{{Name: "Name", Type: types.TText}, {Name: "Relation", Type: types.TText},
		{Name: "Retention", Type: types.TInterval}, {Name: "Oldest epoch", Type: types.TInt64},
		{Name: "Newest epoch", Type: types.TInt64}}
	if err := w.Columns(cols); err != nil {
		return err
	}
	infos, err := db.subscriptionInfos()
	if err != nil {
		return err
	}
	for _, in := range infos {
		if err := w.Row([]types.Datum{in.Name, in.Relation, types.Interval{Micros: in.Retention.Microseconds()},
			optEpoch(in.Oldest), optEpoch(in.Newest)}); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(infos)))
}

func optEpoch(e uint64) types.Datum {
	if e == 0 {
		return nil
	}
	return int64(e)
}

// Subscriptions implements systemcatalog.Engine.
func (s systemSource) Subscriptions() ([]systemcatalog.Subscription, error) {
	return s.db.subscriptionInfos()
}

// subscriptionInfos lists the subscriptions, by name.
func (db *DB) subscriptionInfos() ([]systemcatalog.Subscription, error) {
	snap := db.store.Snapshot()
	defer snap.Close()
	var out []systemcatalog.Subscription
	for _, r := range db.relationsSorted() {
		if r.Kind != catalog.KindSubscription || r.Temporary {
			continue
		}
		in := systemcatalog.Subscription{Name: r.Name, Retention: time.Duration(r.Retention) * time.Microsecond}
		up, ok := db.RelationByID(r.Deps[0])
		if !ok {
			continue
		}
		in.Relation = up.Name
		t, err := planner.SubscriptionTables(r, up)
		if err != nil {
			return nil, err
		}
		first, last, err := epochBounds(snap, t)
		if err != nil {
			return nil, err
		}
		if first != nil {
			in.Oldest, in.Newest, in.Changes = first.Epoch, last.Epoch, last.End-first.First
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b systemcatalog.Subscription) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out, nil
}

// epochBounds returns the first and last epochs a subscription's log
// holds in r (nil, nil when none).
func epochBounds(r storage.Reader, t *stream.SubscriptionTables) (first, last *stream.SubscriptionEpoch, err error) {
	for _, reverse := range []bool{false, true} {
		it := t.Epochs.ScanPrefix(r, nil, reverse)
		if it.Next() {
			e := stream.DecodeSubscriptionEpoch(it.Row())
			if reverse {
				last = &e
			} else {
				first = &e
			}
		}
		err = it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return first, last, nil
}

// epochAt returns the log's row for epoch e, if it holds one.
func epochAt(rd storage.Reader, t *stream.SubscriptionTables, vnode uint16, e uint64) (stream.SubscriptionEpoch, bool, error) {
	row, ok, err := t.Epochs.Get(rd, []types.Datum{int64(e)})
	if err != nil || !ok {
		return stream.SubscriptionEpoch{}, false, err
	}
	return stream.DecodeSubscriptionEpoch(row), true, nil
}

// subscription returns the subscription named name (as a statement
// resolved it) and the relation it follows.
func (db *DB) subscription(name string) (sub, up *catalog.Relation, err error) {
	sub, ok := db.Relation(name)
	if !ok || sub.Kind != catalog.KindSubscription {
		_, own := catalog.SplitName(name)
		if ok {
			return nil, nil, pgerr.New(pgerr.WrongObjectType, "%q is not a subscription", own)
		}
		return nil, nil, pgerr.New(pgerr.UndefinedObject, "subscription %q does not exist", own)
	}
	up, ok = db.RelationByID(sub.Deps[0])
	if !ok {
		return nil, nil, pgerr.New(pgerr.UndefinedObject, "subscription %q follows a relation that no longer exists", sub.Name)
	}
	return sub, up, nil
}

// OpNames are the names of a change's op in a subscription's rows, as
// RisingWave spells them.
var opNames = map[chunk.Op]string{chunk.Insert: "Insert", chunk.Delete: "Delete",
	chunk.UpdateDelete: "UpdateDelete", chunk.UpdateInsert: "UpdateInsert"}

// SubscriptionStart says where a subscription reader starts.
type SubscriptionStart struct {
	// Since, when not nil, replays every change committed after this
	// epoch that the log still holds; an epoch the log no longer covers
	// is an error.
	Since *uint64
	// Full starts with the relation's current rows as Inserts (at the
	// epoch they were read at), then follows its changes.
	Full bool
}

// subReader reads a subscription's committed log, in commit order, from
// a position: every change of the epochs up to done has been read, and of
// epoch partEpoch (when not 0) those before partNext.
type subReader struct {
	db     *DB
	name   string // the subscription's, to see it dropped
	id     uint32
	up     *catalog.Relation
	tables *stream.SubscriptionTables
	vnode  uint16
	vis    []int // the relation's visible columns
	cols   []Column

	done      uint64
	partEpoch uint64
	partNext  int64
	// nextSeq is the first seq of the next epoch to read (the writer's
	// seqs run on across epochs), -1 when unknown: an epoch that starts
	// later lost changes to the retention.
	nextSeq int64

	// full reads the relation's rows of a FULL start, at epoch fullAt.
	full   *QueryIter
	fullAt uint64
	peek   []types.Datum // the next row of full, read ahead
	out    []types.Datum
}

// openSubscription opens a reader of subscription name from start.
func (db *DB) openSubscription(ctx context.Context, name string, start SubscriptionStart) (*subReader, error) {
	sub, up, err := db.subscription(name)
	if err != nil {
		return nil, err
	}
	t, err := planner.SubscriptionTables(sub, up)
	if err != nil {
		return nil, err
	}
	r := &subReader{db: db, name: sub.Name, id: sub.ID, up: up, tables: t,
		vnode: t.Epochs.Vnode(make([]types.Datum, len(t.Epochs.Types)))}
	for i, c := range up.Columns {
		if !c.Hidden {
			r.vis = append(r.vis, i)
			r.cols = append(r.cols, Column{Name: c.Name, Type: c.Type})
		}
	}
	r.cols = append(r.cols, Column{Name: "op", Type: types.TText}, Column{Name: "epoch", Type: types.TInt64})
	r.out = make([]types.Datum, len(r.cols))
	committed := db.store.CommittedEpoch()
	var snap storage.Reader
	if start.Full {
		it, err := db.openQuery(ctx, &planner.Query{Plan: planner.ScanOf(up)})
		if err != nil {
			return nil, err
		}
		if err := db.iters.add(it); err != nil {
			it.Close()
			return nil, err
		}
		r.full, snap = it, it.snap
	} else {
		s := db.store.Snapshot()
		defer s.Close()
		snap = s
	}
	first, last, err := epochBounds(snap, t)
	if err != nil {
		r.close()
		return nil, err
	}
	// Where the log stands in the snapshot: every epoch up to last.
	r.done, r.nextSeq = committed, -1
	if last != nil {
		r.done, r.nextSeq = last.Epoch, last.End
	}
	r.fullAt = r.done
	if start.Since != nil {
		if start.Full {
			r.close()
			return nil, pgerr.New(pgerr.SyntaxError, "a subscription cursor starts either SINCE an epoch or FULL, not both")
		}
		since := *start.Since
		oldest := r.done // an empty log replays nothing before now
		if first != nil {
			oldest = first.Epoch - 1
		}
		switch {
		case since > committed && since > r.done:
			r.close()
			return nil, pgerr.New(pgerr.InvalidParameterValue,
				"epoch %d is in the future: the last committed epoch is %d", since, max(committed, r.done))
		case since < oldest:
			r.close()
			e := pgerr.New(pgerr.InvalidParameterValue,
				"epoch %d is older than what subscription %q retains: the oldest epoch it can start after is %d", since, sub.Name, oldest)
			e.Hint = "Its log keeps changes for its retention (" + types.Format(types.Interval{Micros: sub.Retention}, types.TInterval) + "); start FULL to read the current rows."
			return nil, e
		}
		r.done, r.nextSeq = since, -1
		if first != nil && since == first.Epoch-1 {
			r.nextSeq = first.First
		} else if e, ok, err := epochAt(snap, t, r.vnode, since); err != nil {
			r.close()
			return nil, err
		} else if ok {
			r.nextSeq = e.End
		}
	}
	return r, nil
}

// columns are the reader's row columns: the relation's visible columns,
// then op and epoch.
func (r *subReader) columns() []Column { return r.cols }

// read emits up to n changes (n < 0: all there are) that have committed
// and returns how many it emitted. The row passed to emit is reused.
func (r *subReader) read(ctx context.Context, n int64, emit func(row []types.Datum) error) (int64, error) {
	return r.readSome(ctx, n, false, emit)
}

// readSome is read; with oneEpoch it stops at the end of the first epoch
// it emitted changes of (the current rows of a FULL start count as one).
func (r *subReader) readSome(ctx context.Context, n int64, oneEpoch bool, emit func(row []types.Datum) error) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	var count int64
	if r.full != nil {
		for n < 0 || count < n {
			row, err := r.fullNext(ctx)
			if err != nil {
				return count, err
			}
			if row == nil {
				break
			}
			copy(r.out, row)
			r.out[len(r.out)-2], r.out[len(r.out)-1] = "Insert", int64(r.fullAt)
			if err := emit(r.out); err != nil {
				return count, err
			}
			count++
		}
		if r.full != nil && r.peek == nil {
			// Look one row ahead, so that the last of the rows is known
			// to be the last (epochComplete) when it is read.
			row, err := r.full.Next(ctx)
			if err != nil {
				return count, err
			}
			if row == nil {
				r.full.Close()
				r.full = nil
			} else {
				r.peek = slices.Clone(row)
			}
		}
		if r.full != nil || oneEpoch && count > 0 {
			return count, nil
		}
	}
	if n >= 0 && count >= n {
		return count, nil
	}
	if _, _, err := r.db.subscription(r.name); err != nil {
		return count, r.gone(err)
	}
	snap := r.db.store.Snapshot()
	defer snap.Close()
	got, err := r.readLog(ctx, snap, n-count, n < 0, oneEpoch, emit)
	return count + got, err
}

// fullNext returns the next of the current rows of a FULL start, nil at
// their end (closing the scan).
func (r *subReader) fullNext(ctx context.Context) ([]types.Datum, error) {
	if row := r.peek; row != nil {
		r.peek = nil
		return row, nil
	}
	row, err := r.full.Next(ctx)
	if err == nil && row == nil {
		r.full.Close()
		r.full = nil
	}
	return row, err
}

// epochComplete reports whether every change of epoch e has been read
// (after a read that emitted changes of e).
func (r *subReader) epochComplete(e uint64) bool {
	return r.full == nil && r.partEpoch != e
}

// gone is the error of a read from a subscription that was dropped.
func (r *subReader) gone(err error) error {
	if sub, ok := r.db.Relation(r.name); ok && sub.ID != r.id || !ok {
		if up, ok := r.db.RelationByID(r.up.ID); !ok || up.Name != r.up.Name {
			_, own := catalog.SplitName(r.up.Name)
			return pgerr.New(pgerr.UndefinedTable, "%s %q was dropped", kindWord(r.up.Kind), own)
		}
		_, own := catalog.SplitName(r.name)
		return pgerr.New(pgerr.UndefinedObject, "subscription %q was dropped", own)
	}
	return err
}

// readLog emits changes of the log in snap from the reader's position.
func (r *subReader) readLog(ctx context.Context, snap storage.Reader, n int64, all, oneEpoch bool, emit func([]types.Datum) error) (int64, error) {
	var count int64
	eit := r.tables.Epochs.ScanVnode(snap, r.vnode, []types.Datum{int64(r.done)})
	defer eit.Close()
	for eit.Next() {
		e := stream.DecodeSubscriptionEpoch(eit.Row())
		if r.partEpoch == 0 && r.nextSeq >= 0 && e.First > r.nextSeq {
			// The writer's seqs run on from epoch to epoch: those
			// missing went with epochs past the retention.
			_, own := catalog.SplitName(r.name)
			e := pgerr.New(pgerr.ObjectNotInPrereqState,
				"the changes after epoch %d are no longer retained by subscription %q", r.done, own)
			e.Hint = "A reader that falls behind by more than the subscription's retention loses changes; declare a new cursor (FULL reads the current rows)."
			return count, e
		}
		from := e.First
		if r.partEpoch == e.Epoch {
			from = r.partNext
		}
		if from < e.End {
			lit := r.tables.Log.ScanVnode(snap, r.vnode, []types.Datum{from - 1})
			for lit.Next() {
				row := lit.Row()
				seq := row[0].(int64)
				if seq >= e.End {
					break
				}
				for j, c := range r.vis {
					r.out[j] = row[2+c]
				}
				r.out[len(r.out)-2], r.out[len(r.out)-1] = opNames[chunk.Op(row[1].(int64))], int64(e.Epoch)
				if err := emit(r.out); err != nil {
					lit.Close()
					return count, err
				}
				count++
				if !all && count >= n {
					r.partEpoch, r.partNext = e.Epoch, seq+1
					if seq+1 >= e.End {
						r.done, r.partEpoch, r.nextSeq = e.Epoch, 0, e.End
					}
					err := lit.Err()
					if cerr := lit.Close(); err == nil {
						err = cerr
					}
					return count, err
				}
			}
			err := lit.Err()
			if cerr := lit.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return count, err
			}
		}
		r.done, r.partEpoch, r.nextSeq = e.Epoch, 0, e.End
		if oneEpoch && count > 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return count, pgerr.As(err)
		}
	}
	return count, eit.Err()
}

// wait blocks until an epoch commits after the call, ctx ends or d passes;
// it reports whether an epoch committed.
func (r *subReader) waitCommit(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// fetch is read, waiting up to timeout for the first change when none has
// committed.
func (r *subReader) fetch(ctx context.Context, n int64, timeout time.Duration, emit func([]types.Datum) error) (int64, error) {
	return r.fetchSome(ctx, n, false, timeout, emit)
}

func (r *subReader) fetchSome(ctx context.Context, n int64, oneEpoch bool, timeout time.Duration, emit func([]types.Datum) error) (int64, error) {
	deadline := time.Now().Add(timeout)
	for {
		ch := r.db.store.EpochChanged()
		got, err := r.readSome(ctx, n, oneEpoch, emit)
		if err != nil || got > 0 || timeout <= 0 {
			return got, err
		}
		left := time.Until(deadline)
		if left <= 0 || !r.waitCommit(ctx, ch, left) {
			return 0, nil
		}
	}
}

// close releases what the reader holds.
func (r *subReader) close() {
	if r.full != nil {
		r.full.Close()
		r.full = nil
	}
}

// SubscriptionReader reads the changes of a subscription for the Go API
// (streamdb.DB.Subscribe): a batch at a time, one epoch's changes per
// batch at most, so that a consumer can act at each epoch's end.
type SubscriptionReader struct {
	r    *subReader
	drop func()
}

// Subscribe opens a reader of name, a subscription, or a table or
// materialized view (read through a temporary subscription of its own,
// from now or FULL: replaying from an epoch needs a subscription).
func (db *DB) Subscribe(ctx context.Context, name string, start SubscriptionStart) (*SubscriptionReader, error) {
	c := db.NewSession().catalog()
	if r, ok := catalog.LookupName(c, c.SearchPath(), name); ok {
		name = r.Name
		if r.Kind != catalog.KindSubscription && start.Since != nil {
			e := pgerr.New(pgerr.InvalidParameterValue, "%q is not a subscription: only a subscription replays changes since an epoch", r.Name)
			e.Hint = "CREATE SUBSCRIPTION s FROM " + r.Name + " keeps its changes for a retention period; subscribe to s."
			return nil, e
		}
	}
	sub, drop, err := db.followRelation(ctx, name)
	if err != nil {
		return nil, err
	}
	r, err := db.openSubscription(ctx, sub, start)
	if err != nil {
		drop()
		return nil, err
	}
	return &SubscriptionReader{r: r, drop: drop}, nil
}

// Columns are the rows' columns: the relation's, then op and epoch.
func (s *SubscriptionReader) Columns() []Column { return s.r.columns() }

// Read emits up to max changes of one epoch (the current rows of a FULL
// start count as one), waiting up to wait for the first when none has
// committed; it returns how many it emitted and, when any, whether they
// end their epoch. The row passed to emit is reused.
func (s *SubscriptionReader) Read(ctx context.Context, max int64, wait time.Duration, emit func(row []types.Datum) error) (n int64, epochEnd bool, err error) {
	var epoch uint64
	n, err = s.r.fetchSome(ctx, max, true, wait, func(row []types.Datum) error {
		epoch = uint64(row[len(row)-1].(int64))
		return emit(row)
	})
	if n > 0 {
		epochEnd = s.r.epochComplete(epoch)
	}
	return n, epochEnd, err
}

// Close ends the reader (and drops its temporary subscription).
func (s *SubscriptionReader) Close() {
	s.r.close()
	s.drop()
}
