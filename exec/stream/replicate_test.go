package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestReplicate: each row leaves as many copies as its count, numbered
// from 1; NULL or non-positive counts leave none; an update pair's copies
// leave as deletes and inserts (they are no pairs); barriers pass.
func TestReplicate(t *testing.T) {
	ts := []types.Type{types.TText, types.TInt64}
	in := &scriptExec{typs: ts, msgs: []Message{
		chunkMsg(ts, ins("a", int64(2)), ins("b", nil), ins("c", int64(0)), ins("d", int64(-1))),
		barrierMsg(1),
		chunkMsg(ts, append(upd(trow{"a", int64(2)}, trow{"a", int64(1)}), del("e", int64(1)))...),
	}}
	r := NewReplicate(in, 1)
	if got := fmt.Sprint(r.Types()); got != fmt.Sprint(append(ts, types.TInt64)) {
		t.Fatalf("types %s", got)
	}
	ctx := context.Background()
	next := func() Message {
		t.Helper()
		m, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := fmt.Sprint(chunkChanges(t, next().Chunk)); got != fmt.Sprint([]change{
		{chunk.Insert, trow{"a", int64(2), int64(1)}}, {chunk.Insert, trow{"a", int64(2), int64(2)}}}) {
		t.Fatalf("first chunk: %s", got)
	}
	if m := next(); m.Barrier == nil {
		t.Fatal("the barrier did not pass")
	}
	if got := fmt.Sprint(chunkChanges(t, next().Chunk)); got != fmt.Sprint([]change{
		{chunk.Delete, trow{"a", int64(2), int64(1)}}, {chunk.Delete, trow{"a", int64(2), int64(2)}},
		{chunk.Insert, trow{"a", int64(1), int64(1)}}, {chunk.Delete, trow{"e", int64(1), int64(1)}}}) {
		t.Fatalf("update chunk: %s", got)
	}
}
