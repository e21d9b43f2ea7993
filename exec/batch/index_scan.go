package batch

import (
	"context"
	"errors"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/storage"
)

// An index scan is a Scan of a relation that finds its rows through an
// index on it (catalog.Index): the index rows of some key ranges, then
// the relation's rows they name by primary key; or, when the plan reads
// only columns the index holds (covering), rows made of the index rows
// alone, NULL in the other columns. The filter the ranges come from still
// runs over the rows, so the ranges need only hold every row it keeps.

// IndexSource is a Source that reads relations through their indexes.
type IndexSource interface {
	// ScanIndex returns the rows of rel (all its columns) that the
	// rows of index idx in ranges name; with covering, only the columns
	// idx holds are set. It fails with ErrIndexUnavailable when idx
	// cannot be read any more (dropped since the plan was made).
	ScanIndex(ctx context.Context, rel, idx *catalog.Relation, ranges []storage.KeyRange, covering bool) (storage.Iterator, error)
}

// ErrIndexUnavailable is what an IndexSource returns for an index it can
// no longer read: the scan then reads the whole relation.
var ErrIndexUnavailable = errors.New("batch: index unavailable")

// indexRead is how a Scan reads through an index.
type indexRead struct {
	idx      *catalog.Relation
	ranges   []storage.KeyRange
	covering bool
}

// NewIndexScan returns a scan of rel's rows through index idx: those the
// index rows in ranges (disjoint) name, when src can read indexes
// (IndexSource) and idx is still there; every row otherwise.
func NewIndexScan(src Source, rel, idx *catalog.Relation, ranges []storage.KeyRange, covering bool) *Scan {
	s := NewScan(src, rel)
	s.index = &indexRead{idx: idx, ranges: ranges, covering: covering}
	return s
}

// open returns the iterator of the index read, or ErrIndexUnavailable
// when src cannot read the index.
func (r *indexRead) open(ctx context.Context, src Source, rel *catalog.Relation) (storage.Iterator, error) {
	is, ok := src.(IndexSource)
	if !ok {
		return nil, ErrIndexUnavailable
	}
	return is.ScanIndex(ctx, rel, r.idx, r.ranges, r.covering)
}
