package stream

import (
	"context"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// The shape of streamdb bench's join view, SELECT a.id, a.k, a.v, b.v
// FROM a JOIN b ON a.id = b.id: the key is each side's whole pk, so every
// probe is a point lookup.
var (
	benchJoinLeft  = []types.Type{types.TInt64, types.TInt32, types.TInt64}
	benchJoinRight = []types.Type{types.TInt64, types.TInt64}
)

func benchJoinSpec() JoinSpec {
	return JoinSpec{Kind: JoinInner, LeftTypes: benchJoinLeft, RightTypes: benchJoinRight,
		LeftKeys: []int{0}, RightKeys: []int{0}, LeftPK: []int{0}, RightPK: []int{0}}
}

// joinBench drives a HashJoin message by message: feed queues input
// messages, epoch sends a barrier on both inputs and pulls the join's
// output up to it, committing the epoch.
type joinBench struct {
	tb     testing.TB
	j      *HashJoin
	sc     *StateContext
	in     [2]chan Message
	epoch  uint64
	outRow int // rows emitted
}

func newJoinBench(tb testing.TB, spec JoinSpec) *joinBench {
	st := newTestStore(tb)
	sc := NewStateContext(st)
	jb := &joinBench{tb: tb, sc: sc}
	for s := range jb.in {
		jb.in[s] = make(chan Message, 64) // send keeps room for a barrier
	}
	j, err := NewHashJoin(&Receiver{C: jb.in[0], Typ: spec.LeftTypes}, &Receiver{C: jb.in[1], Typ: spec.RightTypes},
		sc, spec, tableIDs(spec.NumStateTables()))
	if err != nil {
		tb.Fatal(err)
	}
	jb.j = j
	return jb
}

// pull pulls the join's output up to the next barrier and commits the
// epoch.
func (jb *joinBench) pull() {
	for {
		m, err := jb.j.Next(context.Background())
		if err != nil {
			jb.tb.Fatal(err)
		}
		if m.Chunk != nil {
			jb.outRow += m.Chunk.NumRows()
			m.Chunk.Release()
			continue
		}
		if err := jb.sc.Store.CommitEpoch(m.Barrier.Prev, []*storage.WriteBatch{jb.sc.TakeBatch()}); err != nil {
			jb.tb.Fatal(err)
		}
		return
	}
}

// send queues c on input s, ending the epoch when the input holds many.
func (jb *joinBench) send(s int, c *chunk.Chunk) {
	jb.in[s] <- Message{Chunk: c}
	if len(jb.in[s]) >= 48 {
		jb.barrier()
	}
}

// barrier ends the epoch.
func (jb *joinBench) barrier() {
	jb.epoch++
	for s := range jb.in {
		jb.in[s] <- barrierMsg(jb.epoch)
	}
	jb.pull()
}

// benchChunks returns chunks of maxChunkRows rows of ids [lo, hi) made by
// row (an update pair when update).
func benchChunks(ts []types.Type, lo, hi int64, update bool, row func(id int64, old bool) []types.Datum) []*chunk.Chunk {
	var out []*chunk.Chunk
	b := chunk.NewBuilder(ts)
	defer b.Release()
	for id := lo; id < hi; id++ {
		if update {
			b.Append(chunk.UpdateDelete, row(id, true))
			b.Append(chunk.UpdateInsert, row(id, false))
		} else {
			b.Append(chunk.Insert, row(id, false))
		}
		if b.Len() >= maxChunkRows {
			out = append(out, b.Build())
		}
	}
	if b.Len() > 0 {
		out = append(out, b.Build())
	}
	return out
}

func benchLeftRow(id int64, _ bool) []types.Datum { return []types.Datum{id, id % 1000, 7 * id} }

// BenchmarkHashJoinLiveUpdate is streamdb bench isolation's live-join
// phase: the left side holds joinBenchRows committed rows, and each
// epoch updates 20,000 rows of the right side (an UPDATE ... SET v = v +
// 1 over a range of ids: 40,000 changes, each joined with its left row).
// It reports ns/change.
func BenchmarkHashJoinLiveUpdate(b *testing.B) {
	const rows, update = 500_000, 20_000
	jb := newJoinBench(b, benchJoinSpec())
	// The left rows arrive in their state table's key order, as a
	// backfill reads them (vnode by vnode): each epoch's state is an
	// sstable of its own key range, as after a backfill.
	ids := make([]int64, rows)
	for i := range ids {
		ids[i] = int64(i)
	}
	keyOf := func(id int64) string {
		k, err := jb.j.sides[0].table.AppendPrefixKey(nil, []types.Datum{id})
		if err != nil {
			b.Fatal(err)
		}
		return string(k)
	}
	slices.SortFunc(ids, func(x, y int64) int { return strings.Compare(keyOf(x), keyOf(y)) })
	for _, c := range benchChunks(benchJoinLeft, 0, rows, false, func(i int64, old bool) []types.Datum {
		return benchLeftRow(ids[i], old)
	}) {
		jb.send(0, c)
	}
	right := func(id int64, old bool) []types.Datum {
		if old {
			return []types.Datum{id, id}
		}
		return []types.Datum{id, id + 1}
	}
	for _, c := range benchChunks(benchJoinRight, 0, rows, false, right) {
		jb.send(1, c)
	}
	jb.barrier()
	b.Logf("LSM after loading:\n%s", jb.sc.Store.Metrics())
	var chunks [][]*chunk.Chunk
	for e := range rows / update {
		chunks = append(chunks, benchChunks(benchJoinRight, int64(e)*update, int64(e+1)*update, true, right))
	}
	defer func() {
		for _, cs := range chunks {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	b.ResetTimer()
	changes := 0
	// Labelled, so that a profile can focus on the epochs measured
	// (go tool pprof -tagfocus phase=measured).
	pprof.Do(context.Background(), pprof.Labels("phase", "measured"), func(context.Context) {
		for i := range b.N {
			for _, c := range chunks[i%len(chunks)] {
				c.Retain()
				changes += c.NumRows()
				jb.send(1, c)
			}
			jb.barrier()
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(changes), "ns/change")
}

// BenchmarkHashJoinBackfill is streamdb bench backfill's join view as
// its executor sees it: both sides start empty and receive their
// tables' rows in state key order (each side's snapshot read vnode by
// vnode), a chunk of one side then a chunk of the other, with a barrier
// every few chunks. About half the probes find the other side's row
// already stored, half find the key not reached yet. It reports ns/row
// (rows of both sides).
func BenchmarkHashJoinBackfill(b *testing.B) {
	const rows = 200_000 // per side
	ids := make([]int64, rows)
	for i := range ids {
		ids[i] = int64(i)
	}
	var sorted bool
	right := func(i int64, _ bool) []types.Datum { id := ids[i]; return []types.Datum{id, 3 * id} }
	left := func(i int64, old bool) []types.Datum { return benchLeftRow(ids[i], old) }
	var in int
	var cpu time.Duration
	b.ReportAllocs()
	b.StopTimer()
	for range b.N {
		jb := newJoinBench(b, benchJoinSpec())
		if !sorted {
			keyOf := func(id int64) string {
				k, err := jb.j.sides[0].table.AppendPrefixKey(nil, []types.Datum{id})
				if err != nil {
					b.Fatal(err)
				}
				return string(k)
			}
			slices.SortFunc(ids, func(x, y int64) int { return strings.Compare(keyOf(x), keyOf(y)) })
			sorted = true
		}
		lc := benchChunks(benchJoinLeft, 0, rows, false, left)
		rc := benchChunks(benchJoinRight, 0, rows, false, right)
		cpu0 := cpuTime()
		b.StartTimer()
		for i := range lc {
			in += lc[i].NumRows() + rc[i].NumRows()
			jb.send(0, lc[i])
			jb.send(1, rc[i])
		}
		jb.barrier()
		b.StopTimer()
		cpu += cpuTime() - cpu0
		if jb.outRow != rows {
			b.Fatalf("joined %d rows, want %d", jb.outRow, rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(in), "ns/row")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(in), "cpu-ns/row")
}

// cpuTime returns the process's CPU time (user and system, all threads):
// on a shared machine the CPU a benchmark spends varies far less than its
// wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
