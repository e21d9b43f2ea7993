package stream

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestTwoPhaseAggMatchesOnePhase runs the same change streams through one
// HashAgg and through two LocalAggs (each taking the rows of half the
// pks, as two input actors would) feeding a partial HashAgg, and requires
// the same changes at every epoch. Streams with deletes of rows never
// inserted must fail (a negative row count) in the same runs; what they
// emit before that is garbage, and differs: one phase resets a sum whose
// count returns to zero, two phases sum exactly.
func TestTwoPhaseAggMatchesOnePhase(t *testing.T) {
	groupBys := [][]int{{1}, {2, 3}, nil, {3}, {1, 2}, {0}}
	for _, cap := range []int{localAggGroups, 3} {
		for seed := range randomSeeds(3) {
			for _, gb := range groupBys {
				for _, consistent := range []bool{true, false} {
					name := fmt.Sprintf("cap=%d/%v/consistent=%v/%d", cap, gb, consistent, seed)
					t.Run(name, func(t *testing.T) {
						defer func(n int) { localAggGroups = n }(localAggGroups)
						localAggGroups = cap
						spec := AggSpec{InTypes: colAggTypes, GroupBy: gb, Aggs: colAggCalls, InputPK: []int{0}}
						if !spec.Splittable() {
							t.Fatal("spec does not split")
						}
						msgs := colAggScript(rand.New(rand.NewPCG(seed, 5)), consistent)
						one, oneErr := runAggOutputs(t, spec, msgs, true)
						partial := localPhase(t, spec, msgs)
						spec.Partial = true
						two, twoErr := runAggOutputs(t, spec, partial, false)
						if (oneErr == nil) != (twoErr == nil) {
							t.Fatalf("one phase: error %v; two phases: error %v", oneErr, twoErr)
						}
						if !consistent {
							return
						}
						if len(one) != len(two) {
							t.Fatalf("one phase ran %d epochs, two phases %d", len(one), len(two))
						}
						for e := range one {
							// Groups are flushed in first-touch order, which
							// differs: compare each epoch's changes as a set.
							if sortedChanges(one[e]) != sortedChanges(two[e]) {
								t.Fatalf("epoch %d:\none phase  %s\ntwo phases %s", e, one[e], two[e])
							}
						}
					})
				}
			}
		}
	}
}

// sortedChanges sorts the changes of an epoch printed by runAggOutputs.
func sortedChanges(s string) string {
	cs := strings.SplitAfter(s, "] ")
	slices.Sort(cs)
	return strings.Join(cs, "")
}

// localPhase runs the rows through two LocalAggs, as two input actors
// would: each row goes to the one its pk's parity names (a row's changes
// all reach the same actor, as its vnode's owner). It returns their outputs
// as one stream: per epoch, the first one's partial rows, the second
// one's, then the barrier.
func localPhase(t *testing.T, spec AggSpec, msgs []Message) []Message {
	t.Helper()
	var parts [2][]Message
	for _, m := range msgs {
		if m.Barrier != nil {
			parts[0] = append(parts[0], m)
			parts[1] = append(parts[1], m)
			continue
		}
		var split [2][]change
		for _, c := range chunkChanges(t, m.Chunk) {
			i := c.row[0].(int64) & 1
			split[i] = append(split[i], c)
		}
		for i, cs := range split {
			if len(cs) > 0 {
				parts[i] = append(parts[i], chunkMsg(spec.InTypes, cs...))
			}
		}
	}
	var locals [2]*LocalAgg
	for i := range locals {
		a, err := NewLocalAgg(&scriptExec{typs: spec.InTypes, msgs: parts[i]}, spec)
		if err != nil {
			t.Fatal(err)
		}
		locals[i] = a
	}
	var out []Message
	for {
		var b *Barrier
		for _, a := range locals {
			for {
				m, err := a.Next(context.Background())
				if errors.Is(err, errScriptEnd) {
					return out
				}
				if err != nil {
					t.Fatal(err)
				}
				if m.Barrier != nil {
					b = m.Barrier
					break
				}
				out = append(out, m)
			}
		}
		out = append(out, Message{Barrier: b})
	}
}

// TestLocalAggCancelledGroups: a group whose rows cancel out within an
// epoch sends nothing; a row count that cancels while a sum does not (a
// value replaced) still sends the sum's change.
func TestLocalAggCancelledGroups(t *testing.T) {
	ts := []types.Type{types.TInt64, types.TInt32}
	spec := AggSpec{InTypes: ts, GroupBy: []int{0}, Aggs: []AggCall{{Kind: expr.AggCountStar}, {Kind: expr.AggSum, Arg: 1}}}
	msgs := []Message{
		chunkMsg(ts, ins(int64(1), int64(5)), del(int64(1), int64(5)), del(int64(2), int64(5))),
		chunkMsg(ts, ins(int64(2), int64(9))),
		barrierMsg(1),
	}
	a, err := NewLocalAgg(&scriptExec{typs: ts, msgs: msgs}, spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Next(context.Background())
	if err != nil || m.Chunk == nil {
		t.Fatalf("got %+v, %v; want a chunk", m, err)
	}
	got := chunkChanges(t, m.Chunk)
	// Group 2: rows 0 net, count(*) 0 net, sum +4 over a net count of 0.
	if want := "[{0 [2 0 0 4 0]}]"; fmt.Sprint(got) != want {
		t.Fatalf("partial rows %v, want %s", got, want)
	}
	if m, err := a.Next(context.Background()); err != nil || m.Barrier == nil {
		t.Fatalf("got %+v, %v; want the barrier", m, err)
	}
}
