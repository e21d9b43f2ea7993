package storage

import (
	"bytes"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// genBlockRows returns n random rows of ts (some all NULL, some stored
// with fewer columns, as an older row is) and their encodings, and the
// rows as EncodeRow writes them with every column.
func genBlockRows(t *testing.T, rng source, ts []types.Type, n int) (enc, full [][]byte) {
	t.Helper()
	nullRate := []int{0, 10, 2, 1}[rng.intn(4)]
	for range n {
		stored := len(ts)
		if rng.intn(8) == 0 {
			stored = rng.intn(len(ts) + 1)
		}
		row := genRow(rng, ts[:stored])
		if nullRate > 0 && rng.intn(nullRate) == 0 {
			clear(row)
		}
		buf, err := EncodeRow(nil, ts[:stored], row)
		if err != nil {
			t.Fatal(err)
		}
		whole := append(row, make([]types.Datum, len(ts)-stored)...)
		fb, err := EncodeRow(nil, ts, whole)
		if err != nil {
			t.Fatal(err)
		}
		enc, full = append(enc, buf), append(full, fb)
	}
	return enc, full
}

// TestBlockMatchesRowCodec encodes random rows of every type with NULLs
// into blocks and checks every way of reading a block against the row
// codec: each row re-encoded (appendRow) equals EncodeRow's bytes, each
// Datum equals DecodeRow's, and rows appended to a chunk builder
// (blockAppender, in random ranges, with pruned columns) equal what the
// row decoder appends for the same rows.
func TestBlockMatchesRowCodec(t *testing.T) {
	rng := newRNG(2222)
	for range 200 {
		ts, read := genSchema(rng)
		n := 1 + rng.intn(blockMaxRows)
		enc, full := genBlockRows(t, rng, ts, n)
		e := NewBlockEncoder(ts)
		for _, r := range enc {
			if err := e.Add(r); err != nil {
				t.Fatalf("types %v: Add(%x): %v", ts, r, err)
			}
		}
		buf := e.Finish(nil)
		var b block
		if err := parseBlock(&b, buf, ts, nil); err != nil {
			t.Fatalf("types %v: parse: %v", ts, err)
		}
		if b.rows != n {
			t.Fatalf("block holds %d rows, want %d", b.rows, n)
		}
		for r := range n {
			if got := b.appendRow(nil, r); !bytes.Equal(got, full[r]) {
				t.Fatalf("types %v row %d: %x, want %x", ts, r, got, full[r])
			}
			want, err := DecodeRow(full[r], ts, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ts {
				d, err := b.datum(i, r, ts[i])
				if err != nil || !sameDatum(d, want[i]) {
					t.Fatalf("types %v row %d col %d: %v (%v), want %v", ts, r, i, d, err, want[i])
				}
			}
		}
		// Into chunks: random ranges against the row decoder.
		dec := NewRowDecoderReading(ts, read)
		a := &blockAppender{ts: ts, read: read}
		want, got := chunk.NewBuilder(ts), chunk.NewBuilder(ts)
		for from := 0; from < n; {
			to := from + 1 + rng.intn(n-from)
			op := chunk.Op(rng.intn(4))
			for r := from; r < to; r++ {
				if err := dec.Append(want, op, enc[r]); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.appendRows(got, op, &b, from, to); err != nil {
				t.Fatalf("types %v: appendRows: %v", ts, err)
			}
			from = to
		}
		w, g := want.Build(), got.Build()
		sameChunk(t, ts, g, w)
		w.Release()
		g.Release()
		want.Release()
		got.Release()
	}
}

// TestBlockCorrupt checks that damaged blocks are errors, never panics:
// every truncation and every single-byte change of a valid block either
// parses into a block whose rows all read back, or fails.
func TestBlockCorrupt(t *testing.T) {
	rng := newRNG(7)
	for range 20 {
		ts, _ := genSchema(rng)
		enc, _ := genBlockRows(t, rng, ts, 1+rng.intn(9))
		e := NewBlockEncoder(ts)
		for _, r := range enc {
			if err := e.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		buf := e.Finish(nil)
		try := func(bad []byte) {
			var b block
			if parseBlock(&b, bad, ts, nil) != nil {
				return
			}
			for r := range b.rows {
				for i := range ts {
					_, _ = b.datum(i, r, ts[i])
				}
				_ = b.appendRow(nil, r)
			}
		}
		for k := range buf {
			try(buf[:k])
			bad := bytes.Clone(buf)
			bad[k] ^= byte(1 + rng.intn(255))
			try(bad)
		}
	}
	var b block
	if err := parseBlock(&b, []byte{9, 1, 1}, allTypes[:1], nil); err == nil {
		t.Fatal("a block of an unknown version parsed")
	}
}
