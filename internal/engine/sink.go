package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// Sinks (CREATE SINK k FROM v | AS query WITH (connector = 'kafka', ...)
// FORMAT PLAIN | UPSERT | DEBEZIUM ENCODE JSON, in RisingWave's syntax;
// or connector = 'blackhole', whose delivery drops the changes)
// are created like materialized views: a creating job backfills the
// input's current rows (SHOW JOBS, ALTER SINK ... PAUSE | RESUME | SET
// BACKFILL_RATE_LIMIT) and then follows its changes; but the job ends in
// a stream.SinkLog, which logs each barrier's changes in Pebble with the
// epoch, and a delivery goroutine owned by that actor sends what has
// committed to Kafka (see exec/stream's SinkTables and sinkDelivery, and
// internal/connector/kafka's SinkWriter). The relation (catalog.KindSink)
// stores no rows; its Definition is its query (SELECT * FROM v for
// FROM), planned again when its job is rebuilt, as a view's.

// createSink records a sink and starts its job; in the foreground it
// returns when the backfill has been logged, as CREATE MATERIALIZED VIEW
// does.
func (db *DB) createSink(ctx context.Context, cs *planner.CreateSink, opts viewOptions, w ResultWriter) error {
	j, err := db.startSink(ctx, cs, opts, w)
	if err != nil {
		return err
	}
	if j == nil { // IF NOT EXISTS found it
		return w.Complete("CREATE SINK")
	}
	if !opts.background {
		if err := db.waitJob(ctx, j, w); err != nil {
			return err
		}
	}
	return w.Complete("CREATE SINK")
}

// sinkCreateTimeout bounds the check at CREATE that the sink's topic
// exists.
const sinkCreateTimeout = 10 * time.Second

func (db *DB) startSink(ctx context.Context, cs *planner.CreateSink, opts viewOptions, w ResultWriter) (*job, error) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	if done, err := db.checkNewName(cs.Name, cs.IfNotExists, w); done || err != nil {
		return nil, err
	}
	with := make(map[string]string, len(cs.With)+1)
	for k, v := range cs.With {
		with[k] = v
	}
	shape, err := planner.PlanView(cs.Query, nil)
	if err != nil {
		return nil, err
	}
	if err := db.checkUpstreamsCreated(shape.Plan); err != nil {
		return nil, err
	}
	newRel := func() (*catalog.Relation, error) {
		id, err := db.allocID()
		if err != nil {
			return nil, err
		}
		rel := &catalog.Relation{ID: id, Name: cs.Name, Kind: catalog.KindSink, State: catalog.StateCreating,
			Columns: shape.Columns, PK: shape.PK, DistKey: shape.PK, Definition: cs.Definition,
			Deps: db.viewDeps(cs.Query, shape.Plan), Connector: with, CloseWindows: true,
			SearchPath: storedPath(cs.SearchPath), TimeZone: cs.TimeZone}
		opts.apply(rel, db.opts.Parallelism)
		return rel, nil
	}
	if connector.IsBlackhole(with) {
		bo, err := connector.ParseBlackholeOptions(with)
		if err != nil {
			return nil, err
		}
		if bo.AppendOnly() && !db.appendOnlyPlan(shape.Plan) {
			return nil, notAppendOnly("Use type = 'upsert', or force_append_only = 'true'.")
		}
		rel, err := newRel()
		if err != nil {
			return nil, err
		}
		return db.launchView(ctx, rel, shape)
	}
	_, own := catalog.SplitName(cs.Name)
	with[kafka.OptSinkName] = own
	ko, err := kafka.ParseSinkOptions(with)
	if err != nil {
		return nil, err
	}
	if ko.Format == kafka.SinkPlain && !ko.ForceAppendOnly && !db.appendOnlyPlan(shape.Plan) {
		return nil, notAppendOnly("Use FORMAT UPSERT or DEBEZIUM, or force_append_only = 'true' to drop deletes and send updates as inserts.")
	}
	if _, err := kafka.Resolve(ctx, ko.SinkSource(), sinkCreateTimeout); err != nil {
		if pe := (*pgerr.Error)(nil); errors.As(err, &pe) && pe.Code == pgerr.UndefinedObject {
			pe.Hint = "Create the topic first: a sink does not create it."
		}
		return nil, err
	}
	rel, err := newRel()
	if err != nil {
		return nil, err
	}
	cols, key, err := planner.SinkColumns(rel, ko)
	if err != nil {
		return nil, err
	}
	if ko.Encode == kafka.EncodeAvro {
		// The schemas are registered once, here, and stored with the
		// sink: its messages name their ids after any restart.
		stored, err := kafka.RegisterAvroSink(ctx, ko, own, cols, key)
		if err != nil {
			return nil, err
		}
		for k, v := range stored {
			with[k] = v
		}
	}
	return db.launchView(ctx, rel, shape)
}

// notAppendOnly is the error of an append-only sink over an input that
// updates or deletes.
func notAppendOnly(hint string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "The sink cannot be append-only: its input has updates or deletes")
	e.Hint = hint
	return e
}

// appendOnlyPlan reports whether plan's stream holds inserts only,
// looking through the materialized views it scans into their own plans.
func (db *DB) appendOnlyPlan(plan planner.Node) bool {
	return planner.AppendOnlyPlan(plan, func(rel *catalog.Relation) (planner.Node, bool) {
		shape, err := db.planStored(rel)
		if err != nil {
			return nil, false
		}
		return shape.Plan, true
	})
}

// buildShapedJob builds the job of rel, a view, index or sink of the
// given shape.
func buildShapedJob(rel *catalog.Relation, shape *planner.ViewShape, env planner.StreamEnv, mode planner.ScanMode) (*planner.StreamJob, error) {
	if rel.Kind == catalog.KindSink {
		return planner.BuildSinkJob(rel, shape, env, mode)
	}
	return planner.BuildViewJob(rel, shape, env, mode)
}

// sinkMonitors holds, by sink, the running actor's delivery state and
// count of messages sent (SinkMonitor registers them at each build of
// the job).
type sinkMonitors struct {
	mu sync.Mutex
	m  map[uint32]sinkMonitor
}

type sinkMonitor struct {
	state func() string
	sent  func() int64
}

// SinkMonitor implements planner.SinkMonitorEnv.
func (e *jobEnv) SinkMonitor(rel uint32, state func() string, sent func() int64) {
	s := &e.db.sinks
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[uint32]sinkMonitor{}
	}
	s.m[rel] = sinkMonitor{state: state, sent: sent}
}

func (s *sinkMonitors) get(rel uint32) (sinkMonitor, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.m[rel]
	return m, ok
}

// Sinks implements systemcatalog.SinkEngine.
func (s systemSource) Sinks() ([]systemcatalog.Sink, error) { return s.db.sinkInfos() }

// sinkInfos lists the sinks, by name, with their delivery's standing
// read from one snapshot.
func (db *DB) sinkInfos() ([]systemcatalog.Sink, error) {
	snap := db.store.Snapshot()
	defer snap.Close()
	var out []systemcatalog.Sink
	for _, r := range db.relationsSorted() {
		if r.Kind != catalog.KindSink {
			continue
		}
		in, err := db.sinkInfo(snap, r)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (db *DB) sinkInfo(snap storage.Reader, r *catalog.Relation) (systemcatalog.Sink, error) {
	in := systemcatalog.Sink{Name: r.Name, From: r.Definition, Connector: "kafka", State: "creating"}
	if len(r.Deps) == 1 && strings.HasPrefix(r.Definition, "SELECT * FROM ") {
		if up, ok := db.RelationByID(r.Deps[0]); ok {
			in.From = up.Name
		}
	}
	if connector.IsBlackhole(r.Connector) {
		o, err := connector.ParseBlackholeOptions(r.Connector)
		if err != nil {
			return in, err
		}
		in.Connector, in.Format = connector.Blackhole, strings.ToUpper(o.Type)
	} else {
		o, err := kafka.ParseSinkOptions(r.Connector)
		if err != nil {
			return in, err
		}
		in.Topic, in.Format, in.ExactlyOnce = o.Topic, strings.ToUpper(o.Format), o.ExactlyOnce
	}
	if n := len(r.Internal); n >= stream.NumSinkTables {
		t := stream.NewSinkTables(r.Internal[n-stream.NumSinkTables:], r.ColumnTypes())
		mark, err := stream.LoadSinkMark(snap, t)
		if err != nil {
			return in, err
		}
		in.Messages, in.LastEpoch = mark.Messages, mark.Epoch
		if in.Pending, err = countRows(snap, t.Batches, mark.Batch); err != nil {
			return in, err
		}
	}
	if m, ok := db.sinks.get(r.ID); ok && r.State == catalog.StateCreated {
		in.State = m.state()
	}
	return in, nil
}

// countRows counts the rows of t whose first key column is above after.
func countRows(r storage.Reader, t *storage.Table, after int64) (int64, error) {
	it := t.ScanRange(r, storage.KeyRange{Lower: &storage.KeyBound{Value: after}})
	var n int64
	for it.Next() {
		n++
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// showSinks answers SHOW SINKS.
func (db *DB) showSinks(w ResultWriter) error {
	cols := []Column{{Name: "Name", Type: types.TText}, {Name: "From", Type: types.TText},
		{Name: "Connector", Type: types.TText}, {Name: "Topic", Type: types.TText}, {Name: "Format", Type: types.TText},
		{Name: "State", Type: types.TText}, {Name: "Messages sent", Type: types.TInt64},
		{Name: "Last delivered epoch", Type: types.TInt64}}
	if err := w.Columns(cols); err != nil {
		return err
	}
	infos, err := db.sinkInfos()
	if err != nil {
		return err
	}
	for _, in := range infos {
		format := in.Format
		if in.ExactlyOnce {
			format += " (exactly once)"
		}
		if err := w.Row([]types.Datum{in.Name, in.From, in.Connector, in.Topic, format, in.State, in.Messages,
			optEpoch(in.LastEpoch)}); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(infos)))
}
