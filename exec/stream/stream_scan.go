package stream

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// scanChunkRows is how many rows one snapshot or log-store chunk carries.
const scanChunkRows = 1024

type scanPhase uint8

const (
	phaseLoad     scanPhase = iota // load persisted progress from the pinned snapshot
	phaseSnapshot                  // emitting the snapshot, vnode by vnode
	phaseLogStore                  // replaying upstream changes logged meanwhile
	phaseParked                    // waiting for the running graph's JoinMutation
	phaseDrain                     // joined: replaying the rest of the log store
	phaseFollow                    // passing upstream through
)

// ScanOptions configure a StreamScan.
type ScanOptions struct {
	// Backfill makes the scan emit the upstream's existing rows first,
	// on its job's own barriers (see CreatingJob), continuing from its
	// persisted progress when there is some (after a restart, recovery
	// or rescale).
	Backfill bool
	// Barriers, with Backfill, is where the job's own barriers arrive.
	Barriers *Receiver
	// State holds the backfill's progress and log-store tables.
	State *BackfillTables
	// Progress, if not nil, is updated for SHOW JOBS.
	Progress *BackfillProgress
	// RateLimit caps the snapshot rows emitted per second (0: no limit).
	RateLimit int64
	// Paused holds the backfill: no snapshot or logged row is emitted
	// (I2), while upstream changes are still logged and barriers pass.
	Paused bool
	// Job identifies the job for ThrottleMutations; Scans is how many
	// scan actors share its rate limit.
	Job   uint32
	Scans int
	// Vnodes, when not nil, are the upstream vnodes the scan owns: it
	// receives the changes of those vnodes only (its upstream dispatches
	// through an Exchange on the upstream's DistKey) and backfills only
	// them. nil: every vnode.
	Vnodes *storage.VnodeBitmap
	// Read, when not nil, are the upstream's columns the plan above the
	// scan reads: the others it emits as NULL (see scan_prune.go).
	Read []bool
	// Splits, with Backfill, makes the snapshot the messages a source of
	// splits (a Kafka SOURCE, which stores no rows) emitted up to the
	// pinned epoch, read again from its topic (split_backfill.go).
	Splits *SplitBackfill
}

// StreamScan is the leaf of a view's pipeline: it reads the changes of an
// upstream relation (a table or another view), and with Backfill first
// emits the relation's existing rows. A scan of parallelism N is N
// StreamScans in N actors, each owning a set of the upstream's vnodes
// (ScanOptions.Vnodes): it backfills only them and receives the changes
// of those vnodes only, and all its progress and logged changes are kept
// per vnode (see BackfillTables).
//
// A backfilling scan belongs to a CreatingJob, which runs on its own
// barriers (ScanOptions.Barriers), off the running graph's critical path
// (I8). Backfill runs in phases (see ../../ARCHITECTURE.md):
//
//  1. Snapshot: the upstream's rows as of a committed epoch E0, pinned
//     by the coordinator when the job started (Pin), read vnode by vnode
//     in pk order, one chunk per call.
//  2. Log store: the upstream changes of the epochs after E0, which the
//     scan's LogWriter appends to the log store in the running graph's
//     epochs, are replayed once the snapshot is done, as they commit,
//     and deleted as they are consumed. When the log has been found
//     empty, the scan reports it drained; once every scan of the job is
//     drained, the job's barrier asks them to park (prepareJoin).
//  3. Join: the running graph's JoinMutation reaches the scan through its
//     writer, which from then on passes upstream on to it. Once that
//     barrier has committed, the log holds every change up to it; the
//     scan replays the rest of it, then follows upstream directly, in
//     the running graph's epochs.
//
// Job barriers are checked for between every chunk and preempt rate-limit
// waits, so a backfill holds its own barriers back for at most one
// chunk's work, and the running graph's not at all. Per-vnode progress
// (last pk emitted, rows read) is written to the progress table at every
// barrier, so it commits atomically with the rows emitted and the log
// entries consumed (I3).
//
// Resume at committed epoch Ec: the E0 snapshot is gone, so the rest of
// each unfinished vnode is read from a snapshot at Ec instead. Those rows
// already include the changes logged for keys past the vnode's position,
// so at resume such log entries (committed at or before Ec: they are read
// through the same snapshot) are deleted; entries for keys at or before
// the position (rows already emitted) are kept and replayed. Each row of
// the upstream and each change thus reaches the view exactly once.
type StreamScan struct {
	up       Input
	upstream *storage.Table
	sc       *StateContext
	opts     ScanOptions
	phase    scanPhase

	owned  storage.VnodeBitmap
	prog   *backfillState
	pinned *storage.Snapshot // the snapshot the job pinned for the scan
	// pinnedEpoch is the running graph's epoch pinned is at.
	pinnedEpoch uint64
	snap        *storage.Snapshot
	iter        *storage.ChunkScan
	dec         *storage.RowDecoder // the snapshot's rows' decoder, kept from vnode to vnode
	pending     int64               // rows of vnode emitted since its position was recorded
	vnode       int                 // the vnode being read
	next        int                 // index in prog.owned of the next vnode to read
	builder     *chunk.Builder
	nextAt      time.Time // rate limit: no snapshot chunk before this
	// drained: the log store was found empty since the last job barrier;
	// drainedAt is the running graph's committed epoch it was empty at.
	drained   bool
	drainedAt uint64
	// roundEpoch is the running graph's committed epoch when the current
	// round over the log store began.
	roundEpoch uint64
	// wake asks the job for its next barrier (set when the job starts).
	wake chan<- struct{}
	// splits is the read of a source's splits (opts.Splits) in the
	// snapshot phase.
	splits *splitScan
	// splitLost are the ranges the splits' read found lost since the
	// last job barrier (saveLost).
	splitLost []splitError
}

// NewStreamScan returns a scan of the relation whose state table is
// upstream and whose changes arrive on up; sc is the actor's state. A
// backfilling scan reads up (its LogWriter's channel) only once joined.
func NewStreamScan(up Input, upstream *storage.Table, sc *StateContext, opts ScanOptions) *StreamScan {
	s := &StreamScan{up: up, upstream: upstream, sc: sc, opts: opts, owned: storage.AllVnodes()}
	if opts.Vnodes != nil {
		s.owned = *opts.Vnodes
	}
	s.opts.Read = scanReads(opts.Read, upstream)
	if !opts.Backfill {
		s.phase = phaseFollow
	}
	return s
}

// Pin gives a backfilling scan the snapshot it starts from: the committed
// state when its job starts, at the running graph's epoch. The scan
// closes it.
func (s *StreamScan) Pin(snap *storage.Snapshot, epoch uint64) {
	if s.pinned != nil {
		s.pinned.Close()
	}
	s.pinned, s.pinnedEpoch = snap, epoch
}

// Types implements Executor.
func (s *StreamScan) Types() []types.Type { return s.upstream.Types }

// Next implements Executor.
func (s *StreamScan) Next(ctx context.Context) (Message, error) {
	for {
		switch s.phase {
		case phaseLoad:
			if err := s.load(); err != nil {
				return Message{}, err
			}
		case phaseSnapshot, phaseLogStore:
			m, ok, err := s.opts.Barriers.Poll(ctx)
			if err != nil {
				return Message{}, err
			}
			if ok {
				return s.jobBarrier(m)
			}
			if s.throttled() {
				if m, ok, err := s.waitThrottle(ctx); err != nil || ok {
					return m, err
				}
				continue
			}
			// Each chunk read is a slice of a creating job's CPU
			// (cpuSlots): a scan under an operator that takes chunks
			// without blocking (a local aggregate) never returns to
			// its actor's loop between them.
			working(ctx)
			replaying := s.phase == phaseLogStore
			if replaying {
				m, ok, err = s.nextLogged()
			} else if s.splits != nil {
				m, ok, err = s.nextSplits(ctx)
			} else {
				m, ok, err = s.nextSnapshot()
			}
			if invariants && ok {
				s.checkPausedEmit(m) // I2
			}
			if failpoint.Enabled && ok && err == nil {
				if err := hitMsg(failpoint.ExecScanChunk, failpoint.ExecScanBarrier, m); err != nil {
					return Message{}, err
				}
			}
			if err != nil || ok {
				return m, err
			}
			if replaying {
				// Drained: nothing to do until the job's next barrier.
				m, err := s.opts.Barriers.Next(ctx)
				if err != nil {
					return Message{}, err
				}
				return s.jobBarrier(m)
			}
		case phaseParked:
			m, ok, err := s.parked(ctx)
			if err != nil || ok {
				return m, err
			}
		case phaseDrain:
			m, ok, err := s.drainLog()
			if err != nil || ok {
				return m, err
			}
		default:
			return s.follow(ctx)
		}
	}
}

// follow passes the next upstream message through, with the upstream's
// watermark: only here, once the backfill is over, are the rows that
// follow a barrier those the upstream sends after it. The first barrier
// after a backfill saves its final progress: the vnodes finished and the
// log replayed since the last barrier (I3; a resume would otherwise read
// them again).
func (s *StreamScan) follow(ctx context.Context) (Message, error) {
	m, err := s.up.Next(ctx)
	if err != nil {
		return m, err
	}
	if failpoint.Enabled {
		if err := hitMsg(failpoint.ExecScanChunk, failpoint.ExecScanBarrier, m); err != nil {
			return Message{}, err
		}
	}
	m.Chunk = narrowTo(m.Chunk, len(s.upstream.Types))
	if invariants {
		s.checkOwned(m)
	}
	m.Chunk = nullUnread(m.Chunk, s.opts.Read)
	if m.Barrier != nil && s.prog != nil {
		if err := s.prog.save(s.sc.Batch()); err != nil {
			return Message{}, err
		}
		s.prog = nil
	}
	if len(m.Watermarks) > 0 {
		// Only the upstream's own watermark bounds its rows: one that
		// came through a view upstream bounds that view's input.
		w, ok := findWatermark(m.Watermarks, s.upstream.ID)
		m.Watermarks = nil
		if ok {
			m.Watermarks = []Watermark{w}
		}
	}
	return m, nil
}

// jobBarrier takes one of the job's own barriers: it applies its
// mutation, writes the progress for the epoch it ends and returns it.
func (s *StreamScan) jobBarrier(m Message) (Message, error) {
	if m.Barrier == nil {
		return Message{}, fmt.Errorf("stream: scan of table %d received data on its job's barrier channel", s.upstream.ID)
	}
	if failpoint.Enabled {
		if err := hit(failpoint.ExecScanBarrier); err != nil {
			return Message{}, err
		}
	}
	switch mut := m.Barrier.Mutation.(type) {
	case *ThrottleMutation:
		s.applyMutation(mut)
	case *prepareJoin:
		s.phase = phaseParked
	}
	if err := s.prog.save(s.sc.Batch()); err != nil {
		return Message{}, err
	}
	if err := s.saveLost(s.sc.Batch()); err != nil {
		return Message{}, err
	}
	if s.opts.Progress != nil {
		epoch := s.prog.epoch
		if s.drained && s.phase != phaseSnapshot {
			epoch = max(epoch, s.drainedAt)
			s.prog.epoch = epoch
		}
		s.opts.Progress.setEpoch(epoch, s.drained && s.phase != phaseSnapshot)
	}
	s.drained = false
	s.publish()
	return m, nil
}

// parked waits, after the job's last barrier, for the running graph's
// JoinMutation, which its writer passes on; a job barrier (one that stops
// the job) may come first. Once the join's epoch has committed, the log
// store holds every change before it: the scan replays the rest of it.
func (s *StreamScan) parked(ctx context.Context) (Message, bool, error) {
	m, ok, err := awaitJoin(ctx, s.up, s.opts.Barriers, s.opts.Job, fmt.Sprintf("scan of table %d", s.upstream.ID), s.jobBarrier)
	if err != nil || ok {
		return m, ok, err
	}
	// The drain reads one whole round from here: a round begun before
	// the join may have passed vnodes that got entries since.
	s.prog.visited = 0
	s.phase = phaseDrain
	return Message{}, false, nil
}

// awaitJoin is the wait of a creating job's leaf (a scan, constant rows)
// after the job's last barrier of its own: for the running graph's
// JoinMutation of job, which the leaf's writer passes on through up, or
// for a job barrier (one that stops the job), which it hands to
// jobBarrier and returns (ok true). The JoinMutation's barrier is the
// running graph's last without the job's actors: it is not passed on;
// awaitJoin returns (ok false) once its epoch has committed.
func awaitJoin(ctx context.Context, up Input, barriers *Receiver, job uint32, what string,
	jobBarrier func(Message) (Message, error)) (Message, bool, error) {
	fwd, ok := up.(*Receiver)
	if !ok {
		return Message{}, false, fmt.Errorf("stream: %s: a backfill follows one writer", what)
	}
	var m Message
	var open bool
	mayBlock(ctx)
	defer working(ctx)
	select {
	case m, open = <-barriers.C:
		if !open {
			return Message{}, false, ErrUpstreamEnded
		}
		m, err := jobBarrier(m)
		return m, true, err
	case m, open = <-fwd.C:
		if !open {
			return Message{}, false, ErrUpstreamEnded
		}
	case <-ctx.Done():
		return Message{}, false, ctx.Err()
	}
	var j *JoinMutation
	if m.Barrier != nil {
		j, _ = m.Barrier.Mutation.(*JoinMutation)
	}
	if j == nil || j.Job != job {
		return Message{}, false, fmt.Errorf("stream: %s received upstream data before its job joined", what)
	}
	if err := m.Barrier.commit.wait(ctx); err != nil {
		return Message{}, false, err
	}
	if failpoint.Enabled {
		if err := hit(failpoint.BackfillJoin); err != nil {
			return Message{}, false, err
		}
	}
	return Message{}, false, nil
}

// drainLog, once joined, replays the rest of the log store, unthrottled
// (it holds at most the few epochs since the job drained), in the running
// graph's epoch; ok is false once it is empty: the scan then follows.
func (s *StreamScan) drainLog() (Message, bool, error) {
	c, round, err := s.prog.consumeLog(s.sc.Batch(), s.builder, scanChunkRows)
	if err != nil {
		return Message{}, false, err
	}
	if c != nil {
		s.publish()
		return Message{Chunk: c}, true, nil
	}
	if !round {
		return Message{}, false, nil // the round goes on
	}
	s.phase = phaseFollow
	s.builder.Release()
	s.builder = nil
	s.publish()
	return Message{}, false, nil
}

// applyMutation takes a flow-control change meant for this scan's job: it
// holds from this barrier on (I2).
func (s *StreamScan) applyMutation(t *ThrottleMutation) {
	if t.Kind != ThrottleBackfill || t.Job != s.opts.Job || s.opts.Job == 0 {
		return
	}
	s.opts.Paused = t.Paused
	s.opts.RateLimit = t.RateLimit
	if n := int64(s.opts.Scans); n > 1 && t.RateLimit > 0 {
		s.opts.RateLimit = max(1, t.RateLimit/n)
	}
	s.nextAt = time.Time{}
}

// throttled reports whether a pause or the rate limit holds the next
// backfill chunk (snapshot or log store). The limit holds a chunk only
// once the scan is rateSlack ahead of it: waiting out each chunk's own
// fraction of a millisecond on a timer capped a scan at about a million
// rows a second under any limit, so an adaptive backfill ran at a third
// of an unlimited one's speed on an idle machine.
func (s *StreamScan) throttled() bool {
	return s.opts.Paused || (s.opts.RateLimit > 0 && time.Until(s.nextAt) > rateSlack)
}

// rateSlack is how far ahead of its rate limit a scan may run.
const rateSlack = 5 * time.Millisecond

// waitThrottle waits until the rate limit allows a chunk; a job barrier
// arriving meanwhile ends the wait at once and is returned (ok).
func (s *StreamScan) waitThrottle(ctx context.Context) (Message, bool, error) {
	if s.opts.Paused {
		m, err := s.opts.Barriers.Next(ctx)
		if err != nil {
			return Message{}, false, err
		}
		m, err = s.jobBarrier(m)
		return m, true, err
	}
	t := time.NewTimer(time.Until(s.nextAt))
	defer t.Stop()
	if p := s.opts.Progress; p != nil {
		defer p.noteThrottled(time.Now())
	}
	m, ok, err := s.opts.Barriers.NextBefore(ctx, t.C)
	if err != nil || !ok {
		return Message{}, false, err
	}
	m, err = s.jobBarrier(m)
	return m, true, err
}

// chunkLimit is how many snapshot rows the next chunk may carry: with a
// rate limit, a tenth of a second's worth, so the limit holds over short
// windows.
func (s *StreamScan) chunkLimit() int {
	if r := s.opts.RateLimit; r > 0 && r/10 < scanChunkRows {
		return int(max(1, r/10))
	}
	return scanChunkRows
}

// charge books n emitted rows against the rate limit.
func (s *StreamScan) charge(n int) {
	if s.opts.RateLimit <= 0 || n == 0 {
		return
	}
	now := time.Now()
	if s.nextAt.Before(now) {
		s.nextAt = now
	}
	s.nextAt = s.nextAt.Add(time.Duration(float64(n) / float64(s.opts.RateLimit) * float64(time.Second)))
}

// load reads persisted progress (none for a new backfill) through the
// pinned snapshot and, when resuming, drops the log entries that snapshot
// covers.
func (s *StreamScan) load() error {
	if s.pinned == nil {
		return fmt.Errorf("stream: scan of table %d started without a pinned snapshot", s.upstream.ID)
	}
	p, err := loadBackfillState(s.pinned, s.opts.State, s.upstream, s.owned)
	if err != nil {
		return err
	}
	p.epoch = s.pinnedEpoch
	p.logCols = logReads(s.opts.Read)
	s.prog = p
	s.builder = newScanBuilder(s.upstream.Types, s.opts.Read)
	if p.snapshotDone {
		s.pinned.Close()
		s.pinned = nil
		s.phase = phaseLogStore
		s.publishLoaded()
		return nil
	}
	s.snap, s.pinned = s.pinned, nil
	// Also when nothing was emitted yet (fresh): the writers may have
	// logged changes before a recovery that came before the job's first
	// checkpoint, and the snapshot holds them.
	if err := p.purgeCovered(s.snap, s.sc.Batch()); err != nil {
		return err
	}
	if s.opts.Splits != nil {
		err := s.startSplits(s.snap)
		s.snap.Close()
		s.snap = nil
		if err != nil {
			return err
		}
	}
	s.next = 0
	s.phase = phaseSnapshot
	s.publishLoaded()
	return nil
}

// publishLoaded publishes the progress just loaded, the scan's committed
// position.
func (s *StreamScan) publishLoaded() {
	if s.opts.Progress != nil {
		s.opts.Progress.setEpoch(s.prog.epoch, false)
	}
	s.publish()
	if s.opts.Progress != nil {
		s.opts.Progress.markResumed()
	}
}

// nextSnapshot emits the next chunk of snapshot rows; ok is false when the
// snapshot is exhausted (the phase then moves on).
func (s *StreamScan) nextSnapshot() (Message, bool, error) {
	if failpoint.Enabled {
		if err := hit(failpoint.BackfillSnapshotRead); err != nil {
			return Message{}, false, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
		}
	}
	limit := s.chunkLimit()
	for s.builder.Len() < limit {
		if s.iter == nil && !s.openNextVnode() {
			break
		}
		n, err := s.iter.AppendRows(s.builder, chunk.Insert, limit)
		s.pending += int64(n)
		if err == nil && s.builder.Len() < limit {
			err = s.recordPosition() // the vnode is done: its last row's position
		}
		if err != nil {
			return Message{}, false, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
		}
		if s.builder.Len() < limit {
			s.iter.Close()
			s.iter = nil
			s.prog.finishVnode(s.vnode)
		}
	}
	if err := s.recordPosition(); err != nil {
		return Message{}, false, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
	}
	if n := s.builder.Len(); n > 0 {
		s.charge(n)
		s.publish()
		return Message{Chunk: s.builder.Build()}, true, nil
	}
	s.snap.Close()
	s.snap = nil
	s.prog.snapshotDone = true
	s.phase = phaseLogStore
	s.publish()
	return Message{}, false, nil
}

// recordPosition records the rows of the vnode being read emitted since
// the last call: how many, and the last one's pk (rows are decoded
// straight into chunks; only this one is decoded to Datums).
func (s *StreamScan) recordPosition() error {
	if s.pending == 0 {
		return nil
	}
	row, err := s.iter.LastRow()
	if err != nil {
		return err
	}
	s.prog.advance(s.vnode, row, s.pending)
	s.pending = 0
	return nil
}

// openNextVnode positions the iterator on the next unfinished owned vnode.
func (s *StreamScan) openNextVnode() bool {
	for s.next < len(s.prog.owned) {
		s.vnode = int(s.prog.owned[s.next])
		s.next++
		v := &s.prog.vnodes[s.vnode]
		if v.done {
			continue
		}
		if s.dec == nil {
			s.dec = s.upstream.NewRowDecoder(s.opts.Read)
		}
		s.iter = s.upstream.ScanVnodeChunks(s.snap, uint16(s.vnode), v.lastPK).Decoding(s.dec)
		return true
	}
	return false
}

// nextLogged emits the next chunk of committed logged changes, deleting
// them from the log store; ok is false once a round over the owned
// vnodes has ended since the job's last barrier (drained): every change
// committed before the round began has been emitted.
func (s *StreamScan) nextLogged() (Message, bool, error) {
	if s.drained {
		return Message{}, false, nil
	}
	if failpoint.Enabled {
		if err := hit(failpoint.BackfillLogRead); err != nil {
			return Message{}, false, fmt.Errorf("stream: log store of table %d: %w", s.upstream.ID, err)
		}
	}
	if s.prog.visited == 0 {
		// A round begins: it reads every change committed by now.
		s.roundEpoch = s.sc.Store.CommittedEpoch()
	}
	c, round, err := s.prog.consumeLog(s.sc.Batch(), s.builder, s.chunkLimit())
	if err != nil {
		return Message{}, false, err
	}
	if round {
		s.drained, s.drainedAt = true, s.roundEpoch
		if s.opts.Progress != nil {
			s.opts.Progress.caughtUp.Store(true)
		}
		select { // the job may be ready to join: no need to wait
		case s.wake <- struct{}{}:
		default:
		}
	}
	if c != nil {
		s.charge(c.NumRows())
		s.publish()
		return Message{Chunk: c}, true, nil
	}
	s.publish()
	return Message{}, false, nil
}

// publish updates the live progress.
func (s *StreamScan) publish() {
	if s.opts.Progress == nil || s.prog == nil {
		return
	}
	phase := PhaseSnapshot
	switch s.phase {
	case phaseLogStore, phaseParked, phaseDrain:
		phase = PhaseLogStore
	case phaseFollow:
		phase = PhaseDone
	}
	s.opts.Progress.set(phase, s.prog.rowsRead, s.prog.estimateTotal(), s.prog.logWaiting-s.prog.logRead)
}

// Close releases a snapshot still open (a job dropped mid-backfill).
func (s *StreamScan) Close() {
	s.closeSplits()
	if s.iter != nil {
		s.iter.Close()
		s.iter = nil
	}
	if s.snap != nil {
		s.snap.Close()
		s.snap = nil
	}
	if s.pinned != nil {
		s.pinned.Close()
		s.pinned = nil
	}
	if s.builder != nil {
		s.builder.Release()
		s.builder = nil
	}
}
