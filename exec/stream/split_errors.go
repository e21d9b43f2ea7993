package stream

import (
	"fmt"
	"sort"
	"time"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// MaxSplitErrors bounds the malformed messages a split source keeps: the
// latest, shared out among its actors (each keeps its ceiling share of
// the messages of the splits it owns).
const MaxSplitErrors = 1000

// SplitErrorTable is the state table where a split source keeps the
// malformed messages it skipped: (split, offset) -> (recorded at, in
// microseconds since 1970, the error's text). A message's row is written
// into the batch of the epoch that skipped it, with the offset that
// moves past it, so it is listed once the epoch commits and never
// twice: a message read again after a recovery was skipped in an epoch
// that did not commit, and its row has the same key anyway.
func SplitErrorTable(id uint32) *storage.Table {
	return &storage.Table{ID: id, Types: []types.Type{types.TInt32, types.TInt64, types.TInt64, types.TText},
		PK: []int{0, 1}, DistKey: []int{0}}
}

// splitErrorKey names one skipped message.
type splitErrorKey struct {
	split  int32
	offset int64
}

// splitError is one kept malformed message.
type splitError struct {
	splitErrorKey
	at  int64 // microseconds since 1970
	err string
}

// splitErrors is a SplitSource's share of its error table: the rows of
// the splits it owns, oldest first, and the rows it skipped since the
// last barrier. Only the source's actor goroutine uses it.
type splitErrors struct {
	table   *storage.Table
	limit   int
	kept    []splitErrorKey // committed or staged rows, oldest first
	pending []splitError    // skipped since the last barrier
}

// newSplitErrors returns the error log of actor owner of a split source
// whose error table is id.
func newSplitErrors(id uint32, actors int) *splitErrors {
	n := max(actors, 1)
	return &splitErrors{table: SplitErrorTable(id), limit: (MaxSplitErrors + n - 1) / n}
}

// load reads the committed rows of the splits owns says are the actor's.
func (e *splitErrors) load(r storage.Reader, owns func(int32) bool) error {
	var rows []splitError
	it := e.table.Scan(r)
	for it.Next() {
		row := it.Row()
		if split := int32(row[0].(int64)); owns(split) {
			rows = append(rows, splitError{splitErrorKey: splitErrorKey{split, row[1].(int64)}, at: row[2].(int64)})
		}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("loading its malformed messages: %w", err)
	}
	sortSplitErrors(rows)
	for _, r := range rows {
		e.kept = append(e.kept, r.splitErrorKey)
	}
	return nil
}

// add notes a message skipped now.
func (e *splitErrors) add(split int32, offset int64, err error, now time.Time) {
	e.pending = append(e.pending, splitError{splitErrorKey{split, offset}, now.UnixMicro(), err.Error()})
}

// persist writes the rows skipped since the last barrier into the
// epoch's batch w, and deletes there the oldest beyond the limit.
func (e *splitErrors) persist(w *storage.WriteBatch) error {
	for _, p := range e.pending {
		if err := e.table.Insert(w, []types.Datum{int64(p.split), p.offset, p.at, p.err}); err != nil {
			return err
		}
		e.kept = append(e.kept, p.splitErrorKey)
	}
	e.pending = e.pending[:0]
	for len(e.kept) > e.limit {
		k := e.kept[0]
		if err := e.table.Delete(w, []types.Datum{int64(k.split), k.offset, int64(0), ""}); err != nil {
			return err
		}
		e.kept = e.kept[1:]
	}
	return nil
}

// SplitErrorRow is one row of a split source's error table.
type SplitErrorRow struct {
	Split  int32
	Offset int64
	At     time.Time
	Err    string
}

// ReadSplitErrors returns the committed rows of error table id, oldest
// first (for streamdb_catalog.source_errors).
func ReadSplitErrors(r storage.Reader, id uint32) ([]SplitErrorRow, error) {
	var rows []splitError
	it := SplitErrorTable(id).Scan(r)
	for it.Next() {
		row := it.Row()
		rows = append(rows, splitError{splitErrorKey{int32(row[0].(int64)), row[1].(int64)}, row[2].(int64), row[3].(string)})
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sortSplitErrors(rows)
	out := make([]SplitErrorRow, len(rows))
	for i, r := range rows {
		out[i] = SplitErrorRow{Split: r.split, Offset: r.offset, At: time.UnixMicro(r.at), Err: r.err}
	}
	return out, nil
}

// sortSplitErrors orders rows oldest first, by where they are in their
// split among rows recorded at the same time.
func sortSplitErrors(rows []splitError) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.at != b.at {
			return a.at < b.at
		}
		if a.split != b.split {
			return a.split < b.split
		}
		return a.offset < b.offset
	})
}
