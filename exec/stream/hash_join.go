package stream

import (
	"context"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// HashJoin maintains an equi-join (inner, left, right or full outer, left
// semi or anti) of two inputs under inserts and deletes. It reads both inputs through Align and
// forwards each barrier once it has arrived on both (I1).
//
// Each input row is applied against the other side's state (see joinSide):
// its matches are the other side's rows with the same join key (found for
// a whole chunk at once, see joinProbe; a NULL key matches nothing) for
// which Cond holds. An insert emits an Insert per match, a delete a Delete per match; an update pair is
// applied as a delete followed by an insert. Outer joins keep the NULL-padded
// rows of a preserved side right:
//
//   - an inserted row with no match emits its padded row; one deleted with
//     no match retracts it;
//   - a preserved row whose degree goes 0 -> 1 retracts its padded row
//     before the first joined row is emitted, and one whose degree goes
//     1 -> 0 re-emits it after the last joined row is retracted.
//
// State is read as the committed state (the Store) overlaid with the
// epoch's own writes, which are kept in memory (epochWrites) as rows are
// applied and written to the epoch batch at the barrier, so the batch is
// never read (Pebble need not index it), nothing is pending after a
// barrier, and an executor built over committed state continues correctly
// (I6).
type HashJoin struct {
	align *Align
	sc    *StateContext
	spec  JoinSpec
	types []types.Type
	sides [2]*joinSide
	out   *outQueue

	probe    joinProbe
	started  bool // start has run
	matchBuf [][]types.Datum
	flat     []types.Datum   // the decoded chunk's values
	rows     [][]types.Datum // the decoded chunk's rows, in flat
	ops      []chunk.Op      // the decoded chunks' ops
	batch    []*chunk.Chunk  // scratch of gather
	ahead    aheadMsg        // a message gather read ahead
	condRow  []types.Datum
	outRow   []types.Datum
	// owned are the vnodes the actor owns (SetOwned); closed: the bound
	// below which every key was closed (spec.Watermark; nil: none yet).
	owned  []uint16
	closer closer
	// intervals are the last cleanings of each side (spec.Interval).
	intervals [2]intervalClean
}

// SetOwned tells j the vnodes its actor owns, whose closed keys it
// deletes (JoinSpec.Watermark, JoinSpec.Interval).
func (j *HashJoin) SetOwned(owned storage.VnodeBitmap) { j.owned = owned.Vnodes() }

// closeKeys deletes, once the epoch's writes are staged, the rows of
// both sides whose first join key the watermark of ws passed
// (JoinSpec.Watermark). The deletions commit with the epoch.
func (j *HashJoin) closeKeys(ws []Watermark) error {
	spec := j.spec.Watermark
	if spec == nil {
		return nil
	}
	bound, ok := j.closer.next(ws, spec.Table, spec.Bounds, j.spec.LeftTypes[j.spec.LeftKeys[0]])
	if !ok {
		return nil
	}
	kr := j.closer.keyRange(bound)
	for _, side := range j.sides {
		if err := side.table.DeleteRangeIn(j.sc.Batch(), kr, j.owned); err != nil {
			return wrapJoinErr("close keys", err)
		}
	}
	// A side's writes of an epoch of a megabyte or more are ingested
	// (epochWrites.ingested), after the batch: this close did not reach
	// them.
	j.closer.done(bound, j.sides[0].epoch.ingested || j.sides[1].epoch.ingested)
	return nil
}

// NewHashJoin returns a join of left and right. tableIDs are the ids of
// the two state tables, left side first.
func NewHashJoin(left, right *Receiver, sc *StateContext, spec JoinSpec, tableIDs []uint32) (*HashJoin, error) {
	return NewHashJoinInputs([]*Receiver{left}, []*Receiver{right}, sc, spec, tableIDs)
}

// NewHashJoinInputs returns a join whose sides each arrive on one or more
// channels (from the actors of the upstream fragments, hash-partitioned
// on the join key so this actor gets the rows of the keys it owns).
func NewHashJoinInputs(left, right []*Receiver, sc *StateContext, spec JoinSpec, tableIDs []uint32) (*HashJoin, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	if len(tableIDs) != spec.NumStateTables() {
		return nil, fmt.Errorf("stream: hash join needs %d state tables, got %d", spec.NumStateTables(), len(tableIDs))
	}
	j := &HashJoin{align: NewAlignInputs(left, right), sc: sc, spec: spec, types: spec.OutTypes()}
	j.out = newOutQueue(j.types)
	j.sides[0] = newJoinSide(tableIDs[0], spec.LeftTypes, spec.LeftKeys, spec.LeftPK, spec.Kind.preserves(0))
	j.sides[1] = newJoinSide(tableIDs[1], spec.RightTypes, spec.RightKeys, spec.RightPK, spec.Kind.preserves(1))
	j.outRow = make([]types.Datum, len(spec.LeftTypes)+len(spec.RightTypes))
	same := true
	for i := range spec.LeftKeys {
		same = same && spec.LeftTypes[spec.LeftKeys[i]] == spec.RightTypes[spec.RightKeys[i]]
	}
	j.sides[0].sameKeys, j.sides[1].sameKeys = same, same
	return j, nil
}

// Types implements Executor.
func (j *HashJoin) Types() []types.Type { return j.types }

// StateTables returns the left and right state tables.
func (j *HashJoin) StateTables() []*storage.Table {
	return []*storage.Table{j.sides[0].table, j.sides[1].table}
}

// Next implements Executor.
func (j *HashJoin) Next(ctx context.Context) (Message, error) {
	for {
		if m, ok := j.out.pop(); ok {
			return m, nil
		}
		side, msg, err := j.receive(ctx)
		if err != nil {
			return Message{}, err
		}
		if msg.Barrier != nil {
			if err := j.barrier(msg); err != nil {
				return Message{}, err
			}
			continue
		}
		batch, err := j.gather(ctx, int(side), msg.Chunk)
		if err == nil {
			err = j.applyChunks(int(side), batch)
		}
		for _, c := range batch {
			c.Release()
		}
		if err != nil {
			return Message{}, err
		}
		j.out.flush()
	}
}

// barrier writes the epoch's state at an aligned barrier and queues it.
func (j *HashJoin) barrier(msg Message) error {
	for _, side := range j.sides {
		if err := side.flushDirty(); err != nil {
			return wrapJoinErr("write degrees", err)
		}
		if err := side.flushEpoch(j.sc.Store, j.sc.Batch(), msg.Barrier.ofJob()); err != nil {
			return wrapJoinErr("write state", err)
		}
	}
	if err := j.closeKeys(msg.Watermarks); err != nil {
		return err
	}
	if err := j.cleanIntervals(msg.Watermarks); err != nil {
		return err
	}
	j.forget(msg.Barrier.Mutation)
	j.out.barrierMsg(msg)
	return nil
}

// receive returns the next input message: the one gather read ahead, if
// any, else the next from Align.
func (j *HashJoin) receive(ctx context.Context) (AlignSide, Message, error) {
	if j.ahead.ok {
		a := j.ahead
		j.ahead = aheadMsg{}
		return a.side, a.msg, nil
	}
	side, msg, err := j.align.Next(ctx)
	if err == nil && failpoint.Enabled {
		err = hitMsg(failpoint.ExecHashJoinChunk, failpoint.ExecHashJoinBarrier, msg)
	}
	return side, msg, err
}

// gather returns c, a chunk of side s, with the chunks of the same side
// that are already waiting behind it, up to joinBatchRows rows: the join
// probes the batch's keys at once (see joinProbe), and a batch's keys in
// key order are closer together than one chunk's, so that the probe
// steps from one to the next rather than seeking. Applying the chunks
// together is applying them one after another: rows of one side never
// match each other, and the other side's state is the same for all of
// them. The first message of another side, or a barrier, is kept for
// receive; a barrier waits behind the batch no longer than behind the
// chunks one by one. The caller releases the chunks.
func (j *HashJoin) gather(ctx context.Context, s int, c *chunk.Chunk) ([]*chunk.Chunk, error) {
	j.batch = append(j.batch[:0], c)
	rows := c.NumRows()
	for rows < joinBatchRows {
		side, msg, ok, err := j.align.Poll(ctx)
		if err == nil && ok && failpoint.Enabled {
			err = hitMsg(failpoint.ExecHashJoinChunk, failpoint.ExecHashJoinBarrier, msg)
		}
		if err != nil {
			return j.batch, err
		}
		if !ok {
			break
		}
		if msg.Barrier != nil || int(side) != s {
			j.ahead = aheadMsg{side: side, msg: msg, ok: true}
			break
		}
		j.batch = append(j.batch, msg.Chunk)
		rows += msg.Chunk.NumRows()
	}
	return j.batch, nil
}

// joinBatchRows bounds the rows of a batch of chunks (see gather).
var joinBatchRows = 16 << 10 // a variable for tests

// aheadMsg is a message gather read ahead of its turn.
type aheadMsg struct {
	side AlignSide
	msg  Message
	ok   bool
}

// applyChunks applies a batch of chunks of side s, in order.
func (j *HashJoin) applyChunks(s int, batch []*chunk.Chunk) error {
	if !j.started {
		if err := j.start(); err != nil {
			return err
		}
	}
	rows := j.decode(batch)
	me := j.sides[s]
	if err := j.probe.reset(j.sides[1-s], j.sc.Store, rows, me.key); err != nil {
		j.probe.close()
		return err
	}
	err := j.applyRows(s, rows)
	me.link()
	if cerr := j.probe.close(); err == nil {
		err = wrapJoinErr("scan matches", cerr)
	}
	return err
}

// start runs before the executor applies its first chunk: each side
// whose state table is empty gets a keyFilter of the keys written from
// then on. Every later write to the vnodes the actor owns is then its
// own (another actor's writes are to other vnodes, and vnodes move only
// by replacing the actors, see forget), so a key it has not written has
// no state.
func (j *HashJoin) start() error {
	j.started = true
	for _, side := range j.sides {
		pp, err := side.table.NewPrefixProbe(j.sc.Store)
		if err != nil {
			return wrapJoinErr("open state", err)
		}
		if pp.Empty() {
			side.epoch.seen = newKeyFilter()
		}
		if err := pp.Close(); err != nil {
			return wrapJoinErr("open state", err)
		}
	}
	return nil
}

// forget drops the key filters at a barrier that may change what the
// actor owns or who else writes its state (any mutation but flow
// control): a filter is right only while the actor has written every
// key of its vnodes.
func (j *HashJoin) forget(m Mutation) {
	switch m.(type) {
	case nil, *ThrottleMutation:
		return
	}
	for _, side := range j.sides {
		side.epoch.seen = nil
	}
}

// decode decodes every row of the batch into j.rows, and their ops into
// j.ops (both reused between batches).
func (j *HashJoin) decode(batch []*chunk.Chunk) [][]types.Datum {
	n := 0
	for _, c := range batch {
		n += c.NumRows() * len(c.Types)
	}
	j.flat = slices.Grow(j.flat[:0], n)[:n]
	j.rows, j.ops = j.rows[:0], j.ops[:0]
	flat := j.flat
	for _, c := range batch {
		w, start := len(c.Types), len(j.rows)
		for i := range c.NumRows() {
			j.rows = append(j.rows, flat[:w:w])
			j.ops = append(j.ops, c.Op(i))
			flat = flat[w:]
		}
		c.RowsInto(j.rows[start:])
	}
	return j.rows
}

func (j *HashJoin) applyRows(s int, rows [][]types.Datum) error {
	for i, row := range rows {
		var err error
		if j.ops[i].IsInsert() {
			err = j.insert(s, i, row)
		} else {
			err = j.delete(s, i, row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// insert applies the insertion of row, row i of the chunk, on side s.
func (j *HashJoin) insert(s, i int, row []types.Datum) error {
	me, other := j.sides[s], j.sides[1-s]
	if j.probe.rowKey[i] < 0 {
		if me.preserved {
			j.emitPadded(s, chunk.Insert, row)
		}
		return nil
	}
	matches, err := j.matches(s, i, row)
	if err != nil {
		return err
	}
	for _, m := range matches {
		if other.preserved {
			if err := j.bumpDegree(1-s, m, 1); err != nil {
				return err
			}
		}
		j.emitJoined(s, chunk.Insert, row, m)
	}
	if me.preserved && len(matches) == 0 {
		j.emitPadded(s, chunk.Insert, row)
	}
	if s == 0 && j.spec.Kind == JoinLeftSemi && len(matches) > 0 {
		j.emitLeft(chunk.Insert, row)
	}
	return j.store(me, row, int64(len(matches)), j.probe.key(i))
}

// delete applies the deletion of row, row i of the chunk, on side s.
func (j *HashJoin) delete(s, i int, row []types.Datum) error {
	me, other := j.sides[s], j.sides[1-s]
	if j.probe.rowKey[i] < 0 {
		if me.preserved {
			j.emitPadded(s, chunk.Delete, row)
		}
		return nil
	}
	matches, err := j.matches(s, i, row)
	if err != nil {
		return err
	}
	for _, m := range matches {
		j.emitJoined(s, chunk.Delete, row, m)
		if other.preserved {
			if err := j.bumpDegree(1-s, m, -1); err != nil {
				return err
			}
		}
	}
	if me.preserved && len(matches) == 0 {
		j.emitPadded(s, chunk.Delete, row)
	}
	if s == 0 && j.spec.Kind == JoinLeftSemi && len(matches) > 0 {
		j.emitLeft(chunk.Delete, row)
	}
	st := me.stored(row, nil)
	if len(me.dirty) > 0 {
		delete(me.dirty, me.rowKey(st))
	}
	return wrapJoinErr("delete row", me.stage(st, true, j.probe.key(i)))
}

// matches returns the stored rows of the side opposite s (degree column
// included, with this epoch's degree) that join with row, row i of the
// chunk. A preserved side's rows are copies (bumpDegree changes and keeps
// them); others are valid until the next chunk, and the slice until the
// next call.
func (j *HashJoin) matches(s, i int, row []types.Datum) ([][]types.Datum, error) {
	other := j.sides[1-s]
	stored, err := j.probe.stored(i)
	if err != nil {
		return nil, err
	}
	out := j.matchBuf[:0]
	for _, st := range stored {
		m := other.current(st)
		ok, err := j.cond(s, row, m[:len(other.types)])
		if err != nil {
			return nil, err
		}
		if ok && other.preserved {
			m = append([]types.Datum(nil), m...) // bumpDegree keeps it
		}
		if ok {
			out = append(out, m)
		}
	}
	j.matchBuf = out
	return out, nil
}

// cond evaluates the residual condition for row (of side s) and other.
func (j *HashJoin) cond(s int, row, other []types.Datum) (bool, error) {
	if j.spec.Cond == nil {
		return true, nil
	}
	if s == 0 {
		j.condRow = append(append(j.condRow[:0], row...), other...)
	} else {
		j.condRow = append(append(j.condRow[:0], other...), row...)
	}
	v, err := j.spec.Cond.Eval(j.condRow)
	if err != nil {
		return false, fmt.Errorf("stream: hash join condition %s: %w", j.spec.Cond, err)
	}
	b, _ := v.(bool)
	return b, nil
}

// bumpDegree changes the degree of m, a stored row of preserved side s, by
// delta, writes it back, and keeps m's padded row right: it is retracted
// when the degree leaves 0 and emitted when it returns to 0.
func (j *HashJoin) bumpDegree(s int, m []types.Datum, delta int64) error {
	side := j.sides[s]
	col := side.degreeCol()
	old, _ := m[col].(int64)
	n := old + delta
	if n < 0 {
		return fmt.Errorf("stream: hash join: degree of %v below zero", m[:col])
	}
	m[col] = n
	if old == 0 {
		j.emitPadded(s, chunk.Delete, m[:col])
		if j.spec.Kind == JoinLeftSemi {
			j.emitLeft(chunk.Insert, m[:col])
		}
	}
	if n == 0 {
		if j.spec.Kind == JoinLeftSemi {
			j.emitLeft(chunk.Delete, m[:col])
		}
		j.emitPadded(s, chunk.Insert, m[:col])
	}
	if side.dirty == nil {
		side.dirty = map[string][]types.Datum{}
	}
	side.dirty[side.rowKey(m)] = m
	return nil
}

// store writes row of side me with its degree; probed is the other
// side's prefix key of its join key.
func (j *HashJoin) store(me *joinSide, row []types.Datum, degree int64, probed []byte) error {
	me.added++
	st := me.stored(row, degree)
	if len(me.dirty) > 0 {
		delete(me.dirty, me.rowKey(st))
	}
	return wrapJoinErr("store row", me.stage(st, false, probed))
}

// emitJoined emits row (of side s) joined with the other side's stored row m.
// A semi or anti join emits no joined rows.
func (j *HashJoin) emitJoined(s int, op chunk.Op, row, m []types.Datum) {
	if j.spec.Kind.filtersLeft() {
		return
	}
	nl := len(j.spec.LeftTypes)
	other := m[:len(j.sides[1-s].types)]
	if s == 0 {
		copy(j.outRow, row)
		copy(j.outRow[nl:], other)
	} else {
		copy(j.outRow, other)
		copy(j.outRow[nl:], row)
	}
	j.out.add(op, j.outRow)
}

// emitPadded emits row of side s with NULLs for the other side's columns.
// A semi join has no padded rows; an anti join's are the left rows
// themselves.
func (j *HashJoin) emitPadded(s int, op chunk.Op, row []types.Datum) {
	switch j.spec.Kind {
	case JoinLeftSemi:
		return
	case JoinLeftAnti:
		j.emitLeft(op, row)
		return
	}
	clear(j.outRow)
	if s == 0 {
		copy(j.outRow, row[:len(j.spec.LeftTypes)])
	} else {
		copy(j.outRow[len(j.spec.LeftTypes):], row[:len(j.spec.RightTypes)])
	}
	j.out.add(op, j.outRow)
}

// emitLeft emits left row (a semi or anti join's output).
func (j *HashJoin) emitLeft(op chunk.Op, row []types.Datum) {
	nl := len(j.spec.LeftTypes)
	copy(j.outRow, row[:nl])
	j.out.add(op, j.outRow[:nl])
}

func wrapJoinErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("stream: hash join: %s: %w", what, err)
}
