package storage

import (
	"bytes"
	"slices"
	"testing"
)

func TestKeyProbe(t *testing.T) {
	s := openMem(t)
	empty := s.Snapshot()
	defer empty.Close()
	w := s.NewWriteBatch()
	for c := int64(0); c < 20; c += 2 {
		if err := ordersTable.Insert(w, order(c, c*10)); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, s, 1, w)
	snap := s.Snapshot()
	defer snap.Close()

	var keys [][]byte
	want := map[string]bool{}
	for c := int64(0); c < 20; c++ {
		k, err := ordersTable.AppendRowKey(nil, order(c, c*10))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		want[string(k)] = c%2 == 0
	}
	slices.SortFunc(keys, bytes.Compare)
	p, err := ordersTable.NewKeyProbe(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, k := range keys {
		got, err := p.Has(k)
		if err != nil {
			t.Fatal(err)
		}
		if got != want[string(k)] {
			t.Errorf("Has(%x) = %v, want %v", k, got, want[string(k)])
		}
	}
	ep, err := ordersTable.NewKeyProbe(empty)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	if has, _ := ep.Has(keys[0]); !ep.Empty() || has {
		t.Errorf("probe of the empty snapshot: empty=%v has=%v", ep.Empty(), has)
	}
}
