package storage

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open(":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// ordersTable: (customer int, id int, note text, amount float), pk
// (customer, id), distributed by customer.
var ordersTable = &Table{
	ID:      42,
	Types:   []types.Type{types.TInt64, types.TInt32, types.TText, types.TFloat64},
	PK:      []int{0, 1},
	DistKey: []int{0},
}

func order(customer, id int64) []types.Datum {
	return []types.Datum{customer, id, fmt.Sprintf("c%d-o%d", customer, id), float64(id) / 2}
}

func commit(t testing.TB, s *Store, epoch uint64, ws ...*WriteBatch) {
	t.Helper()
	if err := s.CommitEpoch(epoch, ws); err != nil {
		t.Fatalf("CommitEpoch(%d): %v", epoch, err)
	}
}

func collect(t testing.TB, it Iterator) [][]types.Datum {
	t.Helper()
	var rows [][]types.Datum
	for it.Next() {
		rows = append(rows, slices.Clone(it.Row()))
	}
	if err := it.Err(); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("close iterator: %v", err)
	}
	return rows
}

func mustGet(t testing.TB, tbl *Table, r Reader, pk ...types.Datum) []types.Datum {
	t.Helper()
	row, ok, err := tbl.Get(r, pk)
	if err != nil {
		t.Fatalf("Get(%v): %v", pk, err)
	}
	if !ok {
		return nil
	}
	return row
}

func TestTableCRUD(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(1); c <= 3; c++ {
		for id := int64(1); id <= 4; id++ {
			if err := ordersTable.Insert(w, order(c, id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	commit(t, s, 1, w)
	if got := mustGet(t, ordersTable, s, int64(2), int64(3)); !sameRow(got, order(2, 3)) {
		t.Fatalf("Get: %v", got)
	}

	w = s.NewWriteBatch()
	updated := order(2, 3)
	updated[2] = "changed"
	mustDo(t, ordersTable.Insert(w, updated))
	mustDo(t, ordersTable.Delete(w, order(1, 1)))
	commit(t, s, 2, w)

	if got := mustGet(t, ordersTable, s, int64(2), int64(3)); !sameRow(got, updated) {
		t.Fatalf("overwrite: got %v", got)
	}
	if got := mustGet(t, ordersTable, s, int64(1), int64(1)); got != nil {
		t.Fatalf("deleted row still there: %v", got)
	}
	if n := len(collect(t, ordersTable.Scan(s))); n != 11 {
		t.Fatalf("Scan: %d rows, want 11", n)
	}
	if s.CommittedEpoch() != 2 {
		t.Fatalf("CommittedEpoch = %d", s.CommittedEpoch())
	}
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestScanOrder checks that Scan walks vnode by vnode in pk order and that
// every row sits in the vnode its DistKey hashes to.
func TestScanOrder(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(-20); c < 20; c++ {
		for id := int64(5); id >= -5; id-- {
			mustDo(t, ordersTable.Insert(w, order(c, id)))
		}
	}
	commit(t, s, 1, w)
	rows := collect(t, ordersTable.Scan(s))
	if len(rows) != 40*11 {
		t.Fatalf("%d rows", len(rows))
	}
	for i := 1; i < len(rows); i++ {
		pv, v := ordersTable.Vnode(rows[i-1]), ordersTable.Vnode(rows[i])
		if pv > v || pv == v && compareDatum(types.TInt64, rows[i-1][0], rows[i][0])*2+
			compareDatum(types.TInt64, rows[i-1][1], rows[i][1]) >= 0 {
			t.Fatalf("rows out of order: %v (vnode %d) then %v (vnode %d)", rows[i-1], pv, rows[i], v)
		}
	}
	for vn := uint16(0); vn < NumVnodes; vn++ {
		for _, r := range collect(t, ordersTable.ScanVnode(s, vn, nil)) {
			if ordersTable.Vnode(r) != vn {
				t.Fatalf("row %v found in vnode %d, hashes to %d", r, vn, ordersTable.Vnode(r))
			}
		}
	}
}

func TestScanPrefix(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(1); c <= 5; c++ {
		for id := int64(1); id <= 10; id++ {
			mustDo(t, ordersTable.Insert(w, order(c, id)))
		}
	}
	mustDo(t, ordersTable.Insert(w, []types.Datum{int64(3), nil, "null id", 0.0}))
	commit(t, s, 1, w)

	fwd := collect(t, ordersTable.ScanPrefix(s, []types.Datum{int64(3)}, false))
	if len(fwd) != 11 || fwd[0][1] != nil || fwd[1][1] != int64(1) || fwd[10][1] != int64(10) {
		t.Fatalf("forward prefix scan: %v", fwd)
	}
	rev := collect(t, ordersTable.ScanPrefix(s, []types.Datum{int64(3)}, true))
	slices.Reverse(rev)
	if !slices.EqualFunc(fwd, rev, sameRow) {
		t.Fatalf("reverse scan is not the forward scan reversed:\n%v\n%v", fwd, rev)
	}
	// max() reads the first row of a reverse scan.
	it := ordersTable.ScanPrefix(s, []types.Datum{int64(5)}, true)
	if !it.Next() || it.Row()[1] != int64(10) {
		t.Fatalf("first reverse row: %v", it.Row())
	}
	mustDo(t, it.Close())
	if rows := collect(t, ordersTable.ScanPrefix(s, []types.Datum{int64(4), int64(7)}, false)); len(rows) != 1 || !sameRow(rows[0], order(4, 7)) {
		t.Fatalf("full-pk prefix: %v", rows)
	}
	if rows := collect(t, ordersTable.ScanPrefix(s, []types.Datum{int64(99)}, false)); len(rows) != 0 {
		t.Fatalf("absent prefix: %v", rows)
	}
	bad := ordersTable.ScanPrefix(s, nil, false) // does not cover DistKey
	if bad.Next() || !errors.Is(bad.Err(), ErrBadLayout) {
		t.Fatalf("prefix without dist key: err %v", bad.Err())
	}
	mustDo(t, bad.Close())
}

// TestScanVnodeResume reads a vnode in pages the way backfill does,
// resuming strictly after the last pk seen.
func TestScanVnodeResume(t *testing.T) {
	s := openMem(t)
	tbl := &Table{ID: 7, Types: []types.Type{types.TText, types.TInt64}, PK: []int{0}}
	w := s.NewWriteBatch()
	var want [][]types.Datum
	for i := range 100 {
		row := []types.Datum{fmt.Sprintf("k%03d", i), int64(i)}
		want = append(want, row)
		mustDo(t, tbl.Insert(w, row))
	}
	mustDo(t, tbl.Insert(w, []types.Datum{"k050\x00", int64(-1)})) // just after k050
	want = slices.Insert(want, 51, []types.Datum{"k050\x00", int64(-1)})
	commit(t, s, 1, w)

	var got [][]types.Datum
	var after []types.Datum
	for {
		it := tbl.ScanVnode(s, 0, after) // empty DistKey: everything in vnode 0
		n := 0
		for n < 7 && it.Next() {
			got = append(got, slices.Clone(it.Row()))
			n++
		}
		mustDo(t, it.Err())
		mustDo(t, it.Close())
		if n == 0 {
			break
		}
		after = got[len(got)-1][:1]
	}
	if !slices.EqualFunc(got, want, sameRow) {
		t.Fatalf("paged scan got %d rows, want %d:\n%v", len(got), len(want), got)
	}
	if rows := collect(t, tbl.ScanVnode(s, 1, nil)); len(rows) != 0 {
		t.Fatalf("vnode 1 of an undistributed table: %v", rows)
	}
	if it := tbl.ScanVnode(s, NumVnodes, nil); it.Next() || it.Err() == nil {
		t.Fatal("vnode out of range accepted")
	}
}

// TestBatchReadsOwnWrites: a WriteBatch sees committed state plus its own
// writes, a Snapshot taken before the commit sees neither, the store sees
// the batch only once committed.
func TestBatchReadsOwnWrites(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for id := int64(1); id <= 3; id++ {
		mustDo(t, ordersTable.Insert(w, order(1, id)))
	}
	commit(t, s, 1, w)

	snap := s.Snapshot()
	defer snap.Close()
	w = s.NewWriteBatch()
	mustDo(t, ordersTable.Insert(w, order(1, 4)))
	mustDo(t, ordersTable.Delete(w, order(1, 2)))
	changed := order(1, 3)
	changed[2] = "changed"
	mustDo(t, ordersTable.Insert(w, changed))

	ids := func(r Reader) []int64 {
		var out []int64
		for _, row := range collect(t, ordersTable.ScanPrefix(r, []types.Datum{int64(1)}, false)) {
			out = append(out, row[1].(int64))
		}
		return out
	}
	if got := ids(w); !slices.Equal(got, []int64{1, 3, 4}) {
		t.Fatalf("batch scan: %v", got)
	}
	if got := mustGet(t, ordersTable, w, int64(1), int64(3)); got[2] != "changed" {
		t.Fatalf("batch get: %v", got)
	}
	if got := ids(snap); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("snapshot scan before commit: %v", got)
	}
	if got := ids(s); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("store scan before commit: %v", got)
	}
	commit(t, s, 2, w)
	if got := ids(s); !slices.Equal(got, []int64{1, 3, 4}) {
		t.Fatalf("store scan after commit: %v", got)
	}
	if got := ids(snap); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("snapshot scan after commit: %v", got)
	}
	if got := mustGet(t, ordersTable, snap, int64(1), int64(3)); got[2] != "c1-o3" {
		t.Fatalf("snapshot get: %v", got)
	}
	if _, _, err := ordersTable.Get(w, []types.Datum{int64(1), int64(1)}); !errors.Is(err, ErrClosed) {
		t.Fatalf("read through a committed batch: %v", err)
	}
}

func TestTableRejectsBadRows(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	defer w.Close()
	cases := [][]types.Datum{
		{int64(1), int64(2), "x"},               // short
		{int64(1), "2", "x", 1.0},               // pk datum of the wrong type
		{int64(1), int64(2), "x", float32(1.0)}, // value datum of the wrong type
	}
	for _, row := range cases {
		if err := ordersTable.Insert(w, row); !errors.Is(err, ErrBadLayout) {
			t.Errorf("Insert(%v): %v", row, err)
		}
	}
	badLayout := &Table{ID: 1, Types: []types.Type{types.TInt64}, PK: []int{3}}
	if err := badLayout.Insert(w, []types.Datum{int64(1)}); !errors.Is(err, ErrBadLayout) {
		t.Errorf("pk index out of range: %v", err)
	}
	if _, _, err := ordersTable.Get(s, []types.Datum{int64(1)}); !errors.Is(err, ErrBadLayout) {
		t.Errorf("Get with a partial pk: %v", err)
	}
	if w.Count() != 0 {
		t.Errorf("rejected rows were staged: %d", w.Count())
	}
}

// TestVnodeSpread checks the hash spreads keys over all vnodes and agrees
// with VnodeOf, and that equal values of different representations match.
func TestVnodeSpread(t *testing.T) {
	var seen [NumVnodes]int
	for c := int64(0); c < 100000; c++ {
		v := ordersTable.Vnode(order(c, 0))
		seen[v]++
		if c%997 == 0 {
			if w, err := VnodeOf([]types.Type{types.TInt64}, []types.Datum{c}); err != nil || w != v {
				t.Fatalf("VnodeOf(%d) = %d, %v; Table.Vnode = %d", c, w, err, v)
			}
		}
	}
	for v, n := range seen {
		if n < 250 || n > 550 { // expect ~390 each
			t.Errorf("vnode %d got %d of 100000 keys", v, n)
		}
	}
	// Golden values pin the hash: changing it would move existing rows.
	if v := ordersTable.Vnode(order(1, 0)); v != goldenVnodeOf1 {
		t.Errorf("vnode of 1 = %d, want %d (hash changed?)", v, goldenVnodeOf1)
	}
	// CRC-32C's published check value: crc32c("123456789") = 0xE3069283.
	if v := VnodeOfKey([]byte("123456789")); v != 0x83 {
		t.Errorf("VnodeOfKey(check string) = %#x, want 0x83", v)
	}
	undist := &Table{ID: 1, Types: []types.Type{types.TInt64}, PK: []int{0}}
	if v := undist.Vnode([]types.Datum{int64(12345)}); v != 0 {
		t.Errorf("undistributed table vnode %d", v)
	}
}

const goldenVnodeOf1 = 140
