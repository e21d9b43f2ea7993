//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafka/latency measures end to end, from a write to a Kafka consumer
// receiving the message a sink made of it, one message at a time at a
// steady KafkaRate per second for KafkaWindow:
//
//   - kafka/latency/at-least-once: single-row INSERTs into a table
//     (through kafkaSenders connections, so the rate holds while an
//     INSERT takes longer than its interval) → a projection view → CREATE SINK ... FORMAT UPSERT
//     ENCODE JSON → a kgo consumer of the sink's topic;
//   - kafka/latency/exactly-once: the same with is_exactly_once =
//     'true' (a Kafka transaction per batch) and a read_committed
//     consumer;
//   - kafka/latency/kafka-to-kafka: a kgo producer (ProduceSync of one
//     record, kafkaSenders at a time at most) → a Kafka table → a projection view → an UPSERT
//     sink → the consumer: the whole Kafka-to-Kafka path.
//
// p50 and p99 are from the write's return (the INSERT's, the produce's
// acknowledgement) to the consumer's PollFetches returning the message
// (0 when the message got there first); the compared column adds the
// maximum, and the same three from the write's start. Rows are the
// writes sent, seconds the window: their rows/s is the rate reached
// (below KafkaRate when a write takes longer than 1/KafkaRate). A step
// fails unless every write reaches the consumer within a minute after
// the window. The database runs with its default barrier interval: a
// source's rows commit at the next barrier, a DML statement's when it
// returns.

// latencyConsumer reads a topic from its start on a goroutine it owns,
// noting when the first message of each id arrived; stop ends it.
type latencyConsumer struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	arrived map[int64]time.Time
	err     error // a message it could not read; ends it
}

func startLatencyConsumer(ctx context.Context, addr, topic string, readCommitted bool) (*latencyConsumer, error) {
	// A short fetch wait: the in-process cluster does not always answer
	// a waiting fetch when a message arrives (seen with a 20 ms barrier
	// interval: a p99 of the one-second wait, gone with 100 ms), and the
	// consumer is the yardstick, not what is measured.
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}
	if readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &latencyConsumer{cl: cl, cancel: cancel, done: make(chan struct{}), arrived: map[int64]time.Time{}}
	go c.run(ctx)
	return c, nil
}

// run polls until ctx ends or a message does not parse. kgo retries
// fetch errors itself; those PollFetches reports are transient.
func (c *latencyConsumer) run(ctx context.Context) {
	defer close(c.done)
	for ctx.Err() == nil {
		fs := c.cl.PollFetches(ctx)
		now := time.Now()
		var err error
		fs.EachRecord(func(r *kgo.Record) {
			id, perr := sinkMessageID(r)
			if perr != nil {
				err = perr
				return
			}
			c.mu.Lock()
			if _, ok := c.arrived[id]; !ok {
				c.arrived[id] = now
			}
			c.mu.Unlock()
		})
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
	}
}

// sinkMessageID reads the id of an UPSERT sink's message: its key is
// {"id": N}.
func sinkMessageID(r *kgo.Record) (int64, error) {
	var k struct {
		ID *int64 `json:"id"`
	}
	if err := json.Unmarshal(r.Key, &k); err != nil || k.ID == nil || r.Value == nil {
		return 0, fmt.Errorf("a sink message that is not an upsert of an id: %q = %q (%v)", r.Key, r.Value, err)
	}
	return *k.ID, nil
}

// wait waits until ids first+1..first+n have all arrived, or fails after
// a minute. (The consumer may hold other ids too: those a sink's
// backfill sent.)
func (c *latencyConsumer) wait(ctx context.Context, first, n int64) error {
	deadline := time.Now().Add(time.Minute)
	next := first + 1 // the lowest id not seen yet
	for {
		c.mu.Lock()
		for _, ok := c.arrived[next]; ok && next <= first+n; _, ok = c.arrived[next] {
			next++
		}
		err := c.err
		c.mu.Unlock()
		switch {
		case err != nil:
			return err
		case next > first+n:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("no message of id %d (of ids %d..%d) reached the consumer within a minute", next, first+1, first+n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// stop ends the consumer's goroutine, waits for it and closes the
// client.
func (c *latencyConsumer) stop() {
	c.cancel()
	<-c.done
	c.cl.Close()
}

// kafkaLatency is kafka/latency.
func (s *session) kafkaLatency() ([]Result, error) {
	kt := s.t.(*kafkaTarget)
	for _, q := range []string{
		"CREATE TABLE lat (id bigint PRIMARY KEY, v int)",
		"CREATE MATERIALIZED VIEW lat_v AS SELECT id, v + 1 AS w FROM lat",
	} {
		if err := s.exec(q); err != nil {
			return s.out, err
		}
	}
	// The INSERTs go through kafkaSenders connections: s.c and more.
	conns := []*pgx.Conn{s.c}
	defer func() {
		for _, c := range conns[1:] {
			c.Close(context.Background())
		}
	}()
	for len(conns) < kafkaSenders {
		c, err := kt.connect(s.ctx)
		if err != nil {
			return s.out, err
		}
		conns = append(conns, c)
	}
	var inserts []func(int64) error
	for _, c := range conns {
		inserts = append(inserts, func(id int64) error {
			_, err := c.Exec(s.ctx, "INSERT INTO lat VALUES ($1, 1)", id)
			return err
		})
	}
	// Each sink gets ids of its own: the second one's backfill sends the
	// first one's rows before its window starts.
	first := int64(0)
	for _, k := range []struct {
		name, topic, extra string
		readCommitted      bool
	}{
		{"at-least-once", "lat_alo", "", false},
		{"exactly-once", "lat_eo", ", is_exactly_once = 'true'", true},
	} {
		sink := "s_" + k.topic
		if err := s.exec(fmt.Sprintf("CREATE SINK %s FROM lat_v WITH (%s) FORMAT UPSERT ENCODE JSON", sink, kt.with(k.topic, k.extra))); err != nil {
			return s.out, err
		}
		sent, err := s.latencyStep("kafka/latency/"+k.name, kt.addr, k.topic, k.readCommitted, first, inserts)
		if err != nil {
			return s.out, err
		}
		if err := s.exec("DROP SINK " + sink); err != nil {
			return s.out, err
		}
		first += sent
	}
	return s.out, s.kafkaToKafka(kt)
}

// kafkaToKafka is kafka/latency/kafka-to-kafka.
func (s *session) kafkaToKafka(kt *kafkaTarget) error {
	for _, q := range []string{
		fmt.Sprintf("CREATE TABLE kin (id bigint PRIMARY KEY, v int) WITH (%s) FORMAT PLAIN ENCODE JSON",
			kt.with("k2k_in", ", scan.startup.mode = 'earliest'")),
		"CREATE MATERIALIZED VIEW kin_v AS SELECT id, v + 1 AS w FROM kin",
		fmt.Sprintf("CREATE SINK k2k FROM kin_v WITH (%s) FORMAT UPSERT ENCODE JSON", kt.with("k2k_out", "")),
	} {
		if err := s.exec(q); err != nil {
			return err
		}
	}
	prod, err := kt.producer()
	if err != nil {
		return err
	}
	defer prod.Close()
	produce := func(id int64) error {
		v := strconv.AppendInt([]byte(`{"id":`), id, 10)
		r := &kgo.Record{Topic: "k2k_in", Partition: int32(id % kafkaPartitions), Value: append(v, `,"v":1}`...)}
		return prod.ProduceSync(s.ctx, r).FirstErr()
	}
	// kgo's client takes concurrent ProduceSyncs.
	_, err = s.latencyStep("kafka/latency/kafka-to-kafka", kt.addr, "k2k_out", false, 0, slices.Repeat([]func(int64) error{produce}, kafkaSenders))
	return err
}

// latencyStep consumes topic while it sends ids first+1, first+2, ...
// through senders, KafkaRate a second for KafkaWindow, and waits until the
// consumer has them all; it records the step's result as scenario and
// returns how many it sent.
func (s *session) latencyStep(scenario, addr, topic string, readCommitted bool, first int64, senders []func(id int64) error) (int64, error) {
	c, err := startLatencyConsumer(s.ctx, addr, topic, readCommitted)
	if err != nil {
		return 0, err
	}
	defer c.stop()
	s.cfg.progress(s.t.name(), scenario)
	s.t.resetPeak(s.c)
	stopProfile, err := s.startProfile(scenario)
	if err != nil {
		return 0, err
	}
	begin := time.Now()
	starts, returns, err := s.sendSteadily(first, senders)
	elapsed := time.Since(begin)
	n := int64(len(starts))
	if err == nil {
		err = c.wait(s.ctx, first, n)
	}
	if perr := stopProfile(); err == nil {
		err = perr
	}
	r := Result{System: s.t.name(), Scenario: scenario, Rows: n, Elapsed: elapsed, PeakRSS: s.t.peak(s.c), Err: err}
	if err == nil && n > 0 {
		fromStart, fromReturn := make([]time.Duration, n), make([]time.Duration, n)
		c.mu.Lock()
		for i := range n {
			at := c.arrived[first+1+i]
			fromStart[i], fromReturn[i] = at.Sub(starts[i]), max(0, at.Sub(returns[i]))
		}
		c.mu.Unlock()
		var p50s, p99s time.Duration
		r.P50, r.P99 = percentiles(fromReturn)
		p50s, p99s = percentiles(fromStart)
		r.Note = fmt.Sprintf("max %s; from start p50 %s p99 %s max %s", fmtDur(slices.Max(fromReturn)),
			fmtDur(p50s), fmtDur(p99s), fmtDur(slices.Max(fromStart)))
	}
	s.out = append(s.out, r)
	return n, err
}

// kafkaSenders is how many writers kafka/latency sends through at once:
// a write is sent at its time by a writer that is free then, so the rate
// holds while a write takes longer than 1/KafkaRate (an INSERT that
// syncs its commit can).
const kafkaSenders = 8

// sendSteadily sends ids from first+1, one every 1/KafkaRate seconds,
// until KafkaWindow has passed, each through one of senders (each used
// by one goroutine at a time: a connection), the first that is free; it
// returns when each send started and returned. When every sender is
// busy at an id's time, that id goes as soon as one is free.
func (s *session) sendSteadily(first int64, senders []func(id int64) error) (starts, returns []time.Time, err error) {
	interval := time.Second / time.Duration(s.cfg.KafkaRate)
	most := int(s.cfg.KafkaWindow/interval) + 1
	starts, returns = make([]time.Time, most), make([]time.Time, most)
	// The senders' goroutines, owned here: each takes an index from
	// work, sends its id and records its times; they end when work is
	// closed, and are joined before sendSteadily returns.
	work := make(chan int)
	errs := make(chan error, len(senders))
	var wg sync.WaitGroup
	for _, send := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				starts[i] = time.Now()
				if err := send(first + 1 + int64(i)); err != nil {
					errs <- err // the scheduler stops at it
					return
				}
				returns[i] = time.Now()
			}
		}()
	}
	n, err := s.schedule(interval, most, work, errs)
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return starts[:n], returns[:n], err
}

// schedule hands indices 0, 1, ... to work, index i at i intervals after
// it starts, until KafkaWindow has passed (at most most of them), a
// sender fails or the run is cancelled; it returns how many it handed.
func (s *session) schedule(interval time.Duration, most int, work chan<- int, errs <-chan error) (int, error) {
	begin := time.Now()
	end := begin.Add(s.cfg.KafkaWindow)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for i := 0; i < most; i++ {
		at := begin.Add(time.Duration(i) * interval)
		if !at.Before(end) || time.Now().After(end) {
			return i, nil
		}
		if d := time.Until(at); d > 0 {
			timer.Reset(d)
			select {
			case <-s.ctx.Done():
				return i, s.ctx.Err()
			case err := <-errs:
				return i, err
			case <-timer.C:
			}
		}
		select {
		case <-s.ctx.Done():
			return i, s.ctx.Err()
		case err := <-errs:
			return i, err
		case work <- i:
		}
	}
	return most, nil
}
