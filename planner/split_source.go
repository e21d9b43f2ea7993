package planner

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
)

// SourceMonitor is where a relation whose connector reads splits (Kafka)
// reports: the malformed messages it skips, their count, and its
// reader's state.
type SourceMonitor struct {
	Errors  stream.SplitErrorLog
	Skipped *atomic.Int64
	// SetState, when set, is given the function that reports the
	// reader's state (connected, retrying a broker).
	SetState func(state func() string)
}

// SourceMonitorEnv is what BuildTableJob asks of its StreamEnv, when it
// has it, for a relation whose connector reads splits.
type SourceMonitorEnv interface {
	SourceMonitor(rel uint32) SourceMonitor
}

// sourceExec builds the executor of r's connector: a SplitSource for one
// that reads splits (Kafka), else a ConnectorSource over its generator.
// closer, when not nil, is for the actor to run when it exits.
func sourceExec(r *catalog.Relation, in *stream.Receiver, sc *stream.StateContext, env StreamEnv) (stream.Executor, *atomic.Int64, func(), error) {
	if !kafka.IsKafka(r.Connector) {
		cs, progress, err := connectorSource(r, in, sc)
		return cs, progress, nil, err
	}
	progress := new(atomic.Int64)
	mon := sourceMonitor(r, env)
	ss, state, err := splitSource(r, in, sc, connector.SplitOwner{}, stream.NewSplitTotals(1, progress, mon.Skipped), mon)
	if err != nil {
		return nil, nil, nil, err
	}
	if mon.SetState != nil {
		mon.SetState(state)
	}
	return ss, progress, ss.Close, nil
}

// sourceMonitor returns where r's source reports, if its env has one.
func sourceMonitor(r *catalog.Relation, env StreamEnv) SourceMonitor {
	if me, ok := env.(SourceMonitorEnv); ok {
		return me.SourceMonitor(r.ID)
	}
	return SourceMonitor{}
}

// splitSource builds the SplitSource of one actor of r's source
// fragment, reading the splits owner gives it, and returns it with the
// function that tells its reader's state.
func splitSource(r *catalog.Relation, in *stream.Receiver, sc *stream.StateContext, owner connector.SplitOwner,
	totals *stream.SplitTotals, mon SourceMonitor) (*stream.SplitSource, func() string, error) {
	if len(r.Internal) == 0 {
		return nil, nil, fmt.Errorf("planner: %s %q has a connector but no state table", r.Kind, r.Name)
	}
	opts, err := kafka.ParseOptions(r.Connector)
	if err != nil {
		return nil, nil, err
	}
	cols, rowID := connectorColumns(r)
	reader, err := kafka.NewReader(opts, cols)
	if err != nil {
		return nil, nil, err
	}
	reader.Own(owner)
	reader.SetKey(r.PK)
	so := stream.SplitSourceOptions{Job: r.ID, State: r.Internal[0], RowID: rowID,
		RateLimit: r.SourceRateLimit, Paused: r.SourceHeld(), Totals: totals, Owner: owner, Errors: mon.Errors}
	so.ErrorState, _ = SplitErrorState(r)
	return stream.NewSplitSource(in, reader, sc, r.ColumnTypes(), so), reader.State, nil
}

// connectorColumns are the columns r's connector fills (all but the
// hidden row id), and the index of the row id column (-1: none).
func connectorColumns(r *catalog.Relation) ([]connector.Column, int) {
	var cols []connector.Column
	rowID := -1
	for i, c := range r.Columns {
		if r.RowID && i == r.PK[0] {
			rowID = i
			continue
		}
		cols = append(cols, connector.Column{Name: c.Name, Type: c.Type})
	}
	return cols, rowID
}

// keyedBySplitOffset reports whether r's rows are keyed by where each
// message is in its split (a Kafka table without a primary key: its
// hidden row id is stream.SplitRowID). Read exactly once, they are
// consistent with the table by construction, as a view's input is: its
// materialization need not read the table before each write (and checks
// it does not contradict it under the invariants build tag).
func keyedBySplitOffset(r *catalog.Relation) bool {
	return r.RowID && kafka.IsKafka(r.Connector)
}

// deletesByKey reports whether r's connector deletes rows by their
// primary key alone (a Kafka FORMAT UPSERT table's tombstones, FORMAT DEBEZIUM's deletes): its
// materialization must emit the row it deletes (stream.Materialize's
// KeyedDeletes).
func deletesByKey(r *catalog.Relation) bool {
	return kafka.IsUpsert(r.Connector) || kafka.IsDebezium(r.Connector)
}

// SplitErrorState returns the id of the state table where r's source
// keeps the malformed messages it skipped (stream.SplitErrorTable): its
// second internal table; ok is false for a relation created before
// they were kept (given one at Open since, engine.giveErrorTables), and
// for a Kafka sink, whose internal tables are its own.
func SplitErrorState(r *catalog.Relation) (id uint32, ok bool) {
	if !kafka.IsKafka(r.Connector) || len(r.Internal) < 2 || (r.Kind != catalog.KindTable && r.Kind != catalog.KindSource) {
		return 0, false
	}
	return r.Internal[1], true
}

// sourceBackfill returns, for a view's scan of up, how its backfill reads
// the messages up's source emitted before the view (exec/stream's
// split_backfill.go): for a Kafka SOURCE keyed by its hidden row id,
// which stores no rows. nil for any other relation, whose rows are
// stored, and for a source with a WATERMARK, whose late messages its
// watermark filter dropped (a view over one sees only the messages read
// after it exists, as before).
func sourceBackfill(up *catalog.Relation) (*stream.SplitBackfill, error) {
	if up.Kind != catalog.KindSource || !kafka.IsKafka(up.Connector) || SourceNotBackfilled(up) != "" {
		return nil, nil
	}
	opts, err := kafka.ParseOptions(up.Connector)
	if err != nil {
		return nil, err
	}
	cols, _ := connectorColumns(up)
	sb := &stream.SplitBackfill{State: up.Internal[0],
		NewReader: func(split int32, until int64) (stream.BoundedSplitReader, error) {
			return kafka.NewBackfillReader(opts, cols, map[int32]int64{split: until})
		},
		Lost: func(err error) bool {
			var lost *kafka.LostError
			return errors.As(err, &lost)
		},
		Starts: func(split int32) (int64, bool) {
			o, ok := opts.StartOffsets[split]
			return o, ok
		}}
	sb.Errors, _ = SplitErrorState(up)
	return sb, nil
}

// SourceNotBackfilled says why a view created over up, a Kafka SOURCE,
// will see only the messages up reads from then on, not those it read
// before (sourceBackfill): "" when it sees them, or up is no Kafka
// SOURCE. CREATE MATERIALIZED VIEW says so in a NOTICE.
func SourceNotBackfilled(up *catalog.Relation) string {
	if up.Kind != catalog.KindSource || !kafka.IsKafka(up.Connector) {
		return ""
	}
	switch {
	case up.Watermark != nil:
		// Its watermark filter dropped late messages as it read them;
		// a backfill would have to drop the same ones and hold the
		// watermark downstream until it ends.
		return "it has a WATERMARK"
	case !up.RowID:
		return "it has a PRIMARY KEY" // its rows are not keyed by (partition, offset)
	case len(up.Internal) == 0:
		return "it keeps no offsets"
	}
	return ""
}
