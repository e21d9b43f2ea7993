package storage

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestPrefixProbeGetAscending checks that GetAscending finds what Get
// finds for whole keys asked in ascending order (runs of neighbours,
// keys far apart, absent keys, repeats), in descending and random order,
// and interleaved with Get and Scan, which reposition the iterator.
func TestPrefixProbeGetAscending(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(0); c < 40; c += 3 {
		for id := int64(0); id < 30; id += 1 + c%4 {
			if err := ordersTable.Insert(w, order(c, id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	commit(t, s, 1, w)
	snap := s.Snapshot()
	defer snap.Close()
	var keys [][]byte
	for c := int64(-1); c < 42; c++ {
		for id := int64(-1); id < 32; id++ {
			k, err := ordersTable.AppendPrefixKey(nil, []types.Datum{c, id})
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
	}
	p, err := ordersTable.NewPrefixProbe(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := map[string][]types.Datum{}
	for _, k := range keys {
		if err := p.Get(k, func(row []types.Datum) error {
			want[string(k)] = slices.Clone(row)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) == 0 || len(want) == len(keys) {
		t.Fatalf("%d of %d keys found: want some of them", len(want), len(keys))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(name string, keys [][]byte, interleave bool) {
		for i, k := range keys {
			if interleave && i%7 == 3 {
				if err := p.Scan(keys[(i*13)%len(keys)], func([]types.Datum) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if interleave && i%11 == 5 {
				if err := p.Get(keys[(i*17)%len(keys)], func([]types.Datum) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			var got []types.Datum
			if err := p.GetAscending(k, func(row []types.Datum) error {
				if got != nil {
					t.Fatalf("%s: GetAscending(%x) found two rows", name, k)
				}
				got = slices.Clone(row)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want[string(k)]) {
				t.Fatalf("%s: GetAscending(%x) = %v, want %v", name, k, got, want[string(k)])
			}
		}
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	check("ascending", sorted, false)
	check("ascending, interleaved", sorted, true)
	var sparse, repeated [][]byte
	for i := 0; i < len(sorted); i += 1 + rng.IntN(40) {
		sparse = append(sparse, sorted[i])
		repeated = append(repeated, sorted[i], sorted[i])
	}
	check("sparse", sparse, false)
	check("repeated", repeated, false)
	desc := slices.Clone(sorted)
	slices.Reverse(desc)
	check("descending", desc, false)
	shuffled := slices.Clone(keys)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	check("random", shuffled, false)
	check("random, interleaved", shuffled, true)
}
