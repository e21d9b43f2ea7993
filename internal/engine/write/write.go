package write

import (
	"sync"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/storage"
)

// Engine is what the write path needs of the engine that owns the tables.
type Engine interface {
	// Store is the state store the tables live in.
	Store() *storage.Store
	// Coordinator runs the stream graph whose table sources the writes
	// go into and whose checkpoints commit them.
	Coordinator() *stream.Coordinator
	// Table returns the table's write state and its current source (a
	// recovery replaces the source; the write state survives it); ok is
	// false when the table does not exist (any more).
	Table(id uint32) (t *Table, src *stream.Source, ok bool)
	// Reader returns the batch source that reads relations from snap, for
	// an INSERT's SELECT and the scans of UPDATE and DELETE.
	Reader(snap storage.Reader) batch.Source
	// Closing is closed when the database starts closing: statements
	// waiting on a rate limit then fail.
	Closing() <-chan struct{}
	// NextRowID returns a new hidden row id, larger than every one
	// returned before, across restarts too.
	NextRowID() int64
	// Relation returns the catalog's current entry of relation id.
	Relation(id uint32) (*catalog.Relation, bool)
}

// Table is a table's write state, which outlives graph rebuilds: the
// lock a statement holds from its primary-key checks until its
// checkpoint commits, and the rate limiter of its DML.
type Table struct {
	mu      sync.Mutex
	limiter *Limiter
}

// NewTable returns the write state of a table.
func NewTable() *Table { return &Table{limiter: newLimiter()} }

// Limiter returns the table's DML rate limiter.
func (t *Table) Limiter() *Limiter { return t.limiter }

// Lock takes the table's DML lock, waiting for the statement that holds
// it (DROP takes it so no statement is left writing).
func (t *Table) Lock() { t.mu.Lock() }

// Unlock releases the table's DML lock.
func (t *Table) Unlock() { t.mu.Unlock() }

// Writer runs the writes of one database: INSERT, UPDATE, DELETE and COPY
// FROM. It is safe for concurrent use; statements on one table take
// turns (Table's lock).
type Writer struct {
	e Engine
}

// New returns the writer of the engine e.
func New(e Engine) *Writer { return &Writer{e: e} }
