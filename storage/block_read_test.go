package storage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// blockTable: (a bigint, b bigint, s text, f double), pk (a, b),
// distributed by a: each a is one vnode's run of rows, several blocks
// long.
var blockTable = &Table{
	ID:      77,
	Types:   []types.Type{types.TInt64, types.TInt64, types.TText, types.TFloat64},
	PK:      []int{0, 1},
	DistKey: []int{0},
}

func blockRow(a, b int64, gen int) []types.Datum {
	row := []types.Datum{a, b, fmt.Sprintf("r%d-%d-%d", a, b, gen), float64(b) / 4}
	if b%7 == 0 {
		row[2] = nil
	}
	if b%5 == 0 {
		row[3] = nil
	}
	return row
}

// blockModel is what the table holds: rows by key.
type blockModel map[string][]types.Datum

func (m blockModel) key(t testing.TB, row []types.Datum) string {
	k, err := blockTable.Key(row)
	mustDo(t, err)
	return string(k)
}

// sorted returns the rows whose keys satisfy keep, in key order.
func (m blockModel) sorted(keep func(key []byte, row []types.Datum) bool) [][]types.Datum {
	keys := make([]string, 0, len(m))
	for k := range m {
		if keep == nil || keep([]byte(k), m[k]) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	rows := make([][]types.Datum, len(keys))
	for i, k := range keys {
		rows[i] = m[k]
	}
	return rows
}

func sameRows(t testing.TB, what string, got, want [][]types.Datum) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !sameRow(got[i], want[i]) {
			t.Fatalf("%s: row %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// loadBlocks writes rows (of blockTable) as blocks in one committed
// ingest.
func loadBlocks(t testing.TB, s *Store, epoch uint64, rows [][]types.Datum) {
	t.Helper()
	type kv struct{ k, v []byte }
	var kvs []kv
	for _, row := range rows {
		k, err := blockTable.Key(row)
		mustDo(t, err)
		v, err := EncodeRow(nil, blockTable.Types, row)
		mustDo(t, err)
		kvs = append(kvs, kv{k, v})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	empty, err := blockTable.HoldsNoKey(s)
	mustDo(t, err)
	if !empty {
		t.Fatal("blocks loaded into a table with keys")
	}
	iw, err := s.NewIngestWriter()
	mustDo(t, err)
	iw.WriteBlocks(blockTable)
	for _, e := range kvs {
		mustDo(t, iw.Add(e.k, e.v))
	}
	in, err := iw.Finish()
	mustDo(t, err)
	w := s.NewWriteBatch()
	mustDo(t, w.AddIngest(in))
	commit(t, s, epoch, w)
}

// TestBlocksReadAsRows loads a table as blocks, then changes it epoch
// after epoch with random inserts, updates and deletes of block rows and
// of rows written since (the overlay), through a reopen, and checks every
// reader of a table's rows against a model after each change: through
// the store, a snapshot, and a write batch holding uncommitted writes.
func TestBlocksReadAsRows(t *testing.T) {
	fs := vfs.NewMem()
	s, err := open("", Options{NoSync: true}, fs)
	mustDo(t, err)
	defer func() { _ = s.Close() }()
	rng := newRNG(77)
	model := blockModel{}
	var load [][]types.Datum
	for a := range int64(6) {
		for b := range int64(400) {
			if rng.intn(5) > 0 {
				row := blockRow(a, b, 0)
				load = append(load, row)
				model[model.key(t, row)] = row
			}
		}
	}
	loadBlocks(t, s, 1, load)
	if !s.HasBlocks(blockTable.ID) {
		t.Fatal("the table has no blocks")
	}
	size, err := TableSizes(s, []uint32{blockTable.ID})
	mustDo(t, err)
	if size[0].Keys*100 > int64(len(load)) {
		t.Fatalf("%d rows stored as %d keys: not as blocks", len(load), size[0].Keys)
	}
	checkBlockReaders(t, s, rng, model)
	for epoch := uint64(2); epoch < 40; epoch++ {
		w := s.NewWriteBatch()
		for range 1 + rng.intn(60) {
			a, b := int64(rng.intn(7)), int64(rng.intn(420))
			row := blockRow(a, b, int(epoch))
			k := model.key(t, row)
			if rng.intn(3) == 0 {
				mustDo(t, blockTable.Delete(w, row))
				delete(model, k)
			} else {
				mustDo(t, blockTable.Insert(w, row))
				model[k] = row
			}
		}
		if epoch%4 == 0 {
			checkBlockReaders(t, w, rng, model)
		}
		commit(t, s, epoch, w)
		checkBlockReaders(t, s, rng, model)
		snap := s.Snapshot()
		checkBlockReaders(t, snap, rng, model)
		mustDo(t, snap.Close())
		if epoch == 20 {
			mustDo(t, s.Close())
			if s, err = open("", Options{NoSync: true}, fs); err != nil {
				t.Fatal(err)
			}
			if !s.HasBlocks(blockTable.ID) {
				t.Fatal("reopened, the table has no blocks")
			}
		}
	}
}

// checkBlockReaders checks every reader of blockTable's rows through r
// against model.
func checkBlockReaders(t *testing.T, r Reader, rng source, model blockModel) {
	t.Helper()
	sameRows(t, "Scan", collect(t, blockTable.Scan(r)), model.sorted(nil))
	for a := range int64(7) {
		inA := func(_ []byte, row []types.Datum) bool { return row[0] == a }
		want := model.sorted(inA)
		sameRows(t, "ScanPrefix", collect(t, blockTable.ScanPrefix(r, []types.Datum{a}, false)), want)
		rev := slices.Clone(want)
		slices.Reverse(rev)
		sameRows(t, "ScanPrefix reverse", collect(t, blockTable.ScanPrefix(r, []types.Datum{a}, true)), rev)
		from := int64(rng.intn(420))
		atLeast := func(_ []byte, row []types.Datum) bool { return row[0] == a && row[1].(int64) >= from }
		below := func(_ []byte, row []types.Datum) bool { return row[0] == a && row[1].(int64) < from }
		sameRows(t, "ScanPrefixFrom", collect(t, blockTable.ScanPrefixFrom(r, []types.Datum{a}, []types.Datum{a, from}, false)), model.sorted(atLeast))
		rev = model.sorted(below)
		slices.Reverse(rev)
		sameRows(t, "ScanPrefixFrom reverse", collect(t, blockTable.ScanPrefixFrom(r, []types.Datum{a}, []types.Datum{a, from}, true)), rev)
		// A range of b.
		lo, hi := int64(rng.intn(420)), int64(rng.intn(420))
		kr := KeyRange{Eq: []types.Datum{a}, Lower: &KeyBound{Value: lo, Inclusive: rng.intn(2) == 0}, Upper: &KeyBound{Value: hi, Inclusive: rng.intn(2) == 0}}
		inRange := func(_ []byte, row []types.Datum) bool {
			b := row[1].(int64)
			return row[0] == a && (b > lo || kr.Lower.Inclusive && b == lo) && (b < hi || kr.Upper.Inclusive && b == hi)
		}
		sameRows(t, "ScanRange", collect(t, blockTable.ScanRange(r, kr)), model.sorted(inRange))
		// A vnode from a point, row by row and in chunks.
		vnode := blockTable.Vnode(blockRow(a, 0, 0))
		after := []types.Datum{a, int64(rng.intn(420))}
		afterKey, err := blockTable.appendPKKey(nil, vnode, after)
		mustDo(t, err)
		inVnode := func(key []byte, row []types.Datum) bool {
			return blockTable.Vnode(row) == vnode && bytes.Compare(key, afterKey) > 0
		}
		want = model.sorted(inVnode)
		sameRows(t, "ScanVnode", collect(t, blockTable.ScanVnode(r, vnode, after)), want)
		sameRows(t, "ScanVnodeChunks", scanBlockChunks(t, r, rng, vnode, after), want)
		sameRows(t, "ScanVnodeChunks resumed", scanResumed(t, r, rng, vnode, after), want)
	}
	// Point reads, present and absent, and the probes.
	var keys [][]byte
	for range 40 {
		a, b := int64(rng.intn(7)), int64(rng.intn(420))
		row := blockRow(a, b, 0)
		want := model[model.key(t, row)]
		if got := mustGet(t, blockTable, r, a, b); !sameRow(got, want) {
			t.Fatalf("Get(%d, %d) = %v, want %v", a, b, got, want)
		}
		keys = append(keys, []byte(model.key(t, row)))
	}
	slices.SortFunc(keys, bytes.Compare)
	kp, err := blockTable.NewKeyProbe(r)
	mustDo(t, err)
	pp, err := blockTable.NewPrefixProbe(r)
	mustDo(t, err)
	for _, k := range keys {
		want := model[string(k)]
		has, err := kp.Has(k)
		mustDo(t, err)
		if has != (want != nil) {
			t.Fatalf("KeyProbe.Has(%x) = %v, want %v", k, has, want != nil)
		}
		row, found, err := pp.GetAscendingInto(k, nil)
		mustDo(t, err)
		if found != (want != nil) || found && !sameRow(row, want) {
			t.Fatalf("PrefixProbe.GetAscending(%x) = %v, want %v", k, row, want)
		}
		var got []types.Datum
		mustDo(t, pp.Get(k, func(row []types.Datum) error { got = slices.Clone(row); return nil }))
		if !sameRow(got, want) {
			t.Fatalf("PrefixProbe.Get(%x) = %v, want %v", k, got, want)
		}
	}
	mustDo(t, kp.Close())
	mustDo(t, pp.Close())
}

// scanBlockChunks reads a vnode with ScanVnodeChunks.AppendRows in chunks of
// random sizes, checking LastRow after each, and returns the rows.
func scanBlockChunks(t *testing.T, r Reader, rng source, vnode uint16, after []types.Datum) [][]types.Datum {
	t.Helper()
	sc := blockTable.ScanVnodeChunks(r, vnode, after)
	defer func() { mustDo(t, sc.Close()) }()
	bld := chunk.NewBuilder(blockTable.Types)
	defer bld.Release()
	var rows [][]types.Datum
	for {
		if rng.intn(4) == 0 {
			// A row at a time, as AppendTo is used.
			if !sc.Next() {
				mustDo(t, sc.Err())
				break
			}
			mustDo(t, sc.AppendTo(bld, chunk.Insert))
		}
		n, err := sc.AppendRows(bld, chunk.Insert, bld.Len()+1+rng.intn(300))
		mustDo(t, err)
		c := bld.Build()
		got := c.Rows()
		c.Release()
		rows = append(rows, got...)
		if len(got) > 0 {
			last, err := sc.LastRow()
			mustDo(t, err)
			if !sameRow(last, got[len(got)-1]) {
				t.Fatalf("LastRow %v, want %v", last, got[len(got)-1])
			}
		}
		if n == 0 {
			break
		}
	}
	return rows
}

// scanResumed reads a vnode as a backfill does across barriers: a
// ChunkScan from the last row read, for one chunk of a random size,
// again and again.
func scanResumed(t *testing.T, r Reader, rng source, vnode uint16, after []types.Datum) [][]types.Datum {
	t.Helper()
	bld := chunk.NewBuilder(blockTable.Types)
	defer bld.Release()
	var rows [][]types.Datum
	for {
		sc := blockTable.ScanVnodeChunks(r, vnode, after)
		n, err := sc.AppendRows(bld, chunk.Insert, 1+rng.intn(300))
		mustDo(t, err)
		if n > 0 {
			last, err := sc.LastRow()
			mustDo(t, err)
			after = slices.Clone(last[:2])
		}
		mustDo(t, sc.Close())
		c := bld.Build()
		rows = append(rows, c.Rows()...)
		c.Release()
		if n == 0 {
			return rows
		}
	}
}
