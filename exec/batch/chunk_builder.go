package batch

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// rowBuilder accumulates rows into chunks, including chunks of no columns
// (whose row count Arrow keeps apart from any column).
type rowBuilder struct {
	types []types.Type
	b     *chunk.Builder
	n     int
}

func newRowBuilder(ts []types.Type) *rowBuilder {
	return &rowBuilder{types: ts, b: chunk.NewBuilder(ts)}
}

func (rb *rowBuilder) append(row []types.Datum) {
	if len(rb.types) > 0 {
		rb.b.Append(chunk.Insert, row)
	}
	rb.n++
}

func (rb *rowBuilder) len() int { return rb.n }

func (rb *rowBuilder) full() bool { return rb.n >= ChunkSize }

// build returns the rows so far as a chunk (nil when there are none).
func (rb *rowBuilder) build() *chunk.Chunk {
	if rb.n == 0 {
		return nil
	}
	n := rb.n
	rb.n = 0
	if len(rb.types) == 0 {
		rec := array.NewRecordBatch(chunk.Schema(nil), nil, int64(n))
		return &chunk.Chunk{Rec: rec, Types: rb.types}
	}
	c := rb.b.Build()
	c.Ops = nil
	return c
}

// discard drops the rows appended so far.
func (rb *rowBuilder) discard() {
	if c := rb.build(); c != nil {
		c.Release()
	}
}

func (rb *rowBuilder) release() {
	if rb.b != nil {
		rb.b.Release()
		rb.b = nil
	}
}

// rowsExecutor emits materialized rows; Sort and HashAgg finish with it.
type rowsEmitter struct {
	rows [][]types.Datum
	pos  int
	rb   *rowBuilder
}

func (e *rowsEmitter) next() *chunk.Chunk {
	for e.pos < len(e.rows) && !e.rb.full() {
		e.rb.append(e.rows[e.pos])
		e.pos++
	}
	return e.rb.build()
}

// cloneRow copies a decoded row so that it outlives its chunk: decoded
// strings may share memory with the chunk's Arrow buffers.
func cloneRow(row []types.Datum) []types.Datum {
	out := make([]types.Datum, len(row))
	for i, v := range row {
		out[i] = cloneDatum(v)
	}
	return out
}

func cloneDatum(v types.Datum) types.Datum {
	if s, ok := v.(string); ok {
		return strings.Clone(s)
	}
	return v
}
