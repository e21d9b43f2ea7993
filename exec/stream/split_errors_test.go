package stream

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// splitHarness runs one SplitSource over st until feed returns, with
// each barrier's batch committed: an epoch whose barrier never comes is
// a failure's.
func splitHarness(t *testing.T, st *storage.Store, opts SplitSourceOptions, typ []types.Type,
	feed func(r *fakeSplitReader, in chan Message, next func() Message)) {
	t.Helper()
	sc := NewStateContext(st)
	in := make(chan Message, 4)
	r := newFakeSplitReader()
	s := NewSplitSource(&Receiver{C: in, Typ: typ}, r, sc, typ, opts)
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
	feed(r, in, next)
}

func keptErrors(t *testing.T, st *storage.Store, id uint32) string {
	t.Helper()
	rows, err := ReadSplitErrors(st, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d/%d:%s", r.Split, r.Offset, r.Err))
	}
	return strings.Join(out, ",")
}

// TestSplitSourceKeptErrors: a SplitSource with an error table writes
// the malformed messages it skipped into the epoch's batch with the
// offsets: committed, they are there after a restart; skipped in an
// epoch that does not commit, they are read again and listed once. The
// table keeps the latest MaxSplitErrors.
func TestSplitSourceKeptErrors(t *testing.T) {
	st := newTestStore(t)
	typ := []types.Type{types.TInt64}
	opts := SplitSourceOptions{Job: 7, State: 900, ErrorState: 901, RowID: -1, Errors: &splitErrs{}}
	bad := func(split int32, off int64) connector.SplitRecord {
		return connector.SplitRecord{Split: split, Offset: off, Err: fmt.Errorf("bad %d", off)}
	}
	good := func(split int32, off int64) connector.SplitRecord {
		return connector.SplitRecord{Split: split, Offset: off, Row: []types.Datum{off}}
	}
	splitHarness(t, st, opts, typ, func(r *fakeSplitReader, in chan Message, next func() Message) {
		in <- barrierMsg(1)
		next()
		r.c <- []connector.SplitRecord{good(0, 0), bad(0, 1), bad(1, 0), good(0, 2)}
		next().Chunk.Release()
		if got := keptErrors(t, st, 901); got != "" {
			t.Fatalf("errors before the epoch commits: %s", got)
		}
		in <- barrierMsg(2)
		next()
		r.c <- []connector.SplitRecord{bad(0, 3), good(0, 4)}
		next().Chunk.Release()
		// Epoch 3 never commits.
	})
	if got := keptErrors(t, st, 901); got != "0/1:bad 1,1/0:bad 0" {
		t.Fatalf("after a failure: %s", got)
	}
	if len(*opts.Errors.(*splitErrs)) != 0 {
		t.Fatalf("the in-memory log was told: %v", *opts.Errors.(*splitErrs))
	}
	splitHarness(t, st, opts, typ, func(r *fakeSplitReader, in chan Message, next func() Message) {
		in <- barrierMsg(3)
		next()
		if fmt.Sprint(r.started) != "map[0:3 1:1]" {
			t.Fatalf("restarted at %v", r.started)
		}
		r.c <- []connector.SplitRecord{bad(0, 3), good(0, 4)} // read again
		next().Chunk.Release()
		recs := make([]connector.SplitRecord, 0, MaxSplitErrors+5)
		for off := int64(1); off <= MaxSplitErrors+5; off++ {
			recs = append(recs, bad(1, off))
		}
		r.c <- append(recs, good(1, MaxSplitErrors+6))
		next().Chunk.Release()
		in <- barrierMsg(4)
		next()
	})
	rows, err := ReadSplitErrors(st, 901)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != MaxSplitErrors {
		t.Fatalf("%d rows kept, want %d", len(rows), MaxSplitErrors)
	}
	last := rows[len(rows)-1]
	if last.Split != 1 || last.Offset != MaxSplitErrors+5 {
		t.Errorf("newest row %+v", last)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		k := fmt.Sprint(r.Split, "/", r.Offset)
		if seen[k] {
			t.Fatalf("%s listed twice", k)
		}
		seen[k] = true
	}
	if seen["0/1"] || seen["1/0"] || seen["0/3"] || !seen["1/1005"] {
		t.Errorf("the oldest were not the ones dropped: %v", rows[:3])
	}
}

// TestSplitSourceKeyChange: a record with Before (a Debezium update of a
// row's key) goes out as a Delete of Before, then Row, in one chunk.
func TestSplitSourceKeyChange(t *testing.T) {
	st := newTestStore(t)
	typ := []types.Type{types.TInt64, types.TText}
	opts := SplitSourceOptions{Job: 7, State: 900, RowID: -1}
	splitHarness(t, st, opts, typ, func(r *fakeSplitReader, in chan Message, next func() Message) {
		in <- barrierMsg(1)
		next()
		r.c <- []connector.SplitRecord{{Split: 0, Offset: 0, Row: []types.Datum{int64(2), "b"}, Before: []types.Datum{int64(1), "a"}},
			{Split: 0, Offset: 1, Row: []types.Datum{int64(2), nil}, Delete: true}}
		m := next()
		defer m.Chunk.Release()
		var got []string
		for i := 0; i < m.Chunk.NumRows(); i++ {
			got = append(got, fmt.Sprint(m.Chunk.Op(i), m.Chunk.Row(i, nil)))
		}
		want := fmt.Sprint(chunk.Delete, []types.Datum{int64(1), "a"}) + "," + fmt.Sprint(chunk.Insert, []types.Datum{int64(2), "b"}) +
			"," + fmt.Sprint(chunk.Delete, []types.Datum{int64(2), nil})
		if strings.Join(got, ",") != want {
			t.Fatalf("chunk = %s, want %s", strings.Join(got, ","), want)
		}
	})
}
