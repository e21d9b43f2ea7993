package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// temporalModel is what the temporal join views must hold: each left row
// joined with the table's row as it was when the left row was last
// written (every statement commits before the next one starts), never
// changed by later writes to the table.
type temporalModel struct {
	dim map[int]string  // the table: id -> name
	ev  map[int][2]int  // the left side: eid -> (did, qty)
	hit map[int]*string // the name each eid matched when written (nil: none)
	ao  map[int]*string // the same for the append-only left side
}

func (m *temporalModel) lookup(did int) *string {
	if name, ok := m.dim[did]; ok {
		return &name
	}
	return nil
}

// rows renders the model as the views' sorted text rows.
func (m *temporalModel) rows(hits map[int]*string, qty func(eid int) int, outer bool) []string {
	var out []string
	for eid, name := range hits {
		switch {
		case name != nil:
			out = append(out, fmt.Sprintf("%d|%d|%s", eid, qty(eid), *name))
		case outer:
			out = append(out, fmt.Sprintf("%d|%d|NULL", eid, qty(eid)))
		}
	}
	slices.Sort(out)
	return out
}

// TestTemporalJoinModel checks temporal join views (inner and left, over
// a left side that updates and deletes, and over an append-only one)
// against the model after random writes, across a rescale and a restart,
// and a view created over rows already there.
func TestTemporalJoinModel(t *testing.T) {
	dir := t.TempDir()
	open := func(par int) *streamdb.DB {
		db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open(2)
	defer func() { db.Close() }()
	mustExec(t, db, "CREATE TABLE dim (id int PRIMARY KEY, name text)")
	mustExec(t, db, "CREATE TABLE ev (eid int PRIMARY KEY, did bigint, qty int)")
	mustExec(t, db, "CREATE TABLE ev_ao (eid int PRIMARY KEY, did int, qty int) APPEND ONLY")
	m := &temporalModel{dim: map[int]string{}, ev: map[int][2]int{}, hit: map[int]*string{}, ao: map[int]*string{}}
	aoQty := map[int]int{}
	rng := rand.New(rand.NewPCG(7, 11))
	nextAO := 0
	step := func() {
		id := rng.IntN(12)
		switch r := rng.IntN(10); {
		case r < 3: // the table changes: views do not
			name := fmt.Sprintf("n%d", rng.IntN(1000))
			if _, ok := m.dim[id]; ok && rng.IntN(3) == 0 {
				mustExec(t, db, fmt.Sprintf("DELETE FROM dim WHERE id = %d", id))
				delete(m.dim, id)
			} else {
				mustExec(t, db, fmt.Sprintf("INSERT INTO dim VALUES (%d, '%s') ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name", id, name))
				m.dim[id] = name
			}
		case r < 7:
			eid, did, qty := rng.IntN(30), rng.IntN(12), rng.IntN(100)
			if _, ok := m.ev[eid]; ok {
				if rng.IntN(3) == 0 {
					mustExec(t, db, fmt.Sprintf("DELETE FROM ev WHERE eid = %d", eid))
					delete(m.ev, eid)
					delete(m.hit, eid)
					return
				}
				mustExec(t, db, fmt.Sprintf("UPDATE ev SET did = %d, qty = %d WHERE eid = %d", did, qty, eid))
			} else {
				mustExec(t, db, fmt.Sprintf("INSERT INTO ev VALUES (%d, %d, %d)", eid, did, qty))
			}
			m.ev[eid] = [2]int{did, qty}
			m.hit[eid] = m.lookup(did)
		default:
			did, qty := rng.IntN(12), rng.IntN(100)
			mustExec(t, db, fmt.Sprintf("INSERT INTO ev_ao VALUES (%d, %d, %d)", nextAO, did, qty))
			m.ao[nextAO], aoQty[nextAO] = m.lookup(did), qty
			nextAO++
		}
	}
	evQty := func(eid int) int { return m.ev[eid][1] }
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			view string
			want []string
		}{
			{"tj_in", m.rows(m.hit, evQty, false)},
			{"tj_out", m.rows(m.hit, evQty, true)},
			{"tj_ao", m.rows(m.ao, func(eid int) int { return aoQty[eid] }, true)},
		} {
			got := queryRows(t, db, "SELECT * FROM "+c.view)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s: %s\n got %v\nwant %v", when, c.view, got, c.want)
			}
		}
	}
	for range 40 {
		step()
	}
	// Created over rows already there: they join the table as it is now.
	for eid, e := range m.ev {
		m.hit[eid] = m.lookup(e[0])
	}
	for _, r := range queryRows(t, db, "SELECT eid, did FROM ev_ao") {
		var eid, did int
		if _, err := fmt.Sscanf(r, "%d|%d", &eid, &did); err != nil {
			t.Fatal(err)
		}
		m.ao[eid] = m.lookup(did)
	}
	mustExec(t, db, `CREATE MATERIALIZED VIEW tj_in AS SELECT e.eid, e.qty, d.name FROM ev e
		JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() AS d ON e.did = d.id`)
	mustExec(t, db, `CREATE MATERIALIZED VIEW tj_out AS SELECT e.eid, e.qty, d.name FROM ev e
		LEFT JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON d.id = e.did`)
	mustExec(t, db, `CREATE MATERIALIZED VIEW tj_ao AS SELECT e.eid, e.qty, d.name FROM ev_ao e
		LEFT JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() AS d ON e.did = d.id`)
	check("after create")
	for i := range 300 {
		step()
		if i%50 == 49 {
			check(fmt.Sprintf("step %d", i))
		}
		if i == 150 {
			for _, v := range []string{"tj_in", "tj_out", "tj_ao"} {
				mustExec(t, db, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = 3", v))
			}
			check("after rescale")
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(4)
	check("after restart")
	for range 150 {
		step()
	}
	check("after writes since the restart")
}

// TestTemporalJoinErrors checks the SQLSTATEs of temporal joins that
// cannot be.
func TestTemporalJoinErrors(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE d (id int PRIMARY KEY, k2 int, v int)")
	mustExec(t, db, "CREATE TABLE d2 (a int, b int, v int, PRIMARY KEY (a, b))")
	mustExec(t, db, "CREATE TABLE nk (id int, v int)")
	mustExec(t, db, "CREATE TABLE e (id int PRIMARY KEY, x int, ts timestamp)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM d")
	mustExec(t, db, "CREATE VIEW pv AS SELECT id, v FROM d")
	for q, code := range map[string]string{
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() AS r ON e.x = r.id":                  "",
		"SELECT * FROM e JOIN d2 FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.a AND e.id = r.b":      "",
		"SELECT * FROM e JOIN d2 FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.a":                     pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN mv FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.id":                    pgerr.WrongObjectType,
		"SELECT * FROM e JOIN pv FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.id":                    pgerr.WrongObjectType,
		"SELECT * FROM e JOIN nk FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.id":                    pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x + 1 = r.id":                 "",
		"SELECT * FROM e JOIN d2 FOR SYSTEM_TIME AS OF PROCTIME() r ON r.a = e.x::bigint AND r.b = 7": "",
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x + r.v = r.id":               pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r ON random() = r.id":                pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x > r.id":                     pgerr.FeatureNotSupported,
		"SELECT * FROM e FULL JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.id":                pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF e.ts r ON e.x = r.id":                           pgerr.FeatureNotSupported,
		"SELECT * FROM d FOR SYSTEM_TIME AS OF PROCTIME()":                                            pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN d FOR SYSTEM_TIME AS OF PROCTIME() r USING (id)":                        pgerr.FeatureNotSupported,
		"SELECT * FROM e JOIN (SELECT * FROM d) FOR SYSTEM_TIME AS OF PROCTIME() r ON e.x = r.id":     pgerr.FeatureNotSupported,
	} {
		_, err := db.Exec(context.Background(), q)
		if got := pgerr.Code(err); err != nil && got != code || err == nil && code != "" {
			t.Errorf("%s: %v (%s), want %q", q, err, got, code)
		}
	}
}

// TestTemporalJoinNexmarkQ13 runs RisingWave's Nexmark q13 as RisingWave
// writes it: the bids of a nexmark source joined FOR SYSTEM_TIME AS OF
// PROCTIME() with a side-input table on an expression of the bid.
func TestTemporalJoinNexmarkQ13(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, `CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
		date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'nexmark', nexmark.table.type = 'Bid',
		nexmark.split.num = '2', nexmark.min.event.gap.in.ns = '100')`)
	mustExec(t, db, "CREATE TABLE side_input (key BIGINT PRIMARY KEY, value VARCHAR)")
	mustExec(t, db, "INSERT INTO side_input SELECT g, 'v' || g FROM generate_series(0, 9999) AS g")
	mustExec(t, db, `CREATE MATERIALIZED VIEW nexmark_q13 AS SELECT B.auction, B.bidder, B.price, B.date_time, S.value
		FROM bid B JOIN side_input FOR SYSTEM_TIME AS OF PROCTIME() S ON mod(B.auction, 10000) = S.key`)
	deadline := time.Now().Add(20 * time.Second)
	for queryInt(t, db, "SELECT count(*) FROM nexmark_q13") < 10 {
		if time.Now().After(deadline) {
			t.Fatal("no joined bids after 20s")
		}
		mustExec(t, db, "FLUSH")
		time.Sleep(50 * time.Millisecond)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM nexmark_q13 WHERE value IS DISTINCT FROM 'v' || mod(auction, 10000)"); n != 0 {
		t.Fatalf("%d bids joined with the wrong side input", n)
	}
	mustExec(t, db, "DROP MATERIALIZED VIEW nexmark_q13")
	mustExec(t, db, "DROP SOURCE bid")
}
