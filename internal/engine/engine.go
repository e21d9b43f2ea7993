// Package engine is streamdb's database engine: it owns the store
// (Pebble), the catalog, and the stream Coordinator, which owns every actor
// goroutine, and it runs statements for sessions. The root package streamdb
// is a thin public API over it; package pgwire serves its sessions over
// the Postgres protocol (Backend).
//
// # Design
//
// Each table is an actor that materializes the DML chunks sent into its
// source channel; each view is a job of actors reading from its upstream
// relations' actors. A DML statement sends its changes into the table's
// source and then waits for a checkpoint: when it returns, the change is
// durable and visible in every view (read your writes). Batch queries read
// a consistent snapshot of committed state.
//
// Where things live: statement dispatch in session.go, and the time
// statements read (now()) in statement_time.go; DDL in ddl.go,
// index.go (CREATE INDEX, and reading indexes) and alter.go; view jobs (backfill progress, pause, quarantine) in jobs.go
// and job_failures.go; the stream graph's build, rescale and recovery in
// graph.go, rescale.go and recoveries.go; the catalog's entries in the store in
// catalog_store.go; batch queries and COPY TO in query.go and copy_to.go. The
// write path (DML, COPY FROM, rate limits) is package write, which sees
// the engine through write.Engine (writes.go); the pg_catalog,
// information_schema and streamdb_catalog relations are package
// systemcatalog, which sees it through systemcatalog.Engine
// (systemcatalog.go). The DB's Prometheus metrics (its own registry,
// read at scrape time where it can) are in metrics.go.
//
// Locking: db.mu guards the catalog maps and runtime handles (readers take
// RLock); db.ddlMu serializes DDL; each table has a DML mutex held from its
// primary-key checks until the statement's checkpoint commits.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// Options configure a DB. The zero value (or nil) is valid. The fields
// mean what streamdb.Options documents for users (the public API copies
// them in); EnsureDefaults fills the zeros.
type Options struct {
	InMemory        bool
	NoSync          bool
	BarrierInterval time.Duration // zero: one second
	Logger          *slog.Logger  // nil: slog.Default()
	// Parallelism zero means the STREAMDB_PARALLELISM environment variable
	// when set (tests use it to run every view with more actors than
	// cores), else runtime.GOMAXPROCS(0); capped at MaxParallelism.
	Parallelism     int
	JobFailureLimit int              // zero: 3 (see job_failures.go)
	Clock           func() time.Time // nil: time.Now (barriers' and statements' time)
}

// MaxParallelism is the highest streaming parallelism a view can have.
const MaxParallelism = planner.MaxParallelism

// EnsureDefaults fills zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Parallelism == 0 {
		o.Parallelism = runtime.GOMAXPROCS(0)
		if n, err := strconv.Atoi(os.Getenv("STREAMDB_PARALLELISM")); err == nil && n > 0 {
			o.Parallelism = n
		}
	}
	o.Parallelism = min(max(o.Parallelism, 1), MaxParallelism)
	if o.BarrierInterval == 0 {
		o.BarrierInterval = time.Second
	}
	if o.JobFailureLimit <= 0 {
		o.JobFailureLimit = defaultJobFailureLimit
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// DB is an open streamdb database. It is safe for concurrent use; each
// Session is not.
type DB struct {
	opts  Options
	store *storage.Store
	coord *stream.Coordinator

	ddlMu sync.Mutex

	mu     sync.RWMutex
	rels   map[uint32]*catalog.Relation
	byName map[string]*catalog.Relation
	// schemas are the user-created schemas, by name (schema.go).
	schemas map[string]*catalog.Schema
	runtime map[uint32]*relRuntime
	// jobs are the views being created, by relation id.
	jobs map[uint32]*job
	// droppingIndexes are the indexes whose DROP has begun: queries no
	// longer read them (index.go). Made on first use.
	droppingIndexes map[uint32]bool
	nextID          uint32
	// seqs holds the sequences' states, loaded on first use
	// (sequence.go); guarded by mu, each state by its own lock.
	seqs map[uint32]*seqState

	// bg counts the DB's own goroutines (job runners); closing stops them.
	bg      sync.WaitGroup
	closing chan struct{}
	// gate is held (shared) by every running statement; Close takes it
	// exclusively to wait for them, then sets closed.
	gate   sync.RWMutex
	closed bool
	// iters are the open QueryIters, closed by Close.
	iters openIters

	actorSeq actorSeq
	rowIDs   rowIDGen
	// writer runs DML and COPY FROM (package write).
	writer *write.Writer
	// recoveries logs the graph's recent recoveries (streamdb_catalog.recoveries).
	recoveries recoveryLog
	// viewErrors counts the data errors of views' expressions
	// (streamdb_catalog.view_errors).
	viewErrors viewErrorLog
	// sourceErrors keeps the malformed messages sources skipped and
	// their readers' state (source_errors.go).
	sourceErrors sourceErrorLog
	// sinks holds the running sinks' delivery state (sink.go).
	sinks sinkMonitors
	// metrics is the DB's Prometheus registry and its instruments
	// (metrics.go).
	metrics *metrics
	// dash is the web dashboard's sampler and history (dashboard.go).
	dash      dashState
	defaultMu sync.Mutex
	defSess   *Session
	closeOnce sync.Once
}

// relRuntime is the running side of a relation.
type relRuntime struct {
	// par is the parallelism the job was built with.
	par int
	// tops are the actors that materialize the relation; views over it
	// attach to them.
	tops      []stream.ActorID
	topVnodes []storage.VnodeBitmap // the relation's vnodes each top owns
	actors    []stream.ActorID
	// fragments describe the job's fragments (streamdb_catalog.actors).
	fragments []planner.Fragment
	source    *stream.Source // tables only
	// table is the table's write state, its DML lock and rate limiter
	// (tables only; survives graph rebuilds).
	table *write.Table
	// generated is the index of the next row of the relation's connector
	// (relations with a connector only).
	generated *atomic.Int64
	// watermark shows the relation's watermark filter (relations with a
	// WATERMARK only).
	watermark *stream.WatermarkStats
}

// Open opens (creating if needed) the database in dir.
func Open(dir string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.EnsureDefaults()
	if dir == "" || dir == ":memory:" {
		o.InMemory = true
	}
	st, err := storage.Open(dir, storage.Options{InMemory: o.InMemory, NoSync: o.NoSync})
	if err != nil {
		return nil, fmt.Errorf("streamdb: opening store: %w", err)
	}
	db := &DB{opts: o, store: st, rels: map[uint32]*catalog.Relation{},
		byName: map[string]*catalog.Relation{}, schemas: map[string]*catalog.Schema{}, runtime: map[uint32]*relRuntime{},
		jobs: map[uint32]*job{}, closing: make(chan struct{})}
	db.writer = write.New(writeEngine{db})
	db.viewErrors.onNew = db.logViewError
	db.metrics = newMetrics(db)
	if err := db.loadCatalog(); err != nil {
		st.Close()
		return nil, err
	}
	if err := db.giveErrorTables(); err != nil { // source_errors_upgrade.go
		st.Close()
		return nil, err
	}
	defaultInterval := db.opts.BarrierInterval
	if err := db.loadSysParams(); err != nil {
		st.Close()
		return nil, err
	}
	db.coord = stream.NewCoordinator(st, stream.CoordinatorOptions{
		BarrierInterval: db.opts.BarrierInterval, Logger: o.Logger, Clock: o.Clock, Metrics: db.metrics.coordinator(),
		OnFailure: func(cause error) { db.metrics.recovered(cause); db.rebuildGraph(cause) }})
	db.opts.BarrierInterval = defaultInterval // RESET's value
	g, resumed, err := db.buildGraph()
	if err != nil {
		st.Close()
		return nil, err
	}
	db.coord.Start(g.actors, g.sources, g.creating)
	for _, j := range resumed {
		db.startJob(j)
	}
	if err := db.dropLeftovers(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// closeCheckpointTimeout bounds the final checkpoint of Close.
const closeCheckpointTimeout = 10 * time.Second

// Close commits the open epoch, stops every goroutine the DB started and
// closes the store.
func (db *DB) Close() error {
	var err error
	db.closeOnce.Do(func() {
		close(db.closing)
		db.bg.Wait()
		// Statements see closing and end; wait for them so none holds a
		// snapshot or a source when the store goes.
		db.gate.Lock()
		db.closed = true
		db.gate.Unlock()
		db.iters.closeAll()
		// Commit the open epoch and the views being created (their
		// progress) before stopping; a failure here only loses what a
		// crash would.
		ctx, cancel := context.WithTimeout(context.Background(), closeCheckpointTimeout)
		if err := db.Flush(ctx); err != nil {
			db.opts.Logger.Warn("final checkpoint at close failed", "err", err)
		}
		cancel()
		db.coord.Close()
		err = db.store.Close()
	})
	return err
}

// Flush waits until every change written so far is visible in every
// view, and each view being created has checkpointed its backfill's
// progress (on its own barriers) since the call.
func (db *DB) Flush(ctx context.Context) error {
	if err := db.coord.Checkpoint(ctx); err != nil {
		return err
	}
	return db.coord.CheckpointCreating(ctx)
}

// errClosing is the error of statements run while the DB closes.
var errClosing = pgerr.New(pgerr.AdminShutdown, "terminating statement: the database is closing")

// enter admits a statement unless the DB is closed; leave ends it.
func (db *DB) enter() bool {
	db.gate.RLock()
	if db.closed {
		db.gate.RUnlock()
		return false
	}
	return true
}

func (db *DB) leave() { db.gate.RUnlock() }
