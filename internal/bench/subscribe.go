//go:build linux

package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// The subscribe scenario measures a Go subscriber (DB.Subscribe) of a
// projection view, in process:
//
//   - subscribe/latency: Freshness single-row INSERTs, one at a time;
//     each one's latency is from the INSERT's return to its change
//     reaching the subscriber (0 when it got there first);
//   - subscribe/throughput: Rows rows inserted by INSERT ... SELECT
//     statements of subscribeChunkRows rows while the subscriber reads;
//     Elapsed is until the subscriber has them all, and the compared
//     column is the rate it received them at over the rate they were
//     inserted at (1.00x or more: the subscriber is not the bottleneck).
const subscribeChunkRows = 10_000

func (s *session) subscribe() ([]Result, error) {
	st, ok := s.t.(*streamdbTarget)
	if !ok {
		return nil, nil
	}
	db := st.db
	for _, q := range []string{
		"CREATE TABLE sub_t (id bigint PRIMARY KEY, v int)",
		"CREATE MATERIALIZED VIEW sub_v AS SELECT id, v FROM sub_t",
	} {
		if err := s.exec(q); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(s.ctx)
	sub, err := db.Subscribe(ctx, "sub_v", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	// The subscriber: it reports each change's id as it arrives, until
	// ctx ends; stop ends it and waits for it.
	seen := make(chan int64, 1<<16)
	done := make(chan error, 1)
	stop := func() {
		cancel()
		for range seen {
		}
		sub.Close()
	}
	defer stop()
	go func() {
		defer close(seen)
		for sub.Next() {
			ids := sub.RecordBatch().Column(0).(*array.Int64)
			for i := 0; i < ids.Len(); i++ {
				seen <- ids.Value(i)
			}
		}
		done <- sub.Err()
	}()
	n := s.cfg.Freshness
	lat := make([]time.Duration, 0, n)
	latRes := s.apiTimed("subscribe/latency", int64(n), func() error {
		for i := 1; i <= n; i++ {
			if _, err := db.Exec(s.ctx, "INSERT INTO sub_t VALUES ($1, 1)", int64(-i)); err != nil {
				return err
			}
			ret := time.Now()
			id, ok := <-seen
			if !ok {
				return fmt.Errorf("the subscription ended: %v", <-done)
			}
			if id != int64(-i) {
				return fmt.Errorf("the subscriber got id %d, want %d", id, -i)
			}
			lat = append(lat, max(0, time.Since(ret)))
		}
		return nil
	})
	latRes.P50, latRes.P99 = percentiles(lat)
	if latRes.Err == nil {
		latRes.Note = fmt.Sprintf("p99 of a 5 ms target %.2fx", latRes.P99.Seconds()/0.005)
	}

	rows := s.cfg.Rows
	var insertTime time.Duration
	thrRes := s.apiTimed("subscribe/throughput", rows, func() error {
		start := time.Now()
		got := make(chan error, 1)
		go func() {
			for k := int64(0); k < rows; k++ {
				if _, ok := <-seen; !ok {
					got <- fmt.Errorf("the subscription ended after %d rows: %v", k, <-done)
					return
				}
			}
			got <- nil
		}()
		for lo := int64(1); lo <= rows; lo += subscribeChunkRows {
			hi := min(rows, lo+subscribeChunkRows-1)
			if _, err := db.Exec(s.ctx, "INSERT INTO sub_t SELECT g, 2 FROM generate_series($1::bigint, $2::bigint) AS g", lo, hi); err != nil {
				return err
			}
		}
		insertTime = time.Since(start)
		return <-got
	})
	if thrRes.Err == nil && insertTime > 0 {
		thrRes.Note = fmt.Sprintf("delivery rate / insert rate %.2fx", insertTime.Seconds()/thrRes.Elapsed.Seconds())
	}
	fmt.Fprintf(s.cfg.Log, "subscribe: %d single-row INSERTs: change latency p50 %v p99 %v; %d rows inserted in %.2fs, delivered in %.2fs\n",
		n, latRes.P50, latRes.P99, rows, insertTime.Seconds(), thrRes.Elapsed.Seconds())
	out := []Result{latRes, thrRes}
	for _, r := range out {
		if r.Err != nil {
			return out, r.Err
		}
	}
	return out, nil
}
