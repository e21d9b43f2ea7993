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
	phaseFirstBarrier scanPhase = iota // waiting for the barrier that adds us
	phaseLoad                          // load persisted progress, pin the snapshot
	phaseSnapshot                      // emitting the snapshot, vnode by vnode
	phaseLogStore                      // replaying upstream changes logged meanwhile
	phaseFollow                        // passing upstream through
)

// ScanOptions configure a StreamScan.
type ScanOptions struct {
	// Backfill makes the scan emit the upstream's existing rows first.
	Backfill bool
	// Resume continues a backfill from its persisted progress (after a
	// restart or recovery) instead of waiting for an Add barrier.
	Resume bool
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
}

// StreamScan is the leaf of a view's pipeline: it reads the changes of an
// upstream relation (a table or another view) from that relation's
// dispatcher, and with Backfill first emits the relation's existing rows.
// A scan of parallelism N is N StreamScans in N actors, each owning a set
// of the upstream's vnodes (ScanOptions.Vnodes): it receives the changes
// of those vnodes only and backfills only them, and all its progress and
// logged changes are kept per vnode (see BackfillTables). Each pins its
// own snapshot, at the same epoch E0: no epoch after E0 can commit before
// every scan actor has loaded.
//
// Backfill runs in phases (see ../../ARCHITECTURE.md):
//
//  1. Snapshot: the upstream's rows as of a pinned committed epoch E0 (the
//     one that ended at the Add barrier: the actor commits E0 before calling
//     Next again), read vnode by vnode in pk order, one chunk per call.
//  2. Log store: upstream changes that arrive meanwhile (epochs after E0) are
//     appended to a log-store table in the actor's epoch batch, in Pebble,
//     never in memory; once the snapshot is done they are replayed in order
//     and deleted as they are consumed.
//  3. Follow: when the log store is empty, upstream passes straight through.
//
// Barriers are forwarded as they arrive (they are checked for between every
// chunk), so a backfill holds the graph back for at most one chunk's work.
// Per-vnode progress (last pk emitted, rows read) is written to the
// progress table at every barrier, so it commits atomically with the rows
// emitted and the log store (I3).
//
// Resume after a restart at committed epoch Ec: the E0 snapshot is gone, so
// the rest of each unfinished vnode is read from a snapshot at Ec instead.
// Those rows already include the changes logged for keys past the vnode's
// position, so at resume such log entries are deleted; entries for keys at
// or before the position (rows already emitted) are kept and replayed. Each
// row of the upstream and each change thus reaches the view exactly once.
type StreamScan struct {
	up       Input
	upstream *storage.Table
	sc       *StateContext
	opts     ScanOptions
	phase    scanPhase

	owned   storage.VnodeBitmap
	prog    *backfillState
	snap    *storage.Snapshot
	iter    *storage.ChunkScan
	pending int64 // rows of vnode emitted since its position was recorded
	vnode   int   // the vnode being read
	next    int   // index in prog.owned of the next vnode to read
	builder *chunk.Builder
	logBuf  []types.Datum
	pairBuf []types.Datum
	nextAt  time.Time // rate limit: no snapshot chunk before this
}

// NewStreamScan returns a scan of the relation whose state table is
// upstream and whose changes arrive on up; sc is the actor's state.
func NewStreamScan(up Input, upstream *storage.Table, sc *StateContext, opts ScanOptions) *StreamScan {
	s := &StreamScan{up: up, upstream: upstream, sc: sc, opts: opts, owned: storage.AllVnodes()}
	if opts.Vnodes != nil {
		s.owned = *opts.Vnodes
	}
	switch {
	case !opts.Backfill:
		s.phase = phaseFollow
	case opts.Resume:
		s.phase = phaseLoad
	}
	return s
}

// Types implements Executor.
func (s *StreamScan) Types() []types.Type { return s.upstream.Types }

// Next implements Executor.
func (s *StreamScan) Next(ctx context.Context) (Message, error) {
	for {
		switch s.phase {
		case phaseFirstBarrier:
			return s.firstBarrier(ctx)
		case phaseLoad:
			if err := s.load(); err != nil {
				return Message{}, err
			}
		case phaseSnapshot, phaseLogStore:
			m, ok, err := s.pollUpstream(ctx)
			if err != nil || ok {
				return m, err
			}
			if s.throttled() {
				if m, ok, err := s.waitThrottle(ctx); err != nil || ok {
					return m, err
				}
				continue
			}
			if s.phase == phaseSnapshot {
				m, ok, err = s.nextSnapshot()
			} else {
				m, ok, err = s.nextLogged()
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
		default:
			return s.follow(ctx)
		}
	}
}

// follow passes the next upstream message through. The first barrier
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
	if invariants {
		s.checkOwned(m)
	}
	if m.Barrier != nil && s.prog != nil {
		if err := s.prog.save(s.sc.Batch()); err != nil {
			return Message{}, err
		}
		s.prog = nil
	}
	return m, nil
}

func (s *StreamScan) firstBarrier(ctx context.Context) (Message, error) {
	m, err := s.up.Next(ctx)
	if err != nil {
		return m, err
	}
	if m.Barrier == nil {
		return m, fmt.Errorf("stream: scan of table %d received data before its first barrier", s.upstream.ID)
	}
	if failpoint.Enabled {
		if err := hit(failpoint.ExecScanBarrier); err != nil {
			return Message{}, err
		}
	}
	s.phase = phaseLoad
	return m, nil
}

// pollUpstream handles what the upstream has ready without blocking.
func (s *StreamScan) pollUpstream(ctx context.Context) (Message, bool, error) {
	for {
		m, ok, err := s.up.Poll(ctx)
		if err != nil || !ok {
			return Message{}, false, err
		}
		if m, ok, err := s.handleUpstream(m); err != nil || ok {
			return m, ok, err
		}
	}
}

// handleUpstream takes one upstream message during backfill: a chunk goes
// to the log store; a barrier is returned (ok) after the progress for the
// epoch it ends is written.
func (s *StreamScan) handleUpstream(m Message) (Message, bool, error) {
	if failpoint.Enabled {
		if err := hitMsg(failpoint.ExecScanChunk, failpoint.ExecScanBarrier, m); err != nil {
			return Message{}, false, err
		}
	}
	if m.Barrier != nil {
		s.applyMutation(m.Barrier.Mutation)
		if err := s.prog.save(s.sc.Batch()); err != nil {
			return Message{}, false, err
		}
		s.publish()
		return m, true, nil
	}
	err := s.logChunk(m.Chunk)
	m.Chunk.Release()
	return Message{}, false, err
}

// applyMutation takes a flow-control change meant for this scan's job: it
// holds from this barrier on (I2).
func (s *StreamScan) applyMutation(m Mutation) {
	t, ok := m.(*ThrottleMutation)
	if !ok || t.Kind != ThrottleBackfill || t.Job != s.opts.Job || s.opts.Job == 0 {
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
// backfill chunk (snapshot or log store).
func (s *StreamScan) throttled() bool {
	return s.opts.Paused || (s.opts.RateLimit > 0 && time.Now().Before(s.nextAt))
}

// waitThrottle waits until the rate limit allows a chunk, handling the
// upstream meanwhile: a barrier arriving is returned (ok) so barriers keep
// flowing while the backfill is throttled.
func (s *StreamScan) waitThrottle(ctx context.Context) (Message, bool, error) {
	wait := time.Until(s.nextAt)
	if s.opts.Paused {
		wait = pausedPoll
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	m, ok, err := s.up.NextBefore(ctx, t.C)
	if err != nil || !ok {
		return Message{}, false, err
	}
	return s.handleUpstream(m)
}

// pausedPoll is how long a paused scan sleeps between checks when its
// upstream is idle.
const pausedPoll = 100 * time.Millisecond

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

// load reads persisted progress (none for a new backfill), pins the
// snapshot and, when resuming, drops log entries the new snapshot covers.
func (s *StreamScan) load() error {
	p, err := loadBackfillState(s.sc.Batch(), s.opts.State, s.upstream, s.owned)
	if err != nil {
		return err
	}
	s.prog = p
	s.builder = chunk.NewBuilder(s.upstream.Types)
	if p.snapshotDone {
		s.phase = phaseLogStore
		s.publishLoaded()
		return nil
	}
	s.snap = s.sc.Store.Snapshot()
	if !p.fresh {
		if err := p.purgeCovered(s.sc.Batch()); err != nil {
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
		if !s.iter.Next() {
			err := s.iter.Err()
			if err == nil {
				err = s.recordPosition()
			}
			if err != nil {
				return Message{}, false, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
			}
			s.iter.Close()
			s.iter = nil
			s.prog.finishVnode(s.vnode)
			continue
		}
		if err := s.iter.AppendTo(s.builder, chunk.Insert); err != nil {
			return Message{}, false, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
		}
		s.pending++
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
		s.iter = s.upstream.ScanVnodeChunks(s.snap, uint16(s.vnode), v.lastPK)
		return true
	}
	return false
}

// logChunk appends an upstream chunk to the log store. The log is kept
// per vnode, so an update pair whose halves have different vnodes (a pk
// change) is logged as a Delete and an Insert.
func (s *StreamScan) logChunk(c *chunk.Chunk) error {
	w := s.sc.Batch()
	n := c.NumRows()
	for i := 0; i < n; i++ {
		op := c.Op(i)
		s.logBuf = c.Row(i, s.logBuf)
		if invariants {
			s.checkOwnedRow(s.logBuf)
		}
		if op == chunk.UpdateDelete && i+1 < n && c.Op(i+1) == chunk.UpdateInsert {
			s.pairBuf = c.Row(i+1, s.pairBuf)
			if s.upstream.Vnode(s.logBuf) != s.upstream.Vnode(s.pairBuf) {
				if err := s.prog.appendLog(w, chunk.Delete, s.logBuf); err != nil {
					return err
				}
				op = chunk.Insert
				s.logBuf, s.pairBuf = s.pairBuf, s.logBuf
				i++
			}
		}
		if err := s.prog.appendLog(w, op, s.logBuf); err != nil {
			return err
		}
	}
	s.publish()
	return nil
}

// nextLogged emits the next chunk of logged changes, deleting them from
// the log store; ok is false when the log is empty: the scan then follows
// upstream directly.
func (s *StreamScan) nextLogged() (Message, bool, error) {
	if failpoint.Enabled {
		if err := hit(failpoint.BackfillLogRead); err != nil {
			return Message{}, false, fmt.Errorf("stream: log store of table %d: %w", s.upstream.ID, err)
		}
	}
	c, err := s.prog.consumeLog(s.sc.Batch(), s.builder, s.chunkLimit())
	if err != nil {
		return Message{}, false, err
	}
	if c != nil {
		s.charge(c.NumRows())
		s.publish()
		return Message{Chunk: c}, true, nil
	}
	s.phase = phaseFollow
	s.builder.Release()
	s.builder = nil
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
	case phaseLogStore:
		phase = PhaseLogStore
	case phaseFollow:
		phase = PhaseDone
	}
	s.opts.Progress.set(phase, s.prog.rowsRead, s.prog.estimateTotal(), s.prog.logPending)
}

// Close releases a snapshot still open (a job dropped mid-backfill).
func (s *StreamScan) Close() {
	if s.iter != nil {
		s.iter.Close()
		s.iter = nil
	}
	if s.snap != nil {
		s.snap.Close()
		s.snap = nil
	}
	if s.builder != nil {
		s.builder.Release()
		s.builder = nil
	}
}
