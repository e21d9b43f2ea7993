package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// MemSource is a Source over rows held in memory, by relation name: for
// tests and for callers that already have the rows.
type MemSource map[string][][]types.Datum

// Scan implements Source.
func (m MemSource) Scan(ctx context.Context, rel *catalog.Relation) (storage.Iterator, error) {
	rows, ok := m[rel.Name]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Name)
	}
	return &memIterator{rows: rows, pos: -1}, nil
}

// memIterator walks a slice of rows.
type memIterator struct {
	rows [][]types.Datum
	pos  int
}

func (it *memIterator) Next() bool {
	it.pos++
	return it.pos < len(it.rows)
}

func (it *memIterator) Row() []types.Datum { return it.rows[it.pos] }
func (it *memIterator) Err() error         { return nil }
func (it *memIterator) Close() error       { return nil }
