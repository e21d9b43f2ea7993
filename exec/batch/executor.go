package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// ChunkSize is the number of rows executors aim to put in a chunk.
const ChunkSize = 1024

// Executor produces the rows of one plan node, a chunk at a time.
type Executor interface {
	// Next returns the next chunk, owned by the caller, or nil at the end.
	Next(ctx context.Context) (*chunk.Chunk, error)
	// Types returns the types of the output columns.
	Types() []types.Type
	// Close releases the executor's resources and closes its inputs.
	Close() error
}

// Source opens scans of tables and materialized views, all reading one
// consistent snapshot.
type Source interface {
	Scan(ctx context.Context, rel *catalog.Relation) (storage.Iterator, error)
}

// ReadAll drains e and returns its rows decoded (it does not close e).
func ReadAll(ctx context.Context, e Executor) ([][]types.Datum, error) {
	var out [][]types.Datum
	for {
		c, err := e.Next(ctx)
		if err != nil || c == nil {
			return out, err
		}
		out = append(out, c.Rows()...)
		c.Release()
	}
}
