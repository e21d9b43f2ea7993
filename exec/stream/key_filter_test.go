package stream

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeyFilter: no key added is ever ruled out, across the filter's
// growth, and few keys not added pass.
func TestKeyFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := newKeyFilter()
	var added []uint64
	for range 200_000 {
		h := rng.Uint64()
		f.add(h)
		added = append(added, h)
	}
	if len(f.levels) < 3 {
		t.Fatalf("%d levels after 200000 keys", len(f.levels))
	}
	f.touchLast(added[:10])
	for _, h := range added {
		if !f.mayContain(h) {
			t.Fatalf("added key %x ruled out", h)
		}
	}
	absent := make([]bool, len(added))
	f.absent(added, absent)
	if i := slices.Index(absent, true); i >= 0 {
		t.Fatalf("batch lookup ruled added key %x out", added[i])
	}
	pass := 0
	others := make([]uint64, 100_000)
	for i := range others {
		others[i] = rng.Uint64()
		if f.mayContain(others[i]) {
			pass++
		}
	}
	if pass > 5_000 {
		t.Fatalf("%d of 100000 keys never added pass the filter", pass)
	}
	// The batch lookup agrees with the lookups one by one.
	absent = make([]bool, len(others))
	f.absent(others, absent)
	for i, h := range others {
		if absent[i] == f.mayContain(h) {
			t.Fatalf("key %x: batch lookup says absent %v, mayContain %v", h, absent[i], f.mayContain(h))
		}
	}
}

// TestKeyFilterBounded: a filter that would outgrow keyFilterMaxWords
// stops taking keys and rules nothing out, rather than grow without
// bound.
func TestKeyFilterBounded(t *testing.T) {
	f := newKeyFilter()
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for !f.full {
		f.add(rng.Uint64())
		if n++; n > 64<<20 {
			t.Fatal("filter never filled")
		}
	}
	if f.words > keyFilterMaxWords || f.levels != nil {
		t.Fatalf("full filter holds %d words", f.words)
	}
	for range 1000 {
		if !f.mayContain(rng.Uint64()) {
			t.Fatal("a full filter ruled a key out")
		}
	}
	f.touchLast([]uint64{1, 2}) // harmless when full
	absent := []bool{true, true}
	f.absent([]uint64{1, 2}, absent)
	if absent[0] || absent[1] {
		t.Fatal("a full filter ruled a key out in a batch lookup")
	}
}

// TestHashJoinKeyFilter: a join over empty state keeps a filter of the
// keys it writes; one over committed state has none, and a barrier that
// may move vnodes drops it, while flow control keeps it.
func TestHashJoinKeyFilter(t *testing.T) {
	spec := joinTestSpec(JoinInner, []int{0}, nil)
	ts := joinSideTypes
	left := []Message{
		barrierMsg(1),
		chunkMsg(ts, ins(int64(1), int64(7), int64(0))),
		{Barrier: &Barrier{Prev: 2, Curr: 3, Mutation: &ThrottleMutation{Job: 9}}},
		{Barrier: &Barrier{Prev: 3, Curr: 4, Mutation: &UpdateMutation{}}},
	}
	right := []Message{
		barrierMsg(1),
		chunkMsg(ts, ins(int64(1), int64(8), int64(0))),
		{Barrier: &Barrier{Prev: 2, Curr: 3, Mutation: &ThrottleMutation{Job: 9}}},
		{Barrier: &Barrier{Prev: 3, Curr: 4, Mutation: &UpdateMutation{}}},
	}
	st := newTestStore(t)
	sc := NewStateContext(st)
	j := newTestJoin(t, sc, spec, left, right)
	var seen []bool
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(e uint64, cs []change) {
		seen = append(seen, j.sides[0].epoch.seen != nil && j.sides[1].epoch.seen != nil)
		if e == 2 && len(cs) != 1 {
			t.Fatalf("epoch 2: %v", changeStrings(cs))
		}
	}}).run(j)
	if want := []bool{false, true, false}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("filters after each epoch: %v, want %v", seen, want)
	}
	// Over the committed state: no filter.
	again := newTestJoin(t, sc, spec, []Message{chunkMsg(ts, ins(int64(2), int64(7), int64(0))), barrierMsg(4)}, []Message{barrierMsg(4)})
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(uint64, []change) {}}).run(again)
	if again.sides[0].epoch.seen != nil || again.sides[1].epoch.seen != nil {
		t.Fatal("a join over committed state has a key filter")
	}
}
