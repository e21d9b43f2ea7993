package batch

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// repeatChunks is an Executor yielding the same chunk n times.
type repeatChunks struct {
	c *chunk.Chunk
	n int
}

func (r *repeatChunks) Types() []types.Type { return r.c.Types }
func (r *repeatChunks) Close() error        { return nil }
func (r *repeatChunks) Next(context.Context) (*chunk.Chunk, error) {
	if r.n == 0 {
		return nil, nil
	}
	r.n--
	r.c.Retain()
	return r.c, nil
}

// keyBenchChunk is a chunk of ChunkSize rows (key, int64 value) whose
// keys of type t take groups distinct values; key(i) makes the i-th.
func keyBenchChunk(t types.Type, groups int, key func(int) types.Datum) *chunk.Chunk {
	b := chunk.NewBuilder([]types.Type{t, types.TInt64})
	defer b.Release()
	for i := range ChunkSize {
		b.Append(chunk.Insert, []types.Datum{key(i % groups), int64(i)})
	}
	return b.Build()
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

// BenchmarkBatchHashAggKey groups chunks of 1024 rows into 1000 groups
// by one key column of each type (count(*), sum).
func BenchmarkBatchHashAggKey(b *testing.B) {
	for _, kt := range keyBenchTypes {
		b.Run(kt.name, func(b *testing.B) {
			c := keyBenchChunk(kt.t, 1000, kt.key)
			defer c.Release()
			aggs := []AggSpec{{Kind: expr.AggCountStar, Arg: -1, Type: types.TInt64}, {Kind: expr.AggCount, Arg: 1, Type: types.TInt64}}
			b.ResetTimer()
			h := NewHashAgg(&repeatChunks{c: c, n: b.N}, []int{0}, aggs)
			if _, err := ReadAll(context.Background(), h); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			h.Close()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ChunkSize), "ns/row")
		})
	}
}

// BenchmarkBatchHashJoinKey joins chunks of 1024 rows with a build side
// of 1000 rows on one key column of each type.
func BenchmarkBatchHashJoinKey(b *testing.B) {
	for _, kt := range keyBenchTypes {
		b.Run(kt.name, func(b *testing.B) {
			c := keyBenchChunk(kt.t, 1000, kt.key)
			defer c.Release()
			build := keyBenchChunk(kt.t, 1000, kt.key)
			defer build.Release()
			b.ResetTimer()
			j := NewHashJoin(&repeatChunks{c: c, n: b.N}, &repeatChunks{c: build, n: 1}, InnerJoin, []int{0}, []int{0}, nil)
			for {
				out, err := j.Next(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if out == nil {
					break
				}
				out.Release()
			}
			b.StopTimer()
			j.Close()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ChunkSize), "ns/row")
		})
	}
}
