package storage

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestPrefixProbe checks that a probe finds what ScanPrefix finds, for
// prefixes asked in ascending order and in any order, through a committed
// snapshot and through a batch with writes of its own.
func TestPrefixProbe(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(-3); c < 12; c += 2 {
		for id := range c + 4 {
			if err := ordersTable.Insert(w, order(c, id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	commit(t, s, 1, w)
	w = s.NewWriteBatch()
	defer w.Close()
	for _, r := range [][]types.Datum{order(4, 1), order(5, 0), order(-3, 5)} {
		if err := ordersTable.Insert(w, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := ordersTable.Delete(w, order(7, 3)); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	defer snap.Close()
	for _, r := range []Reader{snap, w} {
		var keys [][]byte
		want := map[string][][]types.Datum{}
		for c := int64(-4); c < 13; c++ {
			k, err := ordersTable.AppendPrefixKey(nil, []types.Datum{c})
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
			want[string(k)] = scanAll(t, ordersTable.ScanPrefix(r, []types.Datum{c}, false))
		}
		check := func(keys [][]byte) {
			p, err := ordersTable.NewPrefixProbe(r)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for _, k := range keys {
				var got [][]types.Datum
				if err := p.Scan(k, func(row []types.Datum) error {
					got = append(got, slices.Clone(row))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[string(k)]) {
					t.Errorf("Scan(%x) = %v, want %v", k, got, want[string(k)])
				}
			}
		}
		check(keys) // vnode order: any order
		slices.SortFunc(keys, bytes.Compare)
		check(keys)
	}
	// Whole keys: Get finds what Table.Get finds.
	for _, r := range []Reader{snap, w} {
		p, err := ordersTable.NewPrefixProbe(r)
		if err != nil {
			t.Fatal(err)
		}
		for c := int64(-4); c < 13; c++ {
			for id := int64(-1); id < 17; id++ {
				pk := []types.Datum{c, id}
				k, err := ordersTable.AppendPrefixKey(nil, pk)
				if err != nil {
					t.Fatal(err)
				}
				want, ok, err := ordersTable.Get(r, pk)
				if err != nil {
					t.Fatal(err)
				}
				var got []types.Datum
				if err := p.Get(k, func(row []types.Datum) error {
					if got != nil {
						t.Fatalf("Get(%v) found two rows", pk)
					}
					got = slices.Clone(row)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if ok != (got != nil) || ok && !reflect.DeepEqual(got, want) {
					t.Errorf("Get(%v) = %v, want %v (%v)", pk, got, want, ok)
				}
			}
		}
		p.Close()
	}
	empty := &Table{ID: 43, Types: ordersTable.Types, PK: ordersTable.PK, DistKey: ordersTable.DistKey}
	p, err := empty.NewPrefixProbe(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Empty() {
		t.Error("probe of an empty table is not Empty")
	}
}

func scanAll(t *testing.T, it Iterator) [][]types.Datum {
	t.Helper()
	var rows [][]types.Datum
	for it.Next() {
		rows = append(rows, slices.Clone(it.Row()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	return rows
}

// TestAppendPrefixKeyLayouts: the prefix of every pk value is the row's
// key, and a shorter prefix starts it, whether the DistKey columns lead
// the pk (encoded once) or not, over text and integer columns.
func TestAppendPrefixKeyLayouts(t *testing.T) {
	ts := []types.Type{types.TInt64, types.TText, types.TInt32}
	row := []types.Datum{int64(-7), "a\x00b", int64(3)}
	for _, tc := range []struct{ pk, dist []int }{
		{[]int{0, 1}, []int{0}},
		{[]int{1, 0, 2}, []int{1, 0}},
		{[]int{0, 1}, nil},
		{[]int{2, 0}, []int{0}}, // DistKey not leading: hashed apart
		{[]int{0, 2}, []int{2, 0}},
	} {
		tbl := &Table{ID: 9, Types: ts, PK: tc.pk, DistKey: tc.dist}
		key, err := tbl.Key(row)
		if err != nil {
			t.Fatal(err)
		}
		var pk []types.Datum
		for _, c := range tc.pk {
			pk = append(pk, row[c])
		}
		for n := len(tc.pk); n >= 1; n-- {
			// Only prefixes that cover the DistKey have a vnode.
			covered := true
			for _, c := range tc.dist {
				if !slices.Contains(tc.pk[:n], c) {
					covered = false
				}
			}
			if !covered {
				continue
			}
			got, err := tbl.AppendPrefixKey([]byte("x"), pk[:n])
			if err != nil {
				t.Fatalf("pk %v dist %v: %v", tc.pk, tc.dist, err)
			}
			if got[0] != 'x' || !bytes.HasPrefix(key, got[1:]) || n == len(pk) && !bytes.Equal(key, got[1:]) {
				t.Fatalf("pk %v dist %v, %d columns: prefix %x of key %x", tc.pk, tc.dist, n, got[1:], key)
			}
		}
	}
}
