package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// CreateSink creates a sink (CREATE SINK name FROM relation | AS query
// WITH (connector = 'kafka', ...) FORMAT f ENCODE e): the changes of
// Query, delivered to the connector. Definition is the query's text
// (SELECT * FROM the relation for FROM); With holds the connector's
// options with the FORMAT and ENCODE words (kafka.OptFormat,
// kafka.OptEncode).
type CreateSink struct {
	Name        string
	IfNotExists bool
	Query       *Query
	Definition  string
	With        map[string]string
	// SearchPath and TimeZone are the session's, which Definition binds
	// with when the job is rebuilt (as a view's).
	SearchPath []string
	TimeZone   string
}

// SinkMonitorEnv is what BuildSinkJob asks of its StreamEnv, when it has
// it: where the sink's actor reports its delivery's state and the
// messages it sent (SHOW SINKS).
type SinkMonitorEnv interface {
	SinkMonitor(rel uint32, state func() string, sent func() int64)
}

// AppendOnlyPlan reports whether a plan's stream holds inserts only (see
// appendOnlyThrough), looking into the plans of the materialized views it
// scans through view: a PLAIN sink needs one, or force_append_only.
func AppendOnlyPlan(n Node, view func(*catalog.Relation) (Node, bool)) bool {
	return appendOnlyThrough(n, view)
}

// BuildSinkJob builds the actors of sink rel, of the given shape: the
// view job's fragments (with the same backfill, progress, pause and rate
// limits as a view's) topped by one actor that logs the changes for
// delivery (stream.SinkLog) instead of a Materialize. mode says whether
// the scans backfill: a new sink first delivers its input's current rows.
func BuildSinkJob(rel *catalog.Relation, shape *ViewShape, env StreamEnv, mode ScanMode) (*StreamJob, error) {
	writer, desc, err := newSinkWriter(rel)
	if err != nil {
		return nil, err
	}
	par := max(rel.Parallelism, 1)
	b := &jobBuilder{env: env, mode: mode, rate: rel.BackfillRateLimit, paused: rel.BackfillHeld(),
		closeWindows: rel.CloseWindows, jobID: rel.ID, par: par, scans: NumScans(shape.Plan) * par, job: &StreamJob{}}
	if n := int64(b.scans); n > 1 && b.rate > 0 {
		b.rate = max(1, b.rate/n)
	}
	b.reads = scanReads(shape.Plan)
	f, err := b.build(shape.Plan)
	if err != nil {
		return nil, err
	}
	if len(f.actors) > 1 {
		// The log's seqs order every change: one actor writes it.
		to := b.newFragment("sink", 1)
		recvs, err := exchange(f, to, nil)
		if err != nil {
			return nil, err
		}
		typ := f.types()
		to.execs[0] = stream.NewMerge(typ, recvs[0]...)
		f = to
	}
	tables := stream.NewSinkTables(b.stateTableIDs(stream.NumSinkTables), f.types())
	f.ops = append(f.ops, fmt.Sprintf("Sink %s (%s)", rel.Name, desc))
	f.mapExecs(func(i int, in stream.Executor) stream.Executor {
		s := stream.NewSinkLog(in, f.actors[i].State, tables, writer)
		f.actors[i].Closers = append(f.actors[i].Closers, s.Close)
		if me, ok := env.(SinkMonitorEnv); ok {
			me.SinkMonitor(rel.ID, s.State, s.Sent)
		}
		return s
	})
	f.finish()
	b.job.Tops, b.job.TopVnodes = f.actors, slices.Clone(f.vnodes)
	if cj := b.job.Creating; cj != nil {
		cj.Actors, b.job.Actors = b.job.Actors, slices.Clone(cj.Writers)
	}
	for _, fr := range b.frags {
		b.job.Fragments = append(b.job.Fragments, fr.describe())
	}
	return b.job, nil
}

// newSinkWriter returns the writer of sink rel's connector and its
// description for EXPLAIN.
func newSinkWriter(rel *catalog.Relation) (stream.SinkWriter, string, error) {
	if connector.IsBlackhole(rel.Connector) {
		if _, err := connector.ParseBlackholeOptions(rel.Connector); err != nil {
			return nil, "", err
		}
		return blackholeWriter{}, "blackhole", nil
	}
	opts, err := kafka.ParseSinkOptions(rel.Connector)
	if err != nil {
		return nil, "", err
	}
	cols, key, err := SinkColumns(rel, opts)
	if err != nil {
		return nil, "", err
	}
	desc := fmt.Sprintf("kafka topic %s, %s", opts.Topic, strings.ToUpper(opts.Format))
	return &sinkWriter{w: kafka.NewSinkWriter(opts, cols, key)}, desc, nil
}

// blackholeWriter delivers a blackhole sink's changes: it drops them,
// counting each as a message sent.
type blackholeWriter struct{}

func (blackholeWriter) Open(context.Context) (int64, bool, error) { return 0, false, nil }

func (blackholeWriter) Write(_ context.Context, b *stream.SinkBatch) (int, error) {
	return len(b.Changes), nil
}

func (blackholeWriter) Close() {}

// SinkColumns returns the columns of sink rel's messages (its visible
// columns) and its key: primary_key's columns, else the input's stream
// key when every column of it is visible. UPSERT and DEBEZIUM need a
// key (22023 naming primary_key without one); PLAIN is keyed only when
// primary_key is given.
func SinkColumns(rel *catalog.Relation, o kafka.SinkOptions) (cols, key []kafka.SinkColumn, err error) {
	byName := map[string]kafka.SinkColumn{}
	for i, c := range rel.Columns {
		if c.Hidden {
			continue
		}
		sc := kafka.SinkColumn{Name: c.Name, Type: c.Type, Index: i}
		cols = append(cols, sc)
		byName[strings.ToLower(c.Name)] = sc
	}
	for _, name := range o.PrimaryKey {
		c, ok := byName[name]
		if !ok {
			e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for connector option %q: column %q is not a column of the sink", kafka.OptPrimaryKey, name)
			e.Hint = "primary_key lists columns of the sink's input, separated by commas."
			return nil, nil, e
		}
		key = append(key, c)
	}
	if len(key) > 0 || o.Format == kafka.SinkPlain {
		return cols, key, nil
	}
	for _, k := range rel.PK {
		if rel.Columns[k].Hidden {
			e := pgerr.New(pgerr.InvalidParameterValue, "FORMAT %s needs connector option %q: the input's key is not among its columns",
				strings.ToUpper(o.Format), kafka.OptPrimaryKey)
			e.Hint = "Give primary_key = 'col, ...' naming the columns that identify a row."
			return nil, nil, e
		}
		key = append(key, byName[strings.ToLower(rel.Columns[k].Name)])
	}
	if len(key) == 0 {
		return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "FORMAT %s needs connector option %q", strings.ToUpper(o.Format), kafka.OptPrimaryKey)
	}
	return cols, key, nil
}

// sinkWriter adapts the Kafka sink's writer to stream.SinkWriter.
type sinkWriter struct{ w *kafka.SinkWriter }

func (s *sinkWriter) Open(ctx context.Context) (int64, bool, error) { return s.w.Open(ctx) }

func (s *sinkWriter) Write(ctx context.Context, b *stream.SinkBatch) (int, error) {
	return s.w.Write(ctx, b.Seq, len(b.Changes), func(i int) (chunk.Op, []types.Datum) {
		return b.Changes[i].Op, b.Changes[i].Row
	})
}

func (s *sinkWriter) Close() { s.w.Close() }
