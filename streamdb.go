// Package streamdb is an embedded SQL stream engine: tables, DML, batch
// queries and incrementally maintained materialized views, in-process or
// served over the Postgres wire protocol.
//
//	db, err := streamdb.Open("./data", nil)
//	...
//	db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int)")
//	db.Exec(ctx, "CREATE MATERIALIZED VIEW s AS SELECT sum(v) FROM t")
//	rows, err := db.Query(ctx, "SELECT * FROM s")
//	defer rows.Close()
//	for rows.Next() {
//		var total apd.Decimal
//		err = rows.Scan(&total)
//	}
//	err = rows.Err()
//
// A SELECT's Rows stream: the executor produces each row as Next asks
// for it, so a result of any size is read in bounded memory. Scan reads
// a row into Go variables (see scan.go for the types each SQL type scans
// into). QueryArrow returns the rows as Arrow record batches instead
// (see arrow.go for the type mapping), and Append bulk-loads Arrow
// record batches into a table as COPY FROM would.
//
// A database/sql driver is registered as "streamdb":
// sql.Open("streamdb", dir) (dir "" or ":memory:" for an in-memory store);
// its rows stream too. DB.Backend serves a DB over the Postgres wire
// protocol (package pgwire).
//
// Errors a statement returns are *Error values carrying the Postgres
// SQLSTATE and, for a statement's text, the position; test them with
// errors.As. The exported API names no type of an internal package.
//
// # Design
//
// This package is the public API only: thin adapters over the engine
// (internal/engine), which owns the store, the catalog, the stream
// coordinator and every goroutine. A DML statement returns once its change
// is durable and visible in every view (read your writes); a query reads a
// consistent snapshot of committed state. DB is safe for concurrent use; a
// Session is one client's state and is not.
package streamdb

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
)

// Options configure a DB. The zero value (or nil) is valid.
type Options struct {
	// InMemory keeps all data in memory (also chosen by dir "" or ":memory:").
	InMemory bool
	// NoSync skips fsync at commit: faster, but a crash can lose
	// acknowledged writes. For tests and benchmarks only.
	NoSync bool
	// BarrierInterval is how often the coordinator checkpoints when no
	// statement asks for it: how long a change from a source (Kafka,
	// datagen) takes at most to reach views and sinks. Zero means one
	// second. It is the default of a data dir: ALTER SYSTEM SET
	// barrier_interval_ms changes it at runtime and keeps the value in
	// the data dir, where it wins over this option (ALTER SYSTEM RESET
	// returns to it).
	BarrierInterval time.Duration
	// Logger receives operational logs; nil means slog.Default().
	Logger *slog.Logger
	// Parallelism is the default streaming parallelism of new views: the
	// number of actors that run each partitioned fragment of a view's job
	// (SET streaming_parallelism and WITH (streaming_parallelism = n)
	// override it per view). Zero means the STREAMDB_PARALLELISM
	// environment variable when set, else runtime.GOMAXPROCS(0); it is
	// capped at MaxParallelism.
	Parallelism int
	// JobFailureLimit is how many identical failures in a row, without
	// progress in between, quarantine the job of a view being created (its
	// backfill is paused until RESUME). Zero means 3.
	JobFailureLimit int
	// Clock, when not nil, is the time the temporal filters of views
	// read (WHERE ts > now() - INTERVAL '1 hour' moves with it at each
	// barrier), and the time statements start at and clock_timestamp()
	// reads (now() is the start of the transaction, as in PostgreSQL),
	// instead of the system clock: tests set it to move time by hand.
	Clock func() time.Time
}

// MaxParallelism is the highest streaming parallelism a view can have.
const MaxParallelism = planner.MaxParallelism

func (o *Options) engine() engine.Options {
	if o == nil {
		return engine.Options{}
	}
	return engine.Options{InMemory: o.InMemory, NoSync: o.NoSync,
		BarrierInterval: o.BarrierInterval, Logger: o.Logger,
		Parallelism: o.Parallelism, JobFailureLimit: o.JobFailureLimit, Clock: o.Clock}
}

// DB is an open streamdb database. It is safe for concurrent use.
type DB struct {
	e *engine.DB
}

// Open opens (creating if needed) the database in dir; dir "" or
// ":memory:" keeps everything in memory.
func Open(dir string, opts *Options) (*DB, error) {
	eo := opts.engine()
	e, err := engine.Open(dir, &eo)
	if err != nil {
		return nil, publicError(err)
	}
	return &DB{e: e}, nil
}

// Close commits the open epoch, stops every goroutine the DB started and
// closes the store. Statements still running end with an error.
func (db *DB) Close() error { return publicError(db.e.Close()) }

// Flush waits until every change written so far is visible in every view.
func (db *DB) Flush(ctx context.Context) error { return publicError(db.e.Flush(ctx)) }

// NewSession returns a new session with default settings.
func (db *DB) NewSession() *Session { return &Session{s: db.e.NewSession()} }

// Exec runs the statements of query (with args for $1, $2 ... when it is
// one statement) on a new session.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (Result, error) {
	return db.NewSession().Exec(ctx, query, args...)
}

// Query runs a query on a new session and returns its rows, which a
// SELECT streams: see Session.Query. Close them when done.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	return db.NewSession().Query(ctx, query, args...)
}

// CopyFrom runs query, a COPY ... FROM STDIN statement, on a new session,
// with r as the data the client would stream (in the statement's format).
// Like a COPY over the wire it loads every row or, on the first bad one,
// none; the error's Where then says which line.
func (db *DB) CopyFrom(ctx context.Context, query string, r io.Reader) (Result, error) {
	return db.NewSession().CopyFrom(ctx, query, r)
}

// CopyTo runs query, a COPY ... TO STDOUT statement, on a new session,
// writing the data to w (one Write per row).
func (db *DB) CopyTo(ctx context.Context, query string, w io.Writer) (Result, error) {
	return db.NewSession().CopyTo(ctx, query, w)
}

// Backend returns the backend that serves this DB over the Postgres wire
// protocol: pass it to pgwire.NewServer.
func (db *DB) Backend() pgwire.Backend { return db.e.Backend() }
