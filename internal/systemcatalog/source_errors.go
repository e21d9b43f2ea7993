package systemcatalog

import (
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// SourceError is a malformed message a source skipped: the partition
// (split) and offset it was at, and why it is not a row.
type SourceError struct {
	Source string
	Split  int32
	Offset int64
	Error  string
	At     time.Time
}

// SourceEngine is what an Engine implements, optionally, for the sources
// that read splits (Kafka): their malformed messages and status.
type SourceEngine interface {
	// SourceErrors returns the recent malformed messages, by source,
	// partition and offset.
	SourceErrors() []SourceError
	// SourceStatus returns relation id's skipped messages and its
	// reader's state; ok is false for a relation that reads no splits.
	SourceStatus(id uint32) (skipped int64, state string, ok bool)
}

// streamdb_catalog.source_errors lists the messages sources skipped as
// malformed (bad JSON, a value of the wrong type), each with its
// partition, offset and error: the most recent 1000 of each source,
// kept across restarts (each is committed with the source's offsets) and
// dropped with it. The source goes on past them; streamdb_catalog.sources
// counts them (skipped).
var sourceErrors = newTable(nsStreamdb, "source_errors", 16010, "v", sourceErrorRows,
	`source text, partition_id integer, message_offset bigint, error text, at timestamp with time zone`)

func sourceErrorRows(v *view) [][]types.Datum {
	se, ok := v.e.(SourceEngine)
	if !ok {
		return nil
	}
	var rows [][]types.Datum
	for _, e := range se.SourceErrors() {
		rows = append(rows, []types.Datum{e.Source, int64(e.Split), e.Offset, e.Error, types.Timestamp(e.At.UnixMicro())})
	}
	return rows
}

// sourceStatus returns the skipped count and state columns of
// streamdb_catalog.sources for relation id (NULLs: it reads no splits).
func sourceStatus(v *view, id uint32) (skipped, state types.Datum) {
	se, ok := v.e.(SourceEngine)
	if !ok {
		return nil, nil
	}
	n, s, ok := se.SourceStatus(id)
	if !ok {
		return nil, nil
	}
	if s == "" {
		return n, nil
	}
	return n, s
}
