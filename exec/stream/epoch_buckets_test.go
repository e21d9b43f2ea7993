package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// flushModel is what an epoch's writes must leave as: the latest write of
// each key (nil: a deletion).
type flushModel map[string][]byte

// keys lists the model's keys in key order.
func (m flushModel) keys() []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestEpochWritesFlushOrder: eachSorted (the ingested flush) hands over
// the latest write of each key, deletions included, in key order, over
// several epochs of one set (each after a reset); latest still finds
// each key's latest write. The epochs vary: keys of each vnode ascending
// (a snapshot read in key order: no bucket sorts), random keys that
// repeat, keys that are prefixes of others, a single vnode, many writes
// (blocks chained and kept across resets), and a key outside the table's
// prefix (mixed: one sort of all).
func TestEpochWritesFlushOrder(t *testing.T) {
	for seed := range randomSeeds(12) {
		rng := rand.New(rand.NewPCG(seed, 22))
		e := newEpochWrites(true)
		table := []byte{1, 0, 0, 0, 7, 0} // the bytes before vnodeByte
		for epoch := range 8 {
			mode := []string{"ascending", "random", "random", "one-vnode", "mixed", "large"}[rng.IntN(6)]
			n := 1 + rng.IntN(3000)
			if mode == "large" {
				n = 3 * entsPerPage
			}
			keys := epochTestKeys(rng, table, mode, n)
			model := flushModel{}
			for i, k := range keys {
				var v []byte
				if del := rng.IntN(5) == 0; !del {
					v = fmt.Appendf(nil, "e%d.%d", epoch, i)
				}
				e.put(k, len(k), v, v == nil)
				model[string(k)] = v
			}
			e.link()
			what := fmt.Sprintf("seed %d epoch %d (%s, %d writes)", seed, epoch, mode, n)
			checkFlushOrder(t, e, model, what)
			if e.mixed != (mode == "mixed") {
				t.Fatalf("%s: mixed = %v", what, e.mixed)
			}
			for b := range e.buckets {
				if bk := &e.buckets[b]; mode == "ascending" && bk.n > 0 && !bk.ascending {
					t.Fatalf("%s: bucket %d of ascending keys not marked ascending", what, b)
				}
			}
			for k, v := range model {
				i, ok := e.latest([]byte(k))
				if !ok || !bytes.Equal(e.value(i), v) || (e.value(i) == nil) != (v == nil) {
					t.Fatalf("%s: latest(%x) = %v %q, want %q", what, k, ok, e.value(i), v)
				}
			}
			e.reset()
			if err := e.eachSorted(func([]byte, []byte, bool) error { return fmt.Errorf("a write survived reset") }); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if kept := keptBlockBytes(e); kept > epochWritesKeep {
				t.Fatalf("%s: reset kept %d bytes of blocks", what, kept)
			}
		}
	}
}

// epochTestKeys returns n keys of a table whose keys start with table
// and a vnode byte (see TestEpochWritesFlushOrder for the modes).
func epochTestKeys(rng *rand.Rand, table []byte, mode string, n int) [][]byte {
	vnodes := 1 + rng.IntN(256)
	if mode == "one-vnode" {
		vnodes = 1
	}
	keyIn := func(vnode int) []byte {
		k := append(slices.Clone(table), byte(vnode))
		for range rng.IntN(12) {
			k = append(k, []byte{0, 0xff, byte(rng.IntN(3)), byte(rng.IntN(256))}[rng.IntN(4)])
		}
		return k
	}
	var keys [][]byte
	switch mode {
	case "ascending":
		// Distinct keys, ascending within each vnode, the vnodes
		// interleaved at random.
		byVnode := make([][][]byte, vnodes)
		for range n {
			v := rng.IntN(vnodes)
			byVnode[v] = append(byVnode[v], keyIn(v))
		}
		for v := range byVnode {
			slices.SortFunc(byVnode[v], bytes.Compare)
			byVnode[v] = slices.CompactFunc(byVnode[v], bytes.Equal)
		}
		for {
			var left []int
			for v := range byVnode {
				if len(byVnode[v]) > 0 {
					left = append(left, v)
				}
			}
			if len(left) == 0 {
				return keys
			}
			v := left[rng.IntN(len(left))]
			keys, byVnode[v] = append(keys, byVnode[v][0]), byVnode[v][1:]
		}
	default:
		for range n {
			if len(keys) > 0 && rng.IntN(4) == 0 {
				keys = append(keys, keys[rng.IntN(len(keys))]) // a repeat
				continue
			}
			keys = append(keys, keyIn(rng.IntN(vnodes)))
		}
		if mode == "mixed" {
			other := append(slices.Clone(table[:len(table)-1]), 1, byte(rng.IntN(256)), 9)
			keys = slices.Insert(keys, rng.IntN(len(keys)+1), other)
		}
		return keys
	}
}

// checkFlushOrder checks eachSorted against model.
func checkFlushOrder(t *testing.T, e *epochWrites, model flushModel, what string) {
	t.Helper()
	var got []string
	err := e.eachSorted(func(key, val []byte, del bool) error {
		want, ok := model[string(key)]
		if !ok || !bytes.Equal(val, want) || del != (want == nil) {
			return fmt.Errorf("key %x: %q (deleted %v), want %q (known %v)", key, val, del, want, ok)
		}
		got = append(got, string(key))
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if want := model.keys(); !slices.Equal(got, want) {
		t.Fatalf("%s: flushed %d keys %x\nwant %d %x", what, len(got), got, len(want), want)
	}
}

// keptBlockBytes is the capacity of the blocks e holds.
func keptBlockBytes(e *epochWrites) int {
	n := 0
	for _, b := range e.blocks {
		n += cap(b)
	}
	return n
}

// TestEpochWritesFlushStore: a join side's state table, after each of
// several epochs flushed to a Store (ingested, or batched), holds the
// latest row of every key written, without the deleted ones, whatever
// the order of the writes (rows of a vnode in key order, or at random
// with updates and deletes of earlier epochs' rows).
func TestEpochWritesFlushStore(t *testing.T) {
	defer func(b int) { epochIngestBytes = b }(epochIngestBytes)
	ts := []types.Type{types.TInt64, types.TText}
	for _, ingestBytes := range []int{0, 1 << 30} {
		t.Run(fmt.Sprintf("ingest>=%d", ingestBytes), func(t *testing.T) {
			epochIngestBytes = ingestBytes
			rng := rand.New(rand.NewPCG(7, uint64(ingestBytes)))
			st := newTestStore(t)
			table := &storage.Table{ID: 9, Types: ts, PK: []int{0}, DistKey: []int{0}}
			e := newEpochWrites(true)
			rows := map[int64]string{}
			for epoch := range 6 {
				for i := range 2000 {
					id := int64(rng.IntN(3000))
					if epoch == 0 {
						id = int64(i) // in pk order
					}
					row := trow{id, fmt.Sprintf("e%d.%d", epoch, i)}
					key, err := table.Key(row)
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := rows[id]; ok && rng.IntN(4) == 0 {
						e.put(key, len(key), nil, true)
						delete(rows, id)
						continue
					}
					val, err := storage.EncodeRow(nil, ts, row)
					if err != nil {
						t.Fatal(err)
					}
					e.put(key, len(key), val, false)
					rows[id] = row[1].(string)
				}
				e.link()
				w := st.NewWriteBatch()
				if err := e.flush(st, w, false); err != nil {
					t.Fatal(err)
				}
				if e.ingested != (ingestBytes == 0) {
					t.Fatalf("epoch %d: ingested %v", epoch, e.ingested)
				}
				if err := st.CommitEpoch(uint64(epoch+1), []*storage.WriteBatch{w}); err != nil {
					t.Fatal(err)
				}
				var want []trow
				for id, v := range rows {
					want = append(want, trow{id, v})
				}
				got := tableRows(t, st, table)
				if fmt.Sprint(multisetOf(got)) != fmt.Sprint(multisetOf(want)) {
					t.Fatalf("epoch %d: table holds %d rows %v\nwant %d %v", epoch, len(got), got, len(want), want)
				}
			}
		})
	}
}
