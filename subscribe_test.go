package streamdb

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// applyBatch applies a batch of changes to model, a multiset of rows
// printed as text (the columns before op and epoch).
func applyBatch(t *testing.T, model map[string]int, rec arrow.RecordBatch) {
	t.Helper()
	n := int(rec.NumCols())
	ops := rec.Column(n - 2).(*array.String)
	for i := 0; i < int(rec.NumRows()); i++ {
		var parts []string
		for c := 0; c < n-2; c++ {
			parts = append(parts, rec.Column(c).ValueStr(i))
		}
		key := strings.Join(parts, "|")
		switch ops.Value(i) {
		case "Insert", "UpdateInsert":
			model[key]++
		case "Delete", "UpdateDelete":
			if model[key] == 0 {
				t.Fatalf("delete of a row not there: %s", key)
			}
			model[key]--
			if model[key] == 0 {
				delete(model, key)
			}
		default:
			t.Fatalf("op %q", ops.Value(i))
		}
	}
}

// queryModel is the same multiset from a query.
func queryModel(t *testing.T, db *DB, q string) map[string]int {
	t.Helper()
	rec, err := db.QueryArrow(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	m := map[string]int{}
	for rec.Next() {
		b := rec.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			var parts []string
			for c := 0; c < int(b.NumCols()); c++ {
				parts = append(parts, b.Column(c).ValueStr(i))
			}
			m[strings.Join(parts, "|")]++
		}
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameModel(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSubscribeRandom: a Go subscriber FULL of a grouped view, and one of
// its subscription SINCE the epoch the first had reached mid-way, each
// applying the batches to a model: after every random DML statement the
// model equals the view's rows once the subscriber reaches the end of an
// epoch; epochs never go back within a stream; a table rescale in between
// changes nothing. Cancelling the context ends the stream with no error;
// dropping the view ends the other with one.
func TestSubscribeRandom(t *testing.T) {
	db, err := Open(t.TempDir(), &Options{NoSync: true, BarrierInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE t (id int PRIMARY KEY, k int, v numeric(10,2), s text)")
	exec("INSERT INTO t SELECT g, g % 7, g * 1.5, 'r' || g FROM generate_series(1, 200) AS g")
	exec("CREATE MATERIALIZED VIEW mv AS SELECT k, count(*) AS n, sum(v) AS total, max(s) AS top FROM t GROUP BY k")
	exec("CREATE SUBSCRIPTION sub FROM mv WITH (retention = '1h')")
	const view = "SELECT k, n, total, top FROM mv"

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	full, err := db.Subscribe(sctx, "mv", &SubscribeOptions{Full: true, BatchRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if got := full.Schema().Field(4).Name + "," + full.Schema().Field(5).Name; got != "op,epoch" {
		t.Fatalf("schema %v", full.Schema())
	}
	// catchUp reads s until its model equals the view at an epoch's end.
	catchUp := func(s *Subscription, model map[string]int, last *uint64) {
		t.Helper()
		want := queryModel(t, db, view)
		for !sameModel(model, want) {
			for {
				if !s.Next() {
					t.Fatalf("stream ended: %v (model %v, want %v)", s.Err(), model, want)
				}
				if s.Epoch() < *last {
					t.Fatalf("epoch went back: %d after %d", s.Epoch(), *last)
				}
				*last = s.Epoch()
				applyBatch(t, model, s.RecordBatch())
				if s.EpochEnd() {
					break
				}
			}
		}
	}
	fullModel, fullLast := map[string]int{}, uint64(0)
	catchUp(full, fullModel, &fullLast)

	rng := rand.New(rand.NewSource(1))
	var mid uint64
	var since *Subscription
	sinceModel, sinceLast := map[string]int{}, uint64(0)
	for step := 0; step < 60; step++ {
		switch rng.Intn(4) {
		case 0:
			id := 200 + step
			exec("INSERT INTO t VALUES ($1, $2, $3, $4)", id, rng.Intn(9), float64(rng.Intn(1000))/4, fmt.Sprintf("x%d", rng.Intn(50)))
		case 1:
			exec("UPDATE t SET k = $1, v = v + 1 WHERE id % 13 = $2", rng.Intn(9), rng.Intn(13))
		case 2:
			exec("DELETE FROM t WHERE id % 17 = $1", rng.Intn(17))
		case 3:
			exec("UPDATE t SET s = s || 'y' WHERE k = $1", rng.Intn(9))
		}
		if step == 20 {
			exec("ALTER TABLE t SET PARALLELISM = 1")
		}
		catchUp(full, fullModel, &fullLast)
		if step == 30 {
			// A second stream SINCE the epoch the first has reached,
			// started from the first one's model.
			mid = fullLast
			for k, v := range fullModel {
				sinceModel[k] = v
			}
			if since, err = db.Subscribe(sctx, "sub", &SubscribeOptions{Since: mid}); err != nil {
				t.Fatal(err)
			}
			defer since.Close()
		}
		if since != nil {
			catchUp(since, sinceModel, &sinceLast)
		}
	}
	if mid == 0 || len(fullModel) == 0 {
		t.Fatalf("nothing followed: mid %d, model %v", mid, fullModel)
	}

	// SINCE on a view (no log of its own) is refused; so is the future.
	if _, err := db.Subscribe(ctx, "mv", &SubscribeOptions{Since: 1}); err == nil {
		t.Fatal("SINCE on a view was accepted")
	}
	if _, err := db.Subscribe(ctx, "sub", &SubscribeOptions{Since: fullLast + 100000}); err == nil {
		t.Fatal("SINCE the future was accepted")
	}

	// Cancelling ends a stream cleanly.
	cctx, ccancel := context.WithCancel(ctx)
	c, err := db.Subscribe(cctx, "sub", nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { done <- c.Next() }()
	time.Sleep(50 * time.Millisecond)
	ccancel()
	if <-done || c.Err() != nil {
		t.Fatalf("after cancel: %v", c.Err())
	}
	c.Close()

	// Dropping the view ends the streams with an error.
	exec("DROP MATERIALIZED VIEW mv CASCADE")
	if full.Next() {
		t.Fatal("a stream of a dropped view went on")
	}
	var e *Error
	if !errors.As(full.Err(), &e) || e.Code != "42P01" || !strings.Contains(e.Message, "was dropped") {
		t.Fatalf("after the drop: %v", full.Err())
	}
	if since.Next() || since.Err() == nil {
		t.Fatalf("the subscription's stream after the drop: %v", since.Err())
	}
}
