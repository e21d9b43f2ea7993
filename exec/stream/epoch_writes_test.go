package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEpochWrites puts many writes (past a page of entries, a block of
// bytes and several table growths) of keys under a few hundred prefixes,
// and checks latest, versions and the sorted set against a map, over
// two epochs (the second after reset). Keys share their first bytes, as
// a table's keys do.
func TestEpochWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := newEpochWrites(true)
	for epoch := range 2 {
		type write struct {
			val []byte
			del bool
		}
		want := map[string]write{}
		const prefixes, n = 300, 3 * entsPerPage
		for i := range n {
			p := rng.IntN(prefixes)
			prefix := fmt.Appendf(nil, "tabl:%04d", p)
			key := fmt.Appendf(bytes.Clone(prefix), "/%03d", rng.IntN(40))
			if p%7 == 0 {
				key = prefix // a whole key that is its own prefix
			}
			w := write{val: fmt.Appendf(nil, "v%d.%d", epoch, i), del: rng.IntN(4) == 0}
			if w.del {
				w.val = nil
			}
			e.put(key, len(prefix), w.val, w.del)
			want[string(key)] = w
			if rng.IntN(100) == 0 {
				e.link()
			}
		}
		e.link()
		if e.n != n {
			t.Fatalf("%d writes, want %d", e.n, n)
		}
		for p := range prefixes {
			prefix := fmt.Appendf(nil, "tabl:%04d", p)
			if p%7 == 0 {
				i, ok := e.latest(prefix)
				w, had := want[string(prefix)]
				if ok != had || ok && (!bytes.Equal(e.value(i), w.val) || (e.value(i) == nil) != w.del) {
					t.Fatalf("latest(%s) = %v %q, want %v %+v", prefix, ok, e.value(i), had, w)
				}
				continue
			}
			var keys []string
			for _, i := range e.versions(prefix) {
				k := string(e.key(i))
				keys = append(keys, k)
				if w := want[k]; !bytes.Equal(e.value(i), w.val) || (e.value(i) == nil) != w.del {
					t.Fatalf("versions(%s): %s = %q, want %+v", prefix, k, e.value(i), w)
				}
			}
			var wantKeys []string
			for k := range want {
				if len(k) > len(prefix) && k[:len(prefix)] == string(prefix) {
					wantKeys = append(wantKeys, k)
				}
			}
			slices.Sort(wantKeys)
			if !slices.Equal(keys, wantKeys) {
				t.Fatalf("versions(%s) = %q, want %q", prefix, keys, wantKeys)
			}
		}
		var sorted []string
		for _, s := range e.sorted() {
			k := string(e.key(s.i))
			sorted = append(sorted, k)
			if w := want[k]; !bytes.Equal(e.value(s.i), w.val) {
				t.Fatalf("sorted: %s = %q, want %+v", k, e.value(s.i), w)
			}
		}
		if len(sorted) != len(want) || !slices.IsSorted(sorted) {
			t.Fatalf("sorted: %d keys (in order: %v), want %d", len(sorted), slices.IsSorted(sorted), len(want))
		}
		e.reset()
		if _, ok := e.latest([]byte("tabl:0000")); ok || e.size != 0 {
			t.Fatal("a write survived reset")
		}
	}
}

// TestEpochWritesSortedTableKeys: sorted orders real state keys, whose
// first bytes after the table id are a shortcut, as bytes.Compare does.
func TestEpochWritesSortedTableKeys(t *testing.T) {
	spec := joinTestSpec(JoinInner, []int{1}, nil)
	side := newJoinSide(7, spec.LeftTypes, spec.LeftKeys, spec.LeftPK, false)
	rng := rand.New(rand.NewPCG(5, 6))
	var want [][]byte
	for i := range 5000 {
		row := trow{int64(i), int64(rng.IntN(50) - 25), int64(rng.IntN(3))}
		if err := side.stage(row, false, nil); err != nil {
			t.Fatal(err)
		}
		key, err := side.table.Key(row)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(key, side.wkey) {
			t.Fatalf("staged key %x, table key %x", side.wkey, key)
		}
		want = append(want, key)
	}
	slices.SortFunc(want, bytes.Compare)
	var got [][]byte
	for _, s := range side.epoch.sorted() {
		got = append(got, side.epoch.key(s.i))
	}
	if !slices.EqualFunc(got, want, bytes.Equal) {
		t.Fatal("sorted state keys out of order")
	}
}

// TestEpochWritesSortedRawKeys: sorted orders keys that share long
// prefixes, differ in few bytes, are prefixes of one another and repeat,
// as bytes.Compare does, keeping the latest write of each key.
func TestEpochWritesSortedRawKeys(t *testing.T) {
	for seed := range randomSeeds(20) {
		rng := rand.New(rand.NewPCG(seed, 9))
		e := newEpochWrites(false)
		shared := bytes.Repeat([]byte{byte(rng.IntN(256))}, tableIDPrefixLen+rng.IntN(20))
		latest := map[string]string{}
		n := 1 + rng.IntN(3000)
		for i := range n {
			k := slices.Clone(shared)
			// A few varying bytes at random positions, random lengths.
			for range rng.IntN(12) {
				k = append(k, []byte{0, 0xff, byte(rng.IntN(4)), byte(i)}[rng.IntN(4)])
			}
			if len(k) > tableIDPrefixLen+4 && rng.IntN(3) == 0 {
				k[tableIDPrefixLen+rng.IntN(len(k)-tableIDPrefixLen)] = byte(rng.IntN(3))
			}
			v := fmt.Sprint(i)
			e.put(k, 0, []byte(v), false)
			latest[string(k)] = v
		}
		var want []string
		for k := range latest {
			want = append(want, k)
		}
		slices.Sort(want)
		var got []string
		for _, w := range e.sorted() {
			k := string(e.key(w.i))
			got = append(got, k)
			if v := string(e.value(w.i)); v != latest[k] {
				t.Fatalf("seed %d: key %x has value %s, want the latest, %s", seed, k, v, latest[k])
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d keys sorted as %x, want %x", seed, n, got, want)
		}
	}
}

// BenchmarkEpochWritesPoint stages a backfill's join state as a point
// join does: in chunks of 1024 rows, each side in turn, each row first
// looked up in the other side's writes (where the other side's row of
// the same key is, for all but the first side's chunk); per row.
func BenchmarkEpochWritesPoint(b *testing.B) {
	spec := joinTestSpec(JoinInner, []int{0}, nil)
	sides := [2]*joinSide{
		newJoinSide(7, spec.LeftTypes, spec.LeftKeys, spec.LeftPK, false),
		newJoinSide(8, spec.RightTypes, spec.RightKeys, spec.RightPK, false),
	}
	const rows = 200_000
	var keys [2][][]byte // per side, the other side's prefix key of row i
	for s := range sides {
		for i := range rows {
			k, err := sides[1-s].table.AppendPrefixKey(nil, trow{int64(i)})
			if err != nil {
				b.Fatal(err)
			}
			keys[s] = append(keys[s], k)
		}
	}
	row := trow{nil, int64(1), int64(2)}
	b.ResetTimer()
	for range b.N / (2 * rows) {
		for start := 0; start < rows; start += 1024 {
			for s, side := range sides {
				other := sides[1-s].epoch
				for i := start; i < min(start+1024, rows); i++ {
					other.latest(keys[s][i])
					row[0] = int64(i)
					if err := side.stage(row, false, keys[s][i]); err != nil {
						b.Fatal(err)
					}
				}
				side.epoch.link()
			}
		}
		for _, side := range sides {
			side.epoch.reset()
		}
	}
}
