//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The kafka scenario (issue 23) measures the Kafka connectors against an
// in-process Kafka cluster (franz-go's kfake, one broker, topics of
// kafkaPartitions partitions), so it needs no broker installed. Each of
// its steps runs on a fresh streamdb and a fresh cluster (kafkaTarget),
// which the step's end closes: the database first, so no source or sink
// is left retrying a cluster that has gone.
//
// kafka/ingest produces KafkaRows small JSON messages
// ({"id": i, "k": i % 1000, "v": "r<i>"}) round-robin over the
// partitions before any source exists, so what is timed is ingest, not
// produce. Then, one after another on the same database:
//
//   - kafka/ingest/copy-table: COPY of the same rows (CSV, generated as
//     COPY reads them) into a plain table, then FLUSH; the baseline;
//   - kafka/ingest/table: a Kafka table (FORMAT PLAIN ENCODE JSON,
//     scan.startup.mode = 'earliest') created held (source_rate_limit =
//     0), then let go: timed from the ALTER that lets it go until the
//     source has emitted every message and a FLUSH has committed them;
//   - kafka/ingest/copy-view and kafka/ingest/view: the same with a
//     GROUP BY k view (1000 groups) created over the empty table first,
//     so the view follows the load rather than backfilling;
//   - kafka/ingest/upsert: a FORMAT UPSERT table keyed by the message
//     key (INCLUDE key) over a second topic of upsertMessages messages
//     of which one in ten is a tombstone deleting a key produced before.
//
// Every step then checks the table's row count (and the view's sum of
// counts) against what was produced. The compared column of a Kafka row
// is its rows per second over its COPY baseline's (upsert: over
// copy-table's). The held source's reader may fetch its first batches
// before it is let go (its channel is bounded, a few batches): a small
// head start next to a million rows.
//
// kafka/latency is in kafka_latency.go.

// kafkaPartitions is the partition count of every topic the scenario
// creates, as issue 23 asks.
const kafkaPartitions = 4

// kafkaStep is one step of the kafka scenario: its name (kafka/NAME), the
// topics its cluster is created with, and what it runs.
type kafkaStep struct {
	name   string
	topics []string
	run    func(*session) ([]Result, error)
}

var kafkaSteps = []kafkaStep{
	{"ingest", []string{"ingest_plain", "ingest_upsert"}, (*session).kafkaIngest},
	{"latency", []string{"lat_alo", "lat_eo", "k2k_in", "k2k_out"}, (*session).kafkaLatency},
}

// KafkaSteps are the kafka scenario's steps, in the order they run
// (kafka/STEP runs one).
var KafkaSteps = func() []string {
	var names []string
	for _, st := range kafkaSteps {
		names = append(names, st.name)
	}
	return names
}()

// kafkaTarget is streamdb (as streamdbTarget) next to a kfake cluster
// started for the step, with the step's topics.
type kafkaTarget struct {
	streamdbTarget
	topics  []string
	cluster *kfake.Cluster
	addr    string // the broker's host:port
}

func (t *kafkaTarget) open(ctx context.Context) (*pgx.Conn, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(kafkaPartitions, t.topics...))
	if err != nil {
		return nil, fmt.Errorf("starting kfake: %w", err)
	}
	t.cluster, t.addr = c, c.ListenAddrs()[0]
	conn, err := t.streamdbTarget.open(ctx)
	if err != nil {
		// runStep closes only what opened.
		return nil, errors.Join(err, t.close())
	}
	return conn, nil
}

// close closes the database, then the cluster its sources and sinks
// talked to.
func (t *kafkaTarget) close() error {
	err := t.streamdbTarget.close()
	if t.cluster != nil {
		t.cluster.Close()
		t.cluster = nil
	}
	return err
}

// with is the WITH options naming topic on the step's cluster, and
// extra ones.
func (t *kafkaTarget) with(topic, extra string) string {
	return fmt.Sprintf("connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s'%s", topic, t.addr, extra)
}

// producer returns a client that produces to the partition each record
// names, without lingering.
func (t *kafkaTarget) producer() (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(t.addr), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
}

// produceAll produces the records next returns until it returns nil,
// asynchronously (kgo bounds what it buffers), and waits for all of
// them to be acknowledged.
func produceAll(ctx context.Context, cl *kgo.Client, next func() *kgo.Record) error {
	var failed atomic.Pointer[error]
	for r := next(); r != nil; r = next() {
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	if p := failed.Load(); p != nil {
		return fmt.Errorf("produce: %w", *p)
	}
	return nil
}

// upsertMessages is how many messages kafka/ingest/upsert loads when
// the others load n: a quarter, as its rate (each change reads the row
// of its key first) is a fifth of a PLAIN table's, and the same at a
// quarter of the size as at the whole.
func upsertMessages(n int64) int64 { return max(10, n/4) }

// printKafkaNote explains the kafka scenario's rows when results have
// any.
func printKafkaNote(w io.Writer, results []Result) error {
	for _, r := range results {
		if strings.HasPrefix(r.Scenario, "kafka/") {
			_, err := fmt.Fprintln(w, "kafka: ingest rows compare their rows/s with COPY's of the same rows (CSV); latency rows are\n"+
				"writes at a steady rate (rows/s: the rate reached), p50/p99 from a write's return to a consumer\n"+
				"receiving the sink's message, the last column the max and the same from the write's start")
			return err
		}
	}
	return nil
}

// ingestValue appends message i of kafka/ingest: the JSON of row (i,
// i % 1000, "r<i>").
func ingestValue(buf []byte, i int64) []byte {
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendInt(buf, i, 10)
	buf = append(buf, `,"k":`...)
	buf = strconv.AppendInt(buf, i%1000, 10)
	buf = append(buf, `,"v":"r`...)
	buf = strconv.AppendInt(buf, i, 10)
	return append(buf, `"}`...)
}

// produceIngest produces rows 1..n of kafka/ingest to topic, row i to
// partition i % kafkaPartitions.
func produceIngest(ctx context.Context, cl *kgo.Client, topic string, n int64) error {
	i := int64(0)
	return produceAll(ctx, cl, func() *kgo.Record {
		if i++; i > n {
			return nil
		}
		return &kgo.Record{Topic: topic, Partition: int32(i % kafkaPartitions), Value: ingestValue(nil, i)}
	})
}

// produceUpsert produces n messages to topic keyed "k<j>": message i is
// a tombstone of key i-9 when i % 10 == 0, else the value of key i
// (row i), each key's messages in one partition. It returns the keys
// left.
func produceUpsert(ctx context.Context, cl *kgo.Client, topic string, n int64) (int64, error) {
	i, left := int64(0), int64(0)
	err := produceAll(ctx, cl, func() *kgo.Record {
		if i++; i > n {
			return nil
		}
		key := i
		var value []byte
		if i%10 == 0 {
			key, left = i-9, left-1
		} else {
			value, left = ingestValue(nil, i), left+1
		}
		return &kgo.Record{Topic: topic, Partition: int32(key % kafkaPartitions),
			Key: strconv.AppendInt([]byte("k"), key, 10), Value: value}
	})
	return left, err
}

// ingestCSV is the COPY CSV data of rows 1..n of kafka/ingest,
// generated as it is read.
type ingestCSV struct {
	n, i int64
	buf  []byte
	off  int
}

func (d *ingestCSV) Read(p []byte) (int, error) {
	if d.off == len(d.buf) {
		d.buf, d.off = d.buf[:0], 0
		for len(d.buf) < 32<<10 && d.i < d.n {
			d.i++
			d.buf = strconv.AppendInt(d.buf, d.i, 10)
			d.buf = append(d.buf, ',')
			d.buf = strconv.AppendInt(d.buf, d.i%1000, 10)
			d.buf = append(d.buf, ",r"...)
			d.buf = strconv.AppendInt(d.buf, d.i, 10)
			d.buf = append(d.buf, '\n')
		}
		if len(d.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, d.buf[d.off:])
	d.off += n
	return n, nil
}

const (
	ingestColumns = "(id bigint, k int, v text)"
	ingestView    = "CREATE MATERIALIZED VIEW %s_k AS SELECT k, count(*) AS n FROM %[1]s GROUP BY k"
)

// kafkaIngest is kafka/ingest.
func (s *session) kafkaIngest() ([]Result, error) {
	kt := s.t.(*kafkaTarget)
	n := s.cfg.KafkaRows
	prod, err := kt.producer()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	err = produceIngest(s.ctx, prod, "ingest_plain", n)
	var upsertRows int64
	if err == nil {
		upsertRows, err = produceUpsert(s.ctx, prod, "ingest_upsert", upsertMessages(n))
	}
	prod.Close()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(s.cfg.Log, "kafka/ingest: produced %d + %d messages in %v\n", n, upsertMessages(n), time.Since(start).Round(time.Millisecond))
	copyTable := 0
	// Step results are indices into s.out, which grows.
	for _, view := range []bool{false, true} {
		suffix := "table"
		if view {
			suffix = "view"
		}
		base, err := s.ingestStep("copy-"+suffix, view, n, n, s.copyIngest)
		if err != nil {
			return s.out, err
		}
		i, err := s.ingestStep(suffix, view, n, n, s.kafkaSource(kt, "ingest_plain", false, n))
		if err != nil {
			return s.out, err
		}
		s.out[i].Note = rateNote(s.out[i], s.out[base])
		s.out[base].Note = rateNote(s.out[base], s.out[base])
		if !view {
			copyTable = base
		}
	}
	i, err := s.ingestStep("upsert", false, upsertMessages(n), upsertRows, s.kafkaSource(kt, "ingest_upsert", true, upsertMessages(n)))
	if err != nil {
		return s.out, err
	}
	s.out[i].Note = rateNote(s.out[i], s.out[copyTable])
	return s.out, nil
}

// rateNote is r's rows per second over base's.
func rateNote(r, base Result) string {
	rate := func(x Result) float64 { return float64(x.Rows) / x.Elapsed.Seconds() }
	return fmt.Sprintf("rows/s of %s %.2fx", strings.TrimPrefix(base.Scenario, "kafka/ingest/"), rate(r)/rate(base))
}

// ingestLoad is one way of loading a kafka/ingest table: create makes
// the table (and runs before the view is created), load fills it and
// returns once every row is committed.
type ingestLoad func(table string) (create, load func() error)

// ingestStep creates table "i_<name>" (and its view), times its load
// of n messages as kafka/ingest/NAME, checks it holds want rows (the
// view their count), and drops them. It returns the index of the step's
// result in s.out.
func (s *session) ingestStep(name string, view bool, n, want int64, how ingestLoad) (int, error) {
	table := "i_" + strings.ReplaceAll(name, "-", "_")
	create, load := how(table)
	if err := create(); err != nil {
		return 0, err
	}
	if view {
		if err := s.exec(fmt.Sprintf(ingestView, table)); err != nil {
			return 0, err
		}
	}
	if err := s.timed("kafka/ingest/"+name, n, load); err != nil {
		return 0, err
	}
	i := len(s.out) - 1
	if err := s.checkIngest(table, view, want); err != nil {
		s.out[i].Err = err
		return 0, err
	}
	if view {
		if err := s.exec(fmt.Sprintf("DROP MATERIALIZED VIEW %s_k", table)); err != nil {
			return 0, err
		}
	}
	return i, s.exec("DROP TABLE " + table)
}

// checkIngest checks that table holds want rows and its view (when
// there is one) counts them.
func (s *session) checkIngest(table string, view bool, want int64) error {
	var got, counted int64
	if err := s.c.QueryRow(s.ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
		return fmt.Errorf("counting %s: %w", table, err)
	}
	if got != want {
		return fmt.Errorf("%s holds %d rows, want %d", table, got, want)
	}
	if !view {
		return nil
	}
	if err := s.c.QueryRow(s.ctx, fmt.Sprintf("SELECT coalesce(sum(n), 0)::bigint FROM %s_k", table)).Scan(&counted); err != nil {
		return fmt.Errorf("reading %s_k: %w", table, err)
	}
	if counted != want {
		return fmt.Errorf("%s_k counts %d rows, want %d", table, counted, want)
	}
	return nil
}

// copyIngest loads the rows by COPY FROM STDIN (FORMAT csv), then
// FLUSHes, so a view over the table has them too.
func (s *session) copyIngest(table string) (create, load func() error) {
	n := s.cfg.KafkaRows
	create = func() error { return s.exec("CREATE TABLE " + table + " " + ingestColumns) }
	load = func() error {
		tag, err := s.c.PgConn().CopyFrom(s.ctx, &ingestCSV{n: n}, "COPY "+table+" FROM STDIN (FORMAT csv)")
		if err != nil {
			return err
		}
		if tag.RowsAffected() != n {
			return fmt.Errorf("COPY loaded %d rows, want %d", tag.RowsAffected(), n)
		}
		return s.exec("FLUSH")
	}
	return create, load
}

// kafkaSource loads the rows from topic's n messages (FORMAT UPSERT
// keyed by the message key when upsert): the table is created held and
// let go by load, which returns once the source has emitted a change per
// message and a FLUSH has committed them.
func (s *session) kafkaSource(kt *kafkaTarget, topic string, upsert bool, n int64) ingestLoad {
	return func(table string) (create, load func() error) {
		with := kt.with(topic, ", scan.startup.mode = 'earliest', source_rate_limit = 0")
		ddl := fmt.Sprintf("CREATE TABLE %s %s WITH (%s) FORMAT PLAIN ENCODE JSON", table, ingestColumns, with)
		if upsert {
			ddl = fmt.Sprintf("CREATE TABLE %s (id bigint, k int, v text, PRIMARY KEY (kk)) INCLUDE key AS kk WITH (%s) FORMAT UPSERT ENCODE JSON", table, with)
		}
		create = func() error { return s.exec(ddl) }
		load = func() error {
			if err := s.exec("ALTER TABLE " + table + " SET SOURCE_RATE_LIMIT = DEFAULT"); err != nil {
				return err
			}
			if err := s.waitEmitted(table, n); err != nil {
				return err
			}
			return s.exec("FLUSH")
		}
		return create, load
	}
}

// waitEmitted waits until source has emitted n changes (its
// rows_generated in streamdb_catalog.sources), polling every
// millisecond or so, or fails after a minute without progress.
func (s *session) waitEmitted(source string, n int64) error {
	const q = "SELECT coalesce(rows_generated, 0), coalesce(skipped, 0) FROM streamdb_catalog.sources WHERE name = $1"
	var last int64
	moved := time.Now()
	for {
		var got, skipped int64
		if err := s.c.QueryRow(s.ctx, q, source).Scan(&got, &skipped); err != nil {
			return fmt.Errorf("reading the progress of %s: %w", source, err)
		}
		switch {
		case skipped > 0:
			return fmt.Errorf("%s skipped %d messages", source, skipped)
		case got >= n:
			return nil
		case got != last:
			last, moved = got, time.Now()
		case time.Since(moved) > time.Minute:
			return fmt.Errorf("%s emitted %d of %d messages, then nothing for a minute", source, got, n)
		}
		select {
		case <-s.ctx.Done():
			return s.ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}
