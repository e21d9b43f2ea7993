package stream

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

var mvTypes = []types.Type{types.TInt64, types.TText}

func TestMaterialize(t *testing.T) {
	st := newTestStore(t)
	table := &storage.Table{ID: 7, Types: mvTypes, PK: []int{0}, DistKey: []int{0}}
	var cs2 []change
	cs2 = append(cs2, upd(trow{int64(1), "a"}, trow{int64(1), "a2"})...) // clean update
	cs2 = append(cs2, del(int64(2), "b"))
	in := &scriptExec{typs: mvTypes, msgs: []Message{
		chunkMsg(mvTypes, ins(int64(1), "a"), ins(int64(2), "b"), ins(int64(3), "c")),
		barrierMsg(1),
		chunkMsg(mvTypes, cs2...),
		barrierMsg(2),
	}}
	sc := NewStateContext(st)
	m := NewMaterialize(in, sc, table)
	var got [][]string
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		got = append(got, changeStrings(cs))
	}}).run(m)
	want := [][]string{
		{`+ (1, "a")`, `+ (2, "b")`, `+ (3, "c")`},
		{`U- (1, "a")`, `U+ (1, "a2")`, `- (2, "b")`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if m.Conflicts != 0 {
		t.Fatalf("%d conflicts on a clean stream", m.Conflicts)
	}
	rows := tableRows(t, st, table)
	if fmt.Sprint(changeStrings(asInserts(rows))) != fmt.Sprint([]string{`+ (1, "a2")`, `+ (3, "c")`}) {
		t.Fatalf("table holds %v", rows)
	}
}

func asInserts(rows []trow) []change {
	cs := make([]change, len(rows))
	for i, r := range rows {
		cs[i] = change{chunk.Insert, r}
	}
	slices.SortFunc(cs, func(a, b change) int { return cmpTest(a.row[0], b.row[0]) })
	return cs
}

// TestMaterializeConflicts checks the repairs of an inconsistent input.
func TestMaterializeConflicts(t *testing.T) {
	st := newTestStore(t)
	table := &storage.Table{ID: 7, Types: mvTypes, PK: []int{0}, DistKey: []int{0}}
	var cs []change
	cs = append(cs, ins(int64(1), "a"), ins(int64(2), "b"))
	cs = append(cs, ins(int64(1), "a-again"))                                 // existing pk -> U-/U+
	cs = append(cs, del(int64(9), "missing"))                                 // dropped
	cs = append(cs, upd(trow{int64(8), "missing"}, trow{int64(8), "new"})...) // U- dropped, U+ -> Insert
	cs = append(cs, upd(trow{int64(2), "b"}, trow{int64(1), "moved"})...)     // U+ hits pk 1: U- -> Delete
	in := &scriptExec{typs: mvTypes, msgs: []Message{chunkMsg(mvTypes, cs...), barrierMsg(1)}}
	sc := NewStateContext(st)
	m := NewMaterialize(in, sc, table)
	var emitted []change
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		emitted = cs
	}}).run(m)
	want := []string{`+ (1, "a")`, `+ (2, "b")`, `U- (1, "a")`, `U+ (1, "a-again")`,
		`+ (8, "new")`, `- (2, "b")`, `U- (1, "a-again")`, `U+ (1, "moved")`}
	if got := changeStrings(emitted); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if m.Conflicts != 4 {
		t.Errorf("Conflicts = %d, want 4", m.Conflicts)
	}
	// The repaired stream applies cleanly and ends equal to the table.
	out := multiset{}
	if err := out.apply(emitted); err != nil {
		t.Fatal(err)
	}
	tab := multisetOf(tableRows(t, st, table))
	if d := out.diff(tab); d != "" {
		t.Fatalf("output vs table:\n%s", d)
	}
	if d := tab.diff(multisetOf([]trow{{int64(1), "moved"}, {int64(8), "new"}})); d != "" {
		t.Fatalf("table:\n%s", d)
	}
}

// TestMaterializeTrustedEpochs: a trusted Materialize's table equals its
// input's relation after every epoch, whether the epoch's writes leave
// through the batch or as an ingested sstable (updates and deletes of
// committed rows included).
func TestMaterializeTrustedEpochs(t *testing.T) {
	defer func(b int) { epochIngestBytes = b }(epochIngestBytes)
	for _, ingestBytes := range []int{1 << 30, 0, 200} {
		t.Run(fmt.Sprintf("ingest>=%d", ingestBytes), func(t *testing.T) {
			epochIngestBytes = ingestBytes
			rng := rand.New(rand.NewPCG(9, uint64(ingestBytes)))
			rel := newRandRel(rng, func(rng *rand.Rand, pk int64) trow {
				return trow{pk, fmt.Sprintf("v%d", rng.IntN(1000))}
			})
			rel.pInsert = 0.7
			var msgs []Message
			var wants [][]trow
			for e := range 12 {
				for _, cs := range rel.epoch(40) {
					msgs = append(msgs, chunkMsg(mvTypes, cs...))
				}
				msgs = append(msgs, barrierMsg(uint64(e+1)))
				wants = append(wants, rel.snapshot())
			}
			st := newTestStore(t)
			table := &storage.Table{ID: 7, Types: mvTypes, PK: []int{0}, DistKey: []int{0}}
			sc := NewStateContext(st)
			m := NewMaterialize(&scriptExec{typs: mvTypes, msgs: msgs}, sc, table)
			m.Trusted = true
			epoch := 0
			(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(uint64, []change) {
				got, want := multisetOf(tableRows(t, st, table)), multisetOf(wants[epoch])
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("epoch %d: table holds %v\nwant %v", epoch+1, got, want)
				}
				epoch++
			}}).run(m)
			if epoch != len(wants) {
				t.Fatalf("%d epochs, want %d", epoch, len(wants))
			}
		})
	}
}
