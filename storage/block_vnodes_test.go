package storage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestBlocksEveryVnode loads 50,000 rows as blocks, which fills every
// vnode (the last one's upper bound, prefixEnd of its prefix, is a key
// shorter than a vnode prefix), and reads each vnode as a backfill does
// (chunks of several sizes, one builder across vnodes, each chunk from
// a new scan after the last row read), the whole table forward and
// backward, and every key through a KeyProbe.
func TestBlocksEveryVnode(t *testing.T) {
	tbl := &Table{ID: 5, Types: []types.Type{types.TInt32, types.TInt64, types.TText}, PK: []int{0}, DistKey: []int{0}}
	const n = 50000
	s := openMem(t)
	type kv struct{ k, v []byte }
	var kvs []kv
	perVnode := make([]int, NumVnodes)
	for i := range n {
		row := []types.Datum{int64(i), int64(2 * i), fmt.Sprintf("padding-%08d", i)}
		k, err := tbl.Key(row)
		mustDo(t, err)
		v, err := EncodeRow(nil, tbl.Types, row)
		mustDo(t, err)
		kvs = append(kvs, kv{k, v})
		perVnode[tbl.Vnode(row)]++
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	iw, err := s.NewIngestWriter()
	mustDo(t, err)
	iw.WriteBlocks(tbl)
	for _, e := range kvs {
		mustDo(t, iw.Add(e.k, e.v))
	}
	in, err := iw.Finish()
	mustDo(t, err)
	w := s.NewWriteBatch()
	mustDo(t, w.AddIngest(in))
	commit(t, s, 1, w)

	for _, limit := range []int{1024, 100, 7} {
		snap := s.Snapshot()
		bld := chunk.NewBuilder(tbl.Types)
		dec := NewRowDecoder(tbl.Types)
		for v := range uint16(NumVnodes) {
			var after []types.Datum
			got := 0
			for {
				sc := tbl.ScanVnodeChunks(snap, v, after).Decoding(dec)
				k, err := sc.AppendRows(bld, chunk.Insert, limit)
				mustDo(t, err)
				got += k
				if k > 0 {
					last, err := sc.LastRow()
					mustDo(t, err)
					after = slices.Clone(last[:1])
				}
				mustDo(t, sc.Close())
				if bld.Len() < limit {
					break // the vnode is done; the chunk goes on
				}
				bld.Build().Release()
			}
			if got != perVnode[v] {
				t.Fatalf("chunks of %d: vnode %d gave %d rows, want %d", limit, v, got, perVnode[v])
			}
		}
		bld.Build().Release()
		bld.Release()
		mustDo(t, snap.Close())
	}
	if got := len(collect(t, tbl.Scan(s))); got != n {
		t.Fatalf("Scan: %d rows, want %d", got, n)
	}
	it, err := tbl.newKV(s, appendTablePrefix(nil, tbl.ID), prefixEnd(appendTablePrefix(nil, tbl.ID)))
	mustDo(t, err)
	i := len(kvs)
	for ok := it.Last(); ok; ok = it.Prev() {
		i--
		if i < 0 || !bytes.Equal(it.Key(), kvs[i].k) {
			t.Fatalf("backward at %d: key %x", i, it.Key())
		}
	}
	mustDo(t, it.Error())
	mustDo(t, it.Close())
	if i != 0 {
		t.Fatalf("backward: %d keys not seen", i)
	}
	kp, err := tbl.NewKeyProbe(s)
	mustDo(t, err)
	for _, e := range kvs {
		has, err := kp.Has(e.k)
		mustDo(t, err)
		if !has {
			t.Fatalf("KeyProbe.Has(%x) = false", e.k)
		}
		absent := append(bytes.Clone(e.k), 0)
		if has, err = kp.Has(absent); err != nil || has {
			t.Fatalf("KeyProbe.Has(%x) = %v, %v", absent, has, err)
		}
	}
	mustDo(t, kp.Close())
}
