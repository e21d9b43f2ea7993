package tests

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// subModel is a consumer's copy of a relation rebuilt from a subscription
// cursor's changes: a multiset of rows as text.
type subModel map[string]int

// apply applies the rows of a FETCH (columns..., op, epoch, as
// orderedLines prints them) and returns the epoch of the last.
func (m subModel) apply(t *testing.T, lines []string) uint64 {
	t.Helper()
	var last uint64
	for _, l := range lines {
		parts := strings.Split(l, "|")
		n := len(parts)
		key := strings.Join(parts[:n-2], "|")
		e, err := strconv.ParseUint(parts[n-1], 10, 64)
		if err != nil || e < last {
			t.Fatalf("epoch %q after %d", parts[n-1], last)
		}
		last = e
		switch parts[n-2] {
		case "Insert", "UpdateInsert":
			m[key]++
		case "Delete", "UpdateDelete":
			if m[key] == 0 {
				t.Fatalf("a change deletes %s, which the consumer does not have", key)
			}
			if m[key]--; m[key] == 0 {
				delete(m, key)
			}
		default:
			t.Fatalf("op %q", parts[n-2])
		}
	}
	return last
}

func (m subModel) clone() subModel {
	c := subModel{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m subModel) check(t *testing.T, c *pgx.Conn, q, when string) {
	t.Helper()
	want := subModel{}
	for _, l := range pgLines(t, c, q) {
		want[l]++
	}
	if len(want) != len(m) {
		t.Fatalf("%s: the consumer has %d distinct rows, the relation %d", when, len(m), len(want))
	}
	for k, v := range want {
		if m[k] != v {
			t.Fatalf("%s: row %s: consumer %d, relation %d", when, k, m[k], v)
		}
	}
}

// TestSubscriptionCursorKill9: a consumer reads a subscription of a
// grouped view with a cursor (FULL, then FETCH n at a time) while random
// writes commit, remembering the last epoch it read completely (a FETCH
// that returned fewer rows than asked read everything committed); the
// server is killed with SIGKILL between a FETCH and the next DECLARE.
// After each restart a cursor SINCE that epoch, applied to the consumer's
// copy as of it, rebuilds the view exactly: no change lost or repeated.
func TestSubscriptionCursorKill9(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	c := p.connect(t)
	execAll(t, c,
		"CREATE TABLE t (id int PRIMARY KEY, k int, v int)",
		"INSERT INTO t SELECT g, g % 5, g FROM generate_series(1, 300) AS g",
		"CREATE MATERIALIZED VIEW mv AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
		"CREATE SUBSCRIPTION sub FROM mv WITH (retention = '1h')",
		"DECLARE cur SUBSCRIPTION CURSOR FOR sub FULL")
	const view = "SELECT k, n, s FROM mv"
	model := subModel{}
	var done uint64 // the last epoch read completely
	saved := subModel{}
	fetch := func(c *pgx.Conn, n int) {
		t.Helper()
		q := fmt.Sprintf("FETCH %d FROM cur", n)
		lines := orderedLines(t, c, q)
		last := model.apply(t, lines)
		if len(lines) < n {
			if last > 0 {
				done = last
			}
			saved = model.clone()
		}
	}
	fetch(c, 1000)
	model.check(t, c, view, "after FULL")
	rng := rand.New(rand.NewSource(7))
	next := 1000
	for round := 0; round < 3; round++ {
		for step := 0; step < 25; step++ {
			switch rng.Intn(3) {
			case 0:
				next++
				execAll(t, c, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d)", next, rng.Intn(8), rng.Intn(100)))
			case 1:
				execAll(t, c, fmt.Sprintf("UPDATE t SET k = %d, v = v + 1 WHERE id %% 11 = %d", rng.Intn(8), rng.Intn(11)))
			case 2:
				execAll(t, c, fmt.Sprintf("DELETE FROM t WHERE id %% 23 = %d", rng.Intn(23)))
			}
			fetch(c, 1+rng.Intn(4))
		}
		fetch(c, 100000)
		model.check(t, c, view, fmt.Sprintf("round %d", round))
		// More writes the consumer has not read, then SIGKILL.
		for i := 0; i < 5; i++ {
			next++
			execAll(t, c, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, 1)", next, i))
		}
		fetch(c, 2)
		c.Close(context.Background())
		p.kill()

		p = startProc(t, dir)
		c = p.connect(t)
		model = saved.clone()
		execAll(t, c, fmt.Sprintf("DECLARE cur SUBSCRIPTION CURSOR FOR sub SINCE %d", done))
		fetch(c, 100000)
		model.check(t, c, view, fmt.Sprintf("after kill %d, SINCE %d", round+1, done))
	}
	defer c.Close(context.Background())
}
