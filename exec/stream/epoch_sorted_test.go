package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEpochWritesSorted checks latest and versions of a set whose
// buckets are written in ascending key order (a backfill's, looked up
// through the buckets' sorted lists, not heads) against a map, with
// lookups in ascending order and at random between links, and, in
// the "breaks" epochs, a write out of order at a random point, after
// which the set must answer the same through heads. Keys are a join
// key prefix (table, vnode, an id) with, for half the prefixes, a
// stream key after it; some keys are their own prefix.
func TestEpochWritesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	table := []byte{1, 0, 0, 0, 9, 0} // namespace, table id, vnode high byte
	prefixOf := func(vnode, id int) []byte {
		k := append(slices.Clone(table), byte(vnode))
		return binary.BigEndian.AppendUint32(k, uint32(id))
	}
	e := newEpochWrites(true)
	broke := 0 // epochs that ended hashed
	for epoch, mode := range []string{"sorted", "breaks", "sorted", "breaks", "sorted", "breaks"} {
		type write struct {
			val []byte
			del bool
		}
		want := map[string]write{}
		next := make([]int, 256) // per vnode, the next id to write
		vnodes := 1 + rng.IntN(256)
		breakAt := -1
		if mode == "breaks" {
			breakAt = rng.IntN(2000)
		}
		check := func(ascending bool) {
			t.Helper()
			var probes [][]byte
			for range 60 {
				v := rng.IntN(vnodes)
				probes = append(probes, prefixOf(v, rng.IntN(next[v]+3)))
			}
			if ascending {
				slices.SortFunc(probes, bytes.Compare)
			}
			for _, p := range probes {
				if id := binary.BigEndian.Uint32(p[len(p)-4:]); id%2 == 0 {
					i, ok := e.latest(p)
					w, had := want[string(p)]
					if ok != had || ok && (!bytes.Equal(e.value(i), w.val) || (e.value(i) == nil) != w.del) {
						t.Fatalf("epoch %d (%s): latest(%x) = %v %q, want %v %+v", epoch, mode, p, ok, e.value(i), had, w)
					}
					continue
				}
				var got, wantKeys []string
				for _, i := range e.versions(p) {
					got = append(got, fmt.Sprintf("%x=%q", e.key(i), e.value(i)))
				}
				for k := range want {
					if len(k) > len(p) && bytes.HasPrefix([]byte(k), p) {
						wantKeys = append(wantKeys, k)
					}
				}
				slices.Sort(wantKeys)
				var wants []string
				for _, k := range wantKeys {
					wants = append(wants, fmt.Sprintf("%x=%q", k, want[k].val))
				}
				if !slices.Equal(got, wants) {
					t.Fatalf("epoch %d (%s): versions(%x) = %v, want %v", epoch, mode, p, got, wants)
				}
			}
		}
		lastV, lastID := 0, 0
		for i := range 3000 {
			v := rng.IntN(vnodes)
			id := next[v]
			next[v] += 1 + rng.IntN(3)
			if i == breakAt && i > 0 {
				v, id = lastV, rng.IntN(lastID+1) // at or below the last key
			}
			lastV, lastID = v, id
			prefix := prefixOf(v, id)
			keys := [][]byte{prefix}
			if id%2 == 1 { // a prefix with rows under it
				keys = keys[:0]
				for s := range 1 + rng.IntN(3) {
					keys = append(keys, append(slices.Clone(prefix), byte(s), byte(rng.IntN(256))))
				}
				slices.SortFunc(keys, bytes.Compare)
				keys = slices.CompactFunc(keys, bytes.Equal)
			}
			for _, key := range keys {
				w := write{val: fmt.Appendf(nil, "v%d.%d", epoch, i), del: rng.IntN(5) == 0}
				if w.del {
					w.val = nil
				}
				e.put(key, len(prefix), w.val, w.del)
				want[string(key)] = w
			}
			if rng.IntN(100) == 0 {
				e.link()
				check(rng.IntN(2) == 0)
			}
		}
		e.link()
		if sorted := !e.unsorted && !e.mixed; e.hashed == sorted {
			t.Fatalf("epoch %d (%s): hashed %v with the writes sorted %v", epoch, mode, e.hashed, sorted)
		}
		if e.hashed {
			broke++
		}
		if mode == "sorted" && e.hashed {
			t.Fatalf("epoch %d: written in order, but hashed", epoch)
		}
		check(true)
		check(false)
		e.reset()
		if e.hashed {
			t.Fatalf("epoch %d: still hashed after reset", epoch)
		}
	}
	if broke == 0 {
		t.Fatal("no epoch wrote out of order: the hashed path went untested")
	}
}

// TestEpochWritesLowerBound checks lowerBound against a binary search
// from scratch, for lookups in any order (the cursor of an earlier
// lookup must not mislead a later one below it).
func TestEpochWritesLowerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	e := newEpochWrites(true)
	var keys [][]byte
	for i := range 500 {
		k := binary.BigEndian.AppendUint32([]byte{1, 0, 0, 0, 9, 0, 3}, uint32(3*i))
		keys = append(keys, k)
		e.put(k, len(k), []byte("v"), false)
	}
	e.link()
	bk := &e.buckets[3]
	for range 5000 {
		probe := binary.BigEndian.AppendUint32([]byte{1, 0, 0, 0, 9, 0, 3}, uint32(rng.IntN(1600)))
		want, _ := slices.BinarySearchFunc(keys, probe, bytes.Compare)
		if got := e.lowerBound(bk, probe); got != want {
			t.Fatalf("lowerBound(%x) = %d, want %d (cursor %d)", probe, got, want, bk.cur)
		}
	}
}
