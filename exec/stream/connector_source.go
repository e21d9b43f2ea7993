package stream

import (
	"context"
	"fmt"
	"github.com/apache/arrow-go/v18/arrow/array"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Generator produces a connector's rows; row i depends on i alone (see
// package exec/connector), which is what makes replay exact.
type Generator interface {
	Row(i int64, dst []types.Datum) []types.Datum
	// Limit is how many rows it produces in all; -1: no end.
	Limit() int64
	// RowsPerSecond is its configured rate; 0: unlimited.
	RowsPerSecond() int64
}

// Appender is implemented by a Generator that can append its rows
// straight into Arrow builders, without making a Datum of each value.
type Appender interface {
	// CanAppend reports whether AppendRow serves columns of types ts
	// (the generator's columns, in order).
	CanAppend(ts []types.Type) bool
	// AppendRow appends row i's value of each column to cols[j] (the
	// builders chunk.ArrowType makes for the column types).
	AppendRow(i int64, cols []array.Builder)
}

// ConnectorOptions configure a ConnectorSource.
type ConnectorOptions struct {
	// Job is the relation id ThrottleMutations of kind ThrottleSource name.
	Job uint32
	// State is the id of the table that holds the index of the next row.
	State uint32
	// RowID is the index of the hidden row id column the source fills
	// (RowIDBase + row index), or -1.
	RowID int
	// RateLimit caps the rows per second (0: the generator's own rate);
	// Paused holds the connector.
	RateLimit int64
	Paused    bool
	// Progress, when set, is updated with the index of the next row.
	Progress *atomic.Int64
}

// RowIDBase is added to a generated row's index to make its hidden row
// id; DML row ids (microsecond timestamps shifted by 8) stay below it.
const RowIDBase = int64(1) << 62

// ConnectorSource is the entry of a source with a connector. Barriers (and,
// for a table, DML chunks) arrive on in and pass through; between them it
// emits generated rows, paced by the generator's rate and the source rate
// limit, and held while paused. At every barrier it writes the index of
// its next row into its state table, in the epoch's batch, so the rows
// emitted in an epoch and the position after them commit together: after
// a failure the source resumes at the committed position and regenerates
// exactly the rows that were lost.
type ConnectorSource struct {
	in    *Receiver
	gen   Generator
	sc    *StateContext
	state *storage.Table
	opts  ConnectorOptions
	typ   []types.Type

	loaded  bool
	started bool  // a first barrier has passed: rows may flow
	next    int64 // index of the next row to generate
	saved   int64 // index last written to the state table
	nextAt  time.Time
	row     []types.Datum
	builder *chunk.Builder
	// appender is gen when it appends rows straight into the builder's
	// columns (Appender).
	appender Appender
	// prune, when set, leaves out the columns no reader reads
	// (source_prune.go).
	prune *sourcePrune
}

// NewConnectorSource returns the source executor; typ are its output types
// (the generator's columns, then the row id column if any).
func NewConnectorSource(in *Receiver, gen Generator, sc *StateContext, typ []types.Type, opts ConnectorOptions) *ConnectorSource {
	s := &ConnectorSource{
		in: in, gen: gen, sc: sc, opts: opts, typ: typ,
		state:   ConnectorStateTable(opts.State),
		builder: chunk.NewBuilder(typ),
		saved:   -1,
	}
	genTyp := typ
	if opts.RowID >= 0 {
		genTyp = typ[:len(typ)-1]
	}
	if a, ok := gen.(Appender); ok && a.CanAppend(genTyp) &&
		(opts.RowID < 0 || opts.RowID == len(typ)-1 && typ[opts.RowID].ID == types.IDInt64) {
		s.appender = a
	}
	return s
}

// ConnectorStateTable is the layout of a connector's position table: one
// row (split, next row index).
func ConnectorStateTable(id uint32) *storage.Table {
	return &storage.Table{ID: id, Types: []types.Type{types.TInt32, types.TInt64}, PK: []int{0}, DistKey: []int{0}}
}

// Types implements Executor.
func (s *ConnectorSource) Types() []types.Type { return s.typ }

// Next implements Executor. Upstream messages (barriers, DML) take
// precedence over generated rows, so a fast generator never holds a
// barrier back by more than one chunk.
func (s *ConnectorSource) Next(ctx context.Context) (Message, error) {
	if !s.loaded {
		if err := s.load(); err != nil {
			return Message{}, err
		}
	}
	for {
		select {
		case m, open := <-s.in.C:
			return s.handle(m, open)
		case <-ctx.Done():
			return Message{}, ctx.Err()
		default:
		}
		if !s.started || s.opts.Paused || s.exhausted() {
			m, _, err := s.waitFor(ctx, 0)
			return m, err
		}
		if d := time.Until(s.nextAt); d > 0 {
			m, ok, err := s.waitFor(ctx, d)
			if ok || err != nil {
				return m, err
			}
			continue
		}
		return Message{Chunk: s.generate()}, nil
	}
}

// waitFor waits up to d (d <= 0: until one comes) for an upstream
// message; ok reports one.
func (s *ConnectorSource) waitFor(ctx context.Context, d time.Duration) (Message, bool, error) {
	return waitUpstream(ctx, s.in.C, d, s.handle)
}

// waitUpstream waits up to d (d <= 0: until one comes) for a message on
// in and gives it to handle; ok reports one. Sources with connectors wait
// so between their own rows.
func waitUpstream(ctx context.Context, in <-chan Message, d time.Duration,
	handle func(Message, bool) (Message, error)) (m Message, ok bool, err error) {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case m, open := <-in:
		m, err := handle(m, open)
		return m, true, err
	case <-timeout:
		return Message{}, false, nil
	case <-ctx.Done():
		return Message{}, false, ctx.Err()
	}
}

// handle takes an upstream message: a barrier applies its mutation and
// persists the position; a DML chunk passes through.
func (s *ConnectorSource) handle(m Message, open bool) (Message, error) {
	if !open {
		return Message{}, ErrUpstreamEnded
	}
	if m.Barrier == nil {
		return m, nil
	}
	s.started = true
	if t, ok := m.Barrier.Mutation.(*ThrottleMutation); ok && t.Kind == ThrottleSource && t.Job == s.opts.Job {
		s.opts.RateLimit, s.opts.Paused = t.RateLimit, t.Paused
		s.nextAt = time.Time{}
	}
	if s.next != s.saved {
		if err := s.state.Insert(s.sc.Batch(), []types.Datum{int64(0), s.next}); err != nil {
			return Message{}, fmt.Errorf("stream: connector source %d: %w", s.opts.Job, err)
		}
		s.saved = s.next
	}
	return m, nil
}

// load reads the committed position.
func (s *ConnectorSource) load() error {
	row, ok, err := s.state.Get(s.sc.Batch(), []types.Datum{int64(0)})
	if err != nil {
		return fmt.Errorf("stream: connector source %d: loading its position: %w", s.opts.Job, err)
	}
	if ok {
		s.next = row[1].(int64)
		s.saved = s.next
	}
	s.publish()
	s.loaded = true
	return nil
}

func (s *ConnectorSource) publish() {
	if s.opts.Progress != nil {
		s.opts.Progress.Store(s.next)
	}
}

func (s *ConnectorSource) exhausted() bool {
	l := s.gen.Limit()
	return l >= 0 && s.next >= l
}

// rate is the rows per second the source may produce; 0: unlimited.
func (s *ConnectorSource) rate() int64 {
	r := s.gen.RowsPerSecond()
	if l := s.opts.RateLimit; l > 0 && (r == 0 || l < r) {
		r = l
	}
	return r
}

// generate emits the next chunk: with a rate, a tenth of a second's worth
// (at least one row), booked against the pacing clock.
func (s *ConnectorSource) generate() *chunk.Chunk {
	n := int64(scanChunkRows)
	r := s.rate()
	if r > 0 {
		n = min(n, max(1, r/10))
	}
	if l := s.gen.Limit(); l >= 0 {
		n = min(n, l-s.next)
	}
	if s.appender != nil {
		cols := s.builder.Columns()
		gen := cols
		var rowID *array.Int64Builder
		if s.opts.RowID >= 0 {
			gen, rowID = cols[:len(cols)-1], cols[len(cols)-1].(*array.Int64Builder)
		}
		read := s.prune.columns(len(gen))
		for k := int64(0); k < n; k++ {
			s.appender.AppendRow(s.next, gen)
			if rowID != nil {
				rowID.Append(RowIDBase + s.next)
			}
			s.builder.AppendedRow(chunk.Insert)
			s.next++
		}
		fillUnread(gen, read, n)
	} else {
		for k := int64(0); k < n; k++ {
			s.row = s.gen.Row(s.next, s.row[:0])
			if s.opts.RowID >= 0 {
				s.row = append(s.row, RowIDBase+s.next)
			}
			s.builder.Append(chunk.Insert, s.row)
			s.next++
		}
	}
	if r > 0 {
		now := time.Now()
		if s.nextAt.Before(now) {
			s.nextAt = now
		}
		s.nextAt = s.nextAt.Add(time.Duration(float64(n) / float64(r) * float64(time.Second)))
	}
	s.publish()
	return s.builder.Build()
}
