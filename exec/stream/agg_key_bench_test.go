package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// repeatMsgs is an Executor yielding chunk c n times, with a barrier
// after every `every` chunks and after the last.
type repeatMsgs struct {
	c           *chunk.Chunk
	n, every, i int
	epoch       uint64
	sentBarrier bool
}

func (r *repeatMsgs) Types() []types.Type { return r.c.Types }

func (r *repeatMsgs) Next(context.Context) (Message, error) {
	if r.i > 0 && (r.i%r.every == 0 || r.i == r.n) && !r.sentBarrier {
		r.sentBarrier = true
		r.epoch++
		return barrierMsg(r.epoch), nil
	}
	if r.i == r.n {
		return Message{}, errScriptEnd
	}
	r.i++
	r.sentBarrier = false
	r.c.Retain()
	return Message{Chunk: r.c}, nil
}

// keyBenchTypes are the group-key types the key benchmarks cover, each
// with a maker of its i-th distinct value.
var keyBenchTypes = []struct {
	name string
	t    types.Type
	key  func(int) types.Datum
}{
	{"int", types.TInt64, func(i int) types.Datum { return int64(i * 7919) }},
	{"text", types.TText, func(i int) types.Datum { return fmt.Sprintf("customer-%06d", i) }},
	{"numeric", types.TNumeric, func(i int) types.Datum {
		d, _ := types.Parse(fmt.Sprintf("%d.%02d", i, i%100), types.TNumeric)
		return d
	}},
	{"interval", types.TInterval, func(i int) types.Datum { return types.Interval{Days: int32(i % 31), Micros: int64(i) * 1e6} }},
}

// keyBenchChunk is a chunk of 1024 inserted rows (id, key, value) whose
// keys take groups distinct values.
func keyBenchChunk(t types.Type, groups int, key func(int) types.Datum) *chunk.Chunk {
	b := chunk.NewBuilder([]types.Type{types.TInt64, t, types.TInt64})
	defer b.Release()
	for i := range 1024 {
		b.Append(chunk.Insert, []types.Datum{int64(i), key(i % groups), int64(i)})
	}
	return b.Build()
}

// BenchmarkStreamAggKey runs a HashAgg (count(*), sum(bigint): the
// columnar path) and a LocalAgg over chunks of 1024 rows in 1000 groups
// of one key column of each type, a barrier every 16 chunks.
func BenchmarkStreamAggKey(b *testing.B) {
	for _, kt := range keyBenchTypes {
		spec := AggSpec{InTypes: []types.Type{types.TInt64, kt.t, types.TInt64}, GroupBy: []int{1},
			Aggs: []AggCall{{Kind: expr.AggCountStar}, {Kind: expr.AggSum, Arg: 2}}, InputPK: []int{0}}
		b.Run("hash/"+kt.name, func(b *testing.B) {
			c := keyBenchChunk(kt.t, 1000, kt.key)
			defer c.Release()
			st := newTestStore(b)
			sc := NewStateContext(st)
			h, err := NewHashAgg(&repeatMsgs{c: c, n: b.N, every: 16}, sc, spec, tableIDs(spec.NumStateTables()))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			benchDrain(b, h, func(m Message) {
				if err := st.CommitEpoch(m.Barrier.Prev, []*storage.WriteBatch{sc.TakeBatch()}); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("local/"+kt.name, func(b *testing.B) {
			c := keyBenchChunk(kt.t, 1000, kt.key)
			defer c.Release()
			l, err := NewLocalAgg(&repeatMsgs{c: c, n: b.N, every: 16}, spec)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			benchDrain(b, l, func(Message) {})
		})
	}
}

// benchDrain pulls ex to its end, calling barrier at each barrier, and
// reports the time per input row (1024 per iteration).
func benchDrain(b *testing.B, ex Executor, barrier func(Message)) {
	for {
		m, err := ex.Next(context.Background())
		if err == errScriptEnd {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if m.Chunk != nil {
			m.Chunk.Release()
			continue
		}
		barrier(m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1024), "ns/row")
}
