package stream

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// fakeSplitReader is a SplitReader fed by the test.
type fakeSplitReader struct {
	c       chan []connector.SplitRecord
	started map[int32]int64
	closed  bool
}

func newFakeSplitReader() *fakeSplitReader {
	return &fakeSplitReader{c: make(chan []connector.SplitRecord, 4)}
}

func (f *fakeSplitReader) Start(next map[int32]int64)              { f.started = next }
func (f *fakeSplitReader) Records() <-chan []connector.SplitRecord { return f.c }
func (f *fakeSplitReader) Err() error                              { return errors.New("fake reader closed") }
func (f *fakeSplitReader) Close()                                  { f.closed = true }

type splitErrs []string

func (e *splitErrs) RecordSourceError(rel uint32, split int32, offset int64, err error) {
	*e = append(*e, fmt.Sprintf("%d/%d/%d: %v", rel, split, offset, err))
}

// TestSplitSourceOffsets: a SplitSource emits its reader's rows between
// barriers, barriers first; it persists each split's next offset at the
// barrier, and a new one over the committed state starts its reader
// there. Rows of an epoch that does not commit are read again.
func TestSplitSourceOffsets(t *testing.T) {
	st := newTestStore(t)
	typ := []types.Type{types.TInt64, types.TInt64}
	rec := func(split int32, off int64) connector.SplitRecord {
		return connector.SplitRecord{Split: split, Offset: off, Row: []types.Datum{int64(split)*100 + off}}
	}
	var errs splitErrs
	run := func(reader *fakeSplitReader, feed func(in chan Message, next func() Message)) {
		sc := NewStateContext(st)
		in := make(chan Message, 4)
		s := NewSplitSource(&Receiver{C: in, Typ: typ}, reader, sc, typ, SplitSourceOptions{Job: 7, State: 900, RowID: 1, Errors: &errs})
		defer s.Close()
		next := func() Message {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			m, err := s.Next(ctx)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if m.Barrier != nil {
				if err := st.CommitEpoch(m.Barrier.Prev, []*storage.WriteBatch{sc.TakeBatch()}); err != nil {
					t.Fatal(err)
				}
			}
			return m
		}
		feed(in, next)
	}

	r1 := newFakeSplitReader()
	run(r1, func(in chan Message, next func() Message) {
		in <- barrierMsg(1)
		if m := next(); m.Barrier == nil {
			t.Fatalf("first message %+v, want the barrier", m)
		}
		r1.c <- []connector.SplitRecord{rec(0, 0), rec(1, 5), {Split: 1, Offset: 6, Err: errors.New("bad")}, rec(0, 1)}
		m := next()
		if m.Chunk == nil || m.Chunk.NumRows() != 3 {
			t.Fatalf("want a chunk of 3 rows, got %+v", m)
		}
		if id := m.Chunk.Row(1, nil)[1].(int64); id != SplitRowID(1, 5) {
			t.Errorf("row id %x, want %x", id, SplitRowID(1, 5))
		}
		m.Chunk.Release()
		in <- barrierMsg(2) // commits offsets 0:2, 1:7
		r1.c <- []connector.SplitRecord{rec(0, 2)}
		if m := next(); m.Barrier == nil {
			t.Fatalf("a barrier waited for records: %+v", m)
		}
		if m := next(); m.Chunk == nil || m.Chunk.NumRows() != 1 {
			t.Fatalf("want the next record, got %+v", m)
		}
		// Epoch 3 never commits: a failure.
	})
	if r1.started == nil || len(r1.started) != 0 || !r1.closed {
		t.Fatalf("first reader: started %v, closed %v", r1.started, r1.closed)
	}
	if len(errs) != 1 || errs[0] != "7/1/6: bad" {
		t.Fatalf("errors = %v", errs)
	}
	r2 := newFakeSplitReader()
	run(r2, func(in chan Message, next func() Message) {
		in <- barrierMsg(3)
		next()
	})
	if fmt.Sprint(r2.started) != "map[0:2 1:7]" {
		t.Fatalf("second reader started at %v, want map[0:2 1:7]", r2.started)
	}
}
