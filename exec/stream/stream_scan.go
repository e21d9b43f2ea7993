package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// scanChunkRows is how many snapshot rows one chunk carries.
const scanChunkRows = 1024

type scanPhase uint8

const (
	phaseFirstBarrier scanPhase = iota // waiting for the barrier that adds us
	phaseSnapshot                      // emitting the pinned snapshot
	phaseDrain                         // emitting upstream changes buffered meanwhile
	phaseFollow                        // passing upstream through
)

// StreamScan is the leaf of a view's pipeline: it reads the changes of an
// upstream relation (a table or another view) from that relation's
// dispatcher.
//
// With backfill it first emits the upstream's rows as of the epoch E0 that
// ended at the barrier which attached it (the Add barrier): the actor
// commits E0 before calling Next again, so a store snapshot taken then is
// exactly the upstream at E0. Upstream changes after E0 arrive meanwhile on
// the receiver; they are held (in order) while the snapshot is emitted and
// emitted after it, so each row of E0 and each later change reaches the view
// exactly once (I3). Barriers are forwarded as they arrive, so a backfill
// never holds the rest of the graph back for more than one chunk's work.
//
// TODO(#3): hold upstream changes in a Pebble log store instead of memory,
// and persist per-vnode progress so a restart resumes the snapshot.
type StreamScan struct {
	up       *Receiver
	upstream *storage.Table
	store    *storage.Store
	phase    scanPhase
	backfill bool
	onDone   func()

	snap    *storage.Snapshot
	iter    storage.Iterator
	held    []*chunk.Chunk
	builder *chunk.Builder
}

// NewStreamScan returns a scan of the relation whose state table is
// upstream and whose changes arrive on up. With backfill, the existing rows
// are emitted first and onDone (if not nil) is called once they all have
// been emitted.
//
// Without backfill (a view rebuilt over committed state at startup or
// recovery) the scan passes upstream through from the start.
func NewStreamScan(up *Receiver, upstream *storage.Table, store *storage.Store, backfill bool, onDone func()) *StreamScan {
	s := &StreamScan{up: up, upstream: upstream, store: store, backfill: backfill, onDone: onDone}
	if !backfill {
		s.phase = phaseFollow
	}
	return s
}

// Types implements Executor.
func (s *StreamScan) Types() []types.Type { return s.upstream.Types }

// Next implements Executor.
func (s *StreamScan) Next(ctx context.Context) (Message, error) {
	switch s.phase {
	case phaseFirstBarrier:
		return s.firstBarrier(ctx)
	case phaseSnapshot:
		return s.nextSnapshot(ctx)
	case phaseDrain:
		if len(s.held) > 0 {
			c := s.held[0]
			s.held[0] = nil
			s.held = s.held[1:]
			return Message{Chunk: c}, nil
		}
		s.held = nil
		s.phase = phaseFollow
	}
	return s.up.Next(ctx)
}

func (s *StreamScan) firstBarrier(ctx context.Context) (Message, error) {
	m, err := s.up.Next(ctx)
	if err != nil {
		return m, err
	}
	if m.Barrier == nil {
		return m, fmt.Errorf("stream: scan of table %d received data before its first barrier", s.upstream.ID)
	}
	s.phase = phaseSnapshot
	return m, nil
}

// nextSnapshot forwards a barrier that is waiting upstream (holding the
// chunks before it), or else emits the next chunk of the snapshot.
func (s *StreamScan) nextSnapshot(ctx context.Context) (Message, error) {
	for {
		select {
		case m, ok := <-s.up.C:
			if !ok {
				return Message{}, ErrUpstreamEnded
			}
			if m.Barrier != nil {
				return m, nil
			}
			s.held = append(s.held, m.Chunk)
			continue
		case <-ctx.Done():
			return Message{}, ctx.Err()
		default:
		}
		break
	}
	if s.snap == nil {
		s.snap = s.store.Snapshot()
		s.iter = s.upstream.Scan(s.snap)
		s.builder = chunk.NewBuilder(s.upstream.Types)
	}
	for s.builder.Len() < scanChunkRows && s.iter.Next() {
		s.builder.Append(chunk.Insert, s.iter.Row())
	}
	if err := s.iter.Err(); err != nil {
		return Message{}, fmt.Errorf("stream: snapshot of table %d: %w", s.upstream.ID, err)
	}
	if s.builder.Len() == scanChunkRows {
		return Message{Chunk: s.builder.Build()}, nil
	}
	c := s.builder.Build()
	s.finishSnapshot()
	return Message{Chunk: c}, nil
}

func (s *StreamScan) finishSnapshot() {
	s.iter.Close()
	s.snap.Close()
	s.builder.Release()
	s.iter, s.snap, s.builder = nil, nil, nil
	s.phase = phaseDrain
	if s.onDone != nil {
		s.onDone()
	}
}

// Close releases a snapshot still open (a job dropped mid-backfill).
func (s *StreamScan) Close() {
	if s.iter != nil {
		s.iter.Close()
		s.snap.Close()
		s.builder.Release()
	}
}
