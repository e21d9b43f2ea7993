package connector

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// SplitRecord is one message of a split (a Kafka partition) at Offset:
// its decoded Row, or, for a message that is not a row, Row nil and Err
// the reason (nil: skipped silently, as a CSV header is). Delete marks a
// Row that deletes the row with its primary key (a Kafka upsert
// tombstone: only the key columns are set). Before, when set, is a row
// whose primary key is deleted just before Row is taken (a Debezium
// update that changed its row's key): one message, so both go out in
// the same epoch, before the split's offset moves past it.
type SplitRecord struct {
	Split  int32
	Offset int64
	Row    []types.Datum
	Err    error
	Delete bool
	Before []types.Datum
}

// SplitReader reads an external log made of splits, each an ordered
// sequence of messages addressed by offset (a Kafka topic's partitions).
// Unlike a Generator its rows are not a function of their position: the
// source that reads it persists each split's next offset with the rows
// of an epoch (exec/stream.SplitSource), and starts it there again.
//
// Its reading runs on a goroutine of its own, which polls into a bounded
// buffer, so a barrier never waits on a poll: the source takes batches
// from Records between barriers.
type SplitReader interface {
	// Start begins reading: each split from next[split] (the offset
	// after its last committed message), the others where the reader's
	// options say. Called at most once.
	Start(next map[int32]int64)
	// Records delivers batches of records, in offset order within a
	// split. It is closed when the reader stops on a fatal error (Err)
	// or after Close.
	Records() <-chan []SplitRecord
	Err() error
	// Close stops the reader's goroutines and waits for them; safe to
	// call more than once, and before Start.
	Close()
}

// isKafkaOption reports whether key is an option of the Kafka connector
// (package kafka reads them).
func isKafkaOption(key string) bool {
	return key == "topic" || strings.HasPrefix(key, "properties.") || strings.HasPrefix(key, "scan.startup.")
}
