package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/planner"
)

// maxSourceErrors bounds the malformed messages the engine lists in
// memory, for sources created before each kept them in a state table
// (stream.SplitErrorTable): the oldest go first.
const maxSourceErrors = 1000

// kafkaResolveTimeout bounds the metadata and offset requests of a CREATE
// over a Kafka topic.
const kafkaResolveTimeout = 10 * time.Second

// resolveConnector checks a connector that reads an external system when
// its relation is created, and returns its options with what it
// resolved: for Kafka, that the topic exists (42704 otherwise), and each
// partition's first offset under the startup mode, recorded so that a
// partition with nothing committed yet starts at the same offset after
// any restart. Other connectors' options are returned as they are.
func resolveConnector(ctx context.Context, conn map[string]string) (map[string]string, error) {
	if conn == nil || !kafka.IsKafka(conn) {
		return conn, nil
	}
	o, err := kafka.ParseOptions(conn)
	if err != nil {
		return nil, err
	}
	offsets, err := kafka.Resolve(ctx, o, kafkaResolveTimeout)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(conn)+1)
	for k, v := range conn {
		out[k] = v
	}
	out[kafka.OptStartOffsets] = kafka.FormatStartOffsets(offsets)
	return out, nil
}

// sourceErrorLog keeps what sources that read splits report: per source
// its skipped count and its reader's state (streamdb_catalog.sources),
// and the malformed messages skipped by sources created before each
// kept them durably in a state table of its own (a source's SplitSource
// writes those itself; SourceErrors reads them), each listed once even
// when a recovery reads it again.
type sourceErrorLog struct {
	mu       sync.Mutex
	entries  []sourceErrorEntry
	seen     map[sourceErrorKey]bool
	bySource map[uint32]*sourceStatus
}

type sourceErrorKey struct {
	rel    uint32
	split  int32
	offset int64
}

type sourceErrorEntry struct {
	sourceErrorKey
	err string
	at  time.Time
}

type sourceStatus struct {
	skipped atomic.Int64
	state   atomic.Pointer[func() string]
}

// RecordSourceError implements stream.SplitErrorLog.
func (l *sourceErrorLog) RecordSourceError(rel uint32, split int32, offset int64, err error) {
	key := sourceErrorKey{rel, split, offset}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[sourceErrorKey]bool{}
	}
	if l.seen[key] {
		return
	}
	if len(l.entries) >= maxSourceErrors {
		delete(l.seen, l.entries[0].sourceErrorKey)
		l.entries = append(l.entries[:0], l.entries[1:]...)
	}
	l.seen[key] = true
	l.entries = append(l.entries, sourceErrorEntry{key, err.Error(), time.Now()})
}

// status returns relation rel's status, made on first use.
func (l *sourceErrorLog) status(rel uint32) *sourceStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bySource == nil {
		l.bySource = map[uint32]*sourceStatus{}
	}
	st := l.bySource[rel]
	if st == nil {
		st = &sourceStatus{}
		l.bySource[rel] = st
	}
	return st
}

// forget drops what a dropped relation reported.
func (l *sourceErrorLog) forget(rel uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.bySource, rel)
	kept := l.entries[:0]
	for _, e := range l.entries {
		if e.rel == rel {
			delete(l.seen, e.sourceErrorKey)
			continue
		}
		kept = append(kept, e)
	}
	l.entries = kept
}

// SourceMonitor implements planner.SourceMonitorEnv.
func (e *jobEnv) SourceMonitor(rel uint32) planner.SourceMonitor {
	st := e.db.sourceErrors.status(rel)
	return planner.SourceMonitor{Errors: &e.db.sourceErrors, Skipped: &st.skipped,
		SetState: func(f func() string) { st.state.Store(&f) }}
}

// SourceErrors implements systemcatalog.SourceEngine: the committed rows
// of each source's error table (stream.SplitErrorTable, kept across
// restarts and dropped with the source), and what the sources created
// before those tables existed reported since the database opened.
func (s systemSource) SourceErrors() []systemcatalog.SourceError {
	l := &s.db.sourceErrors
	l.mu.Lock()
	entries := append([]sourceErrorEntry(nil), l.entries...)
	l.mu.Unlock()
	var out []systemcatalog.SourceError
	for _, e := range entries {
		r, ok := s.db.RelationByID(e.rel)
		if !ok {
			continue
		}
		out = append(out, systemcatalog.SourceError{Source: r.Name, Split: e.split, Offset: e.offset, Error: e.err, At: e.at})
	}
	for _, r := range s.db.relationsSorted() {
		out = append(out, s.keptSourceErrors(r)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		if out[i].Split != out[j].Split {
			return out[i].Split < out[j].Split
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// keptSourceErrors returns the committed rows of r's error table, if it
// has one.
func (s systemSource) keptSourceErrors(r *catalog.Relation) []systemcatalog.SourceError {
	id, ok := planner.SplitErrorState(r)
	if !ok {
		return nil
	}
	rows, err := stream.ReadSplitErrors(s.db.store, id)
	if err != nil {
		s.db.opts.Logger.Error("reading a source's malformed messages", "source", r.Name, "err", err)
		return nil
	}
	out := make([]systemcatalog.SourceError, len(rows))
	for i, e := range rows {
		out[i] = systemcatalog.SourceError{Source: r.Name, Split: e.Split, Offset: e.Offset, Error: e.Err, At: e.At}
	}
	return out
}

// SourceStatus implements systemcatalog.SourceEngine.
func (s systemSource) SourceStatus(id uint32) (skipped int64, state string, ok bool) {
	l := &s.db.sourceErrors
	l.mu.Lock()
	st := l.bySource[id]
	l.mu.Unlock()
	if st == nil {
		return 0, "", false
	}
	if f := st.state.Load(); f != nil {
		state = (*f)()
	}
	return st.skipped.Load(), state, true
}
