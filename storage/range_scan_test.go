package storage

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// indexLike is laid out as an index on a: (a int, id int), pk (a, id),
// distributed by a; a may be NULL.
var indexLike = &Table{ID: 77, Types: []types.Type{types.TInt32, types.TInt64}, PK: []int{0, 1}, DistKey: []int{0}}

// TestScanRange compares ScanRange with a filtered full scan over random
// ranges: equalities (one vnode), ranges on the first key column (every
// vnode) and ranges after an equality, NULLs never inside a bound.
func TestScanRange(t *testing.T) {
	s := openMem(t)
	rng := rand.New(rand.NewSource(1))
	w := s.NewWriteBatch()
	for id := int64(0); id < 2000; id++ {
		var a types.Datum = int64(rng.Intn(50) - 25)
		if rng.Intn(10) == 0 {
			a = nil
		}
		mustDo(t, indexLike.Insert(w, []types.Datum{a, id}))
	}
	commit(t, s, 1, w)
	all := collect(t, indexLike.Scan(s))
	bound := func() *KeyBound {
		if rng.Intn(3) == 0 {
			return nil
		}
		return &KeyBound{Value: int64(rng.Intn(60) - 30), Inclusive: rng.Intn(2) == 0}
	}
	within := func(v types.Datum, kr KeyRange) bool {
		if v == nil {
			return false
		}
		x := v.(int64)
		if b := kr.Lower; b != nil && (x < b.Value.(int64) || x == b.Value.(int64) && !b.Inclusive) {
			return false
		}
		if b := kr.Upper; b != nil && (x > b.Value.(int64) || x == b.Value.(int64) && !b.Inclusive) {
			return false
		}
		return true
	}
	for n := 0; n < 300; n++ {
		var kr KeyRange
		switch rng.Intn(3) {
		case 0:
			kr.Eq = []types.Datum{int64(rng.Intn(60) - 30)}
		case 1:
			kr.Lower, kr.Upper = bound(), bound()
		default:
			kr.Eq = []types.Datum{int64(rng.Intn(60) - 30)}
			kr.Lower, kr.Upper = bound(), bound()
		}
		var want [][]types.Datum
		for _, r := range all {
			if len(kr.Eq) > 0 && (r[0] == nil || r[0] != kr.Eq[0]) {
				continue
			}
			if kr.bounded() && !within(r[len(kr.Eq)], kr) {
				continue
			}
			want = append(want, r)
		}
		got := collect(t, indexLike.ScanRange(s, kr))
		key := func(r []types.Datum) string { k, _ := indexLike.Key(r); return string(k) }
		slices.SortFunc(got, func(x, y []types.Datum) int { return compareStr(key(x), key(y)) })
		slices.SortFunc(want, func(x, y []types.Datum) int { return compareStr(key(x), key(y)) })
		if len(got) != len(want) {
			t.Fatalf("range %+v (lower %+v upper %+v): %d rows, want %d", kr, kr.Lower, kr.Upper, len(got), len(want))
		}
		for i := range got {
			if !sameRow(got[i], want[i]) {
				t.Fatalf("range %+v: row %d = %v, want %v", kr, i, got[i], want[i])
			}
		}
	}
}

func compareStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
