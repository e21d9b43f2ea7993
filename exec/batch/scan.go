package batch

import (
	"context"
	"errors"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Scan reads every row of a relation, all columns, from a Source; or,
// with a key prefix, the rows under it. With Reading, the columns its
// plan does not read are NULL: a storage iterator (storage.ColumnIterator)
// skips their bytes, and decodes the others straight into the chunk.
type Scan struct {
	src    Source
	rel    *catalog.Relation
	prefix []types.Datum
	index  *indexRead // nil: no index
	types  []types.Type
	it     storage.Iterator
	rb     *rowBuilder
	done   bool
	read   []bool                 // the columns read (nil: all)
	cols   storage.ColumnIterator // it, when it decodes into chunks
	viaIdx bool                   // it reads through the index
}

// Reading makes the scan read only the columns with read[i] set (nil:
// all; see planner/prune.go): the others may come out NULL. Call it
// before the first Next.
func (s *Scan) Reading(read []bool) *Scan {
	s.read = read
	return s
}

// NewScan returns a scan of rel; the iterator is opened on the first Next.
func NewScan(src Source, rel *catalog.Relation) *Scan {
	ts := rel.ColumnTypes()
	return &Scan{src: src, rel: rel, types: ts, rb: newRowBuilder(ts)}
}

// NewKeyScan returns a scan of the rows of rel whose leading primary key
// columns are prefix (covering the relation's DistKey), when src can look
// keys up (KeySource); of every row otherwise.
func NewKeyScan(src Source, rel *catalog.Relation, prefix []types.Datum) *Scan {
	s := NewScan(src, rel)
	s.prefix = prefix
	return s
}

// KeySource is a Source that reads the rows under a primary key prefix.
type KeySource interface {
	ScanKey(ctx context.Context, rel *catalog.Relation, prefix []types.Datum) (storage.Iterator, error)
}

// Types implements Executor.
func (s *Scan) Types() []types.Type { return s.types }

// Next implements Executor.
func (s *Scan) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.done {
		return nil, nil
	}
	if s.it == nil {
		it, err := s.open(ctx)
		if err != nil {
			return nil, err
		}
		s.it = it
		if ci, ok := it.(storage.ColumnIterator); ok && !s.viaIdx && len(s.types) > 0 {
			ci.ReadColumns(s.read, true)
			s.cols = ci
		}
	}
	for !s.rb.full() {
		if !s.it.Next() {
			s.done = true
			if err := s.it.Err(); err != nil {
				return nil, err
			}
			break
		}
		if s.cols == nil {
			s.rb.append(s.it.Row())
			continue
		}
		if err := s.cols.AppendTo(s.rb.b, chunk.Insert); err != nil {
			s.done = true // the builder holds a half-appended row
			return nil, err
		}
		s.rb.n++
	}
	return s.rb.build(), nil
}

// open opens the scan's iterator: under its key prefix, or through its
// index, when the source can; over every row otherwise.
func (s *Scan) open(ctx context.Context) (storage.Iterator, error) {
	if ks, ok := s.src.(KeySource); ok && s.prefix != nil {
		return ks.ScanKey(ctx, s.rel, s.prefix)
	}
	if s.index != nil {
		if it, err := s.index.open(ctx, s.src, s.rel); !errors.Is(err, ErrIndexUnavailable) {
			s.viaIdx = true
			return it, err
		}
	}
	return s.src.Scan(ctx, s.rel)
}

// Close implements Executor.
func (s *Scan) Close() error {
	s.rb.release()
	if s.it == nil {
		return nil
	}
	it := s.it
	s.it, s.done = nil, true
	return it.Close()
}
