package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Values is the leaf of a view's pipeline for constant rows (VALUES, or a
// SELECT without FROM). It is a backfill whose snapshot is its rows, which
// never change, and which has no log: a creating job emits the rows on its
// own barriers, records how many it emitted in its state at each job
// barrier (atomically with what the view made of them, I3), and then
// waits, drained, to join the running graph; after the join, and in every
// rebuild of the job once it has joined (restart, recovery, rescale), it
// emits nothing and only passes barriers on. The rows thus reach the view
// exactly once over its life.
//
// A Values runs in a fragment of one actor (it has no vnodes to split),
// so its progress is one row of one state table (ValuesTable). It has no
// upstream, so its barriers come from a Source of its own that carries
// nothing else: while the job creates, that source feeds a writer actor
// in the running graph that passes the barriers on to the Values from
// the JoinMutation on (as a scan's LogWriter does, with no log to keep);
// once joined, the Values actor owns the source itself (Follow).
type Values struct {
	up    Input // the barriers of the running graph (see ValuesOptions)
	rows  [][]expr.Expr
	typ   []types.Type
	sc    *StateContext
	opts  ValuesOptions
	phase valuesPhase

	pos     int64 // rows emitted (persisted or staged)
	dirty   bool  // pos changed since the last job barrier
	builder *chunk.Builder
	row     []types.Datum
}

type valuesPhase uint8

const (
	valuesLoad   valuesPhase = iota // read the persisted position
	valuesEmit                      // emitting the rows
	valuesWait                      // all emitted: waiting to join
	valuesParked                    // waiting for the running graph's JoinMutation
	valuesFollow                    // joined: passing barriers on
)

// ValuesOptions configure a Values.
type ValuesOptions struct {
	// Backfill makes the Values emit its rows (those it has not emitted
	// yet, after a restart or rescale) on its job's own barriers, which
	// arrive on Barriers; up then carries the running graph's barriers
	// from the job's join on. Without it the rows were emitted when the
	// view was created: up is the Values' own source.
	Backfill bool
	Barriers *Receiver
	// State holds the position (ValuesTable).
	State *storage.Table
	// Progress, if not nil, is updated for SHOW JOBS and the job's join.
	Progress *BackfillProgress
	// Paused holds the rows back (I2) until a barrier resumes the job.
	Paused bool
	// Job identifies the job for ThrottleMutations.
	Job uint32
}

// ValuesTable returns the layout of a Values' state table with id: one
// row (key 0, whether every row was emitted, how many were).
func ValuesTable(id uint32) *storage.Table {
	return &storage.Table{ID: id, Types: []types.Type{types.TInt16, types.TBool, types.TInt64}, PK: []int{0}}
}

// NewValues returns the executor of constant rows (expressions without
// column references) of the given types; up and sc as for ValuesOptions.
func NewValues(up Input, rows [][]expr.Expr, typ []types.Type, sc *StateContext, opts ValuesOptions) *Values {
	v := &Values{up: up, rows: rows, typ: typ, sc: sc, opts: opts, phase: valuesFollow}
	if opts.Backfill {
		v.phase = valuesLoad
	}
	return v
}

// Types implements Executor.
func (v *Values) Types() []types.Type { return v.typ }

// Next implements Executor.
func (v *Values) Next(ctx context.Context) (Message, error) {
	for {
		switch v.phase {
		case valuesLoad:
			if err := v.load(); err != nil {
				return Message{}, err
			}
		case valuesEmit:
			m, ok, err := v.opts.Barriers.Poll(ctx)
			if err != nil {
				return Message{}, err
			}
			if ok {
				return v.jobBarrier(m)
			}
			if v.opts.Paused {
				m, err := v.opts.Barriers.Next(ctx)
				if err != nil {
					return Message{}, err
				}
				return v.jobBarrier(m)
			}
			working(ctx)
			m, ok, err = v.emit()
			if err != nil || ok {
				return m, err
			}
		case valuesWait:
			m, err := v.opts.Barriers.Next(ctx)
			if err != nil {
				return Message{}, err
			}
			return v.jobBarrier(m)
		case valuesParked:
			m, ok, err := v.parked(ctx)
			if err != nil || ok {
				return m, err
			}
		default:
			return v.follow(ctx)
		}
	}
}

// load reads the persisted position: the rows a committed job barrier
// recorded as emitted are never emitted again.
func (v *Values) load() error {
	row, ok, err := v.opts.State.Get(v.sc.Batch(), []types.Datum{int64(0)})
	if err != nil {
		return fmt.Errorf("stream: loading the position of constant rows (job %d): %w", v.opts.Job, err)
	}
	v.phase = valuesEmit
	if ok {
		v.pos = row[2].(int64)
		if row[1].(bool) {
			v.pos = int64(len(v.rows))
		}
	} else {
		v.dirty = true // the first barrier records that the job started
	}
	if v.pos >= int64(len(v.rows)) {
		v.phase = valuesWait
	}
	v.publish()
	if v.opts.Progress != nil {
		v.opts.Progress.setEpoch(v.sc.Store.CommittedEpoch(), false)
		v.opts.Progress.markResumed()
	}
	return nil
}

// emit evaluates and returns the next chunk of rows; ok is false once
// every row has been emitted (the phase then moves on).
func (v *Values) emit() (Message, bool, error) {
	if invariants && v.opts.Paused {
		panic(fmt.Sprintf("invariant I2 violated: paused constant rows of job %d emitted", v.opts.Job))
	}
	if failpoint.Enabled {
		if err := hit(failpoint.BackfillSnapshotRead); err != nil {
			return Message{}, false, fmt.Errorf("stream: constant rows of job %d: %w", v.opts.Job, err)
		}
	}
	if v.builder == nil {
		v.builder = chunk.NewBuilder(v.typ)
	}
	for v.pos < int64(len(v.rows)) && v.builder.Len() < scanChunkRows {
		v.row = v.row[:0]
		for _, e := range v.rows[v.pos] {
			d, err := e.Eval(nil)
			if err != nil {
				return Message{}, false, fmt.Errorf("stream: constant rows of job %d: %w", v.opts.Job, err)
			}
			v.row = append(v.row, d)
		}
		v.builder.Append(chunk.Insert, v.row)
		v.pos++
		v.dirty = true
	}
	if v.pos >= int64(len(v.rows)) {
		v.phase = valuesWait
		if v.opts.Progress != nil {
			v.opts.Progress.caughtUp.Store(true)
		}
	}
	v.publish()
	if v.builder.Len() == 0 {
		return Message{}, false, nil
	}
	return Message{Chunk: v.builder.Build()}, true, nil
}

// jobBarrier takes one of the job's own barriers: it applies its
// mutation, stages the position for the epoch it ends and returns it.
func (v *Values) jobBarrier(m Message) (Message, error) {
	if m.Barrier == nil {
		return Message{}, fmt.Errorf("stream: constant rows of job %d received data on the job's barrier channel", v.opts.Job)
	}
	if failpoint.Enabled {
		if err := hit(failpoint.ExecScanBarrier); err != nil {
			return Message{}, err
		}
	}
	switch mut := m.Barrier.Mutation.(type) {
	case *ThrottleMutation:
		if mut.Kind == ThrottleBackfill && mut.Job == v.opts.Job && v.opts.Job != 0 {
			v.opts.Paused = mut.Paused
		}
	case *prepareJoin:
		v.phase = valuesParked
	}
	if v.dirty {
		all := v.pos >= int64(len(v.rows))
		if err := v.opts.State.Insert(v.sc.Batch(), []types.Datum{int64(0), all, v.pos}); err != nil {
			return Message{}, err
		}
		v.dirty = false
	}
	if p := v.opts.Progress; p != nil {
		// With every row emitted, nothing is left to catch up with: the
		// job may join at any of its barriers.
		drained := v.phase != valuesEmit
		p.setEpoch(v.sc.Store.CommittedEpoch(), drained)
		p.caughtUp.Store(drained)
	}
	return m, nil
}

// parked waits, after the job's last barrier, for the running graph's
// JoinMutation, which the job's writer passes on; a job barrier (one that
// stops the job) may come first. The JoinMutation's barrier is the
// running graph's last without the job's actors: it is not passed on.
func (v *Values) parked(ctx context.Context) (Message, bool, error) {
	m, ok, err := awaitJoin(ctx, v.up, v.opts.Barriers, v.opts.Job, fmt.Sprintf("constant rows of job %d", v.opts.Job), v.jobBarrier)
	if err != nil || ok {
		return m, ok, err
	}
	v.phase = valuesFollow
	v.release()
	v.publish()
	return Message{}, false, nil
}

// follow passes the running graph's barriers on; the source carries
// nothing else.
func (v *Values) follow(ctx context.Context) (Message, error) {
	m, err := v.up.Next(ctx)
	if err != nil {
		return m, err
	}
	if m.Chunk != nil {
		m.Chunk.Release()
		return Message{}, fmt.Errorf("stream: constant rows of job %d received rows from upstream", v.opts.Job)
	}
	return m, nil
}

// publish updates the live progress.
func (v *Values) publish() {
	p := v.opts.Progress
	if p == nil {
		return
	}
	phase := PhaseSnapshot
	switch v.phase {
	case valuesWait, valuesParked:
		phase = PhaseLogStore
	case valuesFollow:
		phase = PhaseDone
	}
	p.set(phase, v.pos, int64(len(v.rows)), 0)
}

func (v *Values) release() {
	if v.builder != nil {
		v.builder.Release()
		v.builder = nil
	}
}

// Close releases the chunk builder (a job dropped mid-backfill).
func (v *Values) Close() { v.release() }
