package tests

// The chaos test: a streamdb server process is started over one data
// directory again and again; each round clients write (INSERT, UPDATE,
// DELETE in their own connections) and create and drop materialized
// views, and the server is killed with SIGKILL at a random moment. After
// every restart every acknowledged write is there (an update's value, a
// delete's absence), every view whose CREATE was acknowledged exists, and
// every view equals its query. Under -tags invariants the server also
// runs with failpoints firing now and then, so graph recoveries mix with
// the kills.
//
// STREAMDB_CHAOS_ROUNDS sets the rounds (default 4), STREAMDB_CHAOS_SEED
// the seed (logged, so a failing schedule can be run again; the
// interleaving of the clients still varies), STREAMDB_CHAOS_FAILPOINTS
// the failpoints of the odd rounds (STREAMDB_FAILPOINTS syntax).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// chaosViews are the queries the DDL client creates views of; a view's
// name says which (cv<n>_<query index>).
var chaosViews = []string{
	"SELECT k, count(*) AS n, sum(v) AS s FROM a GROUP BY k",
	"SELECT a.id, a.v, b.w FROM a JOIN b ON a.id = b.id",
	"SELECT id, v FROM a WHERE v % 3 = 0",
	"SELECT count(*) AS n, sum(w) AS s, max(w) AS hi FROM b",
	"SELECT a.k, count(*) AS n, sum(b.w) AS s FROM a LEFT JOIN b ON a.id = b.id GROUP BY a.k",
	// Constant rows: emitted once over the view's life, kills included.
	"SELECT a.id, m.name FROM a JOIN (VALUES (1, 'one'), (2, 'two'), (2, 'deux')) AS m(k, name) ON a.k = m.k UNION ALL VALUES (-1, 'const'), (-1, 'const')",
	"SELECT count(*) AS n, sum(x) AS s FROM (VALUES (1), (2), (2)) AS v(x)",
}

// chaosFailpoints are set in the server's environment in odd rounds when
// failpoints are compiled in: rare errors, panics and ends of stream.
const chaosFailpoints = "storage/commit=error,prob=0.003;exec/hash-agg/chunk=error,prob=0.003;" +
	"stream/send=end,prob=0.0005;exec/hash-join/barrier=panic,prob=0.002;backfill/snapshot-read=error,prob=0.01"

func chaosEnvInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

func TestChaos(t *testing.T) {
	rounds := chaosEnvInt(t, "STREAMDB_CHAOS_ROUNDS", 4)
	seed := chaosEnvInt(t, "STREAMDB_CHAOS_SEED", time.Now().UnixNano()%1_000_000)
	t.Logf("chaos: %d rounds, STREAMDB_CHAOS_SEED=%d", rounds, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	dir := t.TempDir()
	m := newChaosModel()
	streamdbBinary(t) // built once, not timed
	start := time.Now()
	var recovered []time.Duration
	for round := int64(0); round <= rounds; round++ {
		var env []string
		if failpoint.Enabled && round%2 == 1 {
			fps := chaosFailpoints
			if s := os.Getenv("STREAMDB_CHAOS_FAILPOINTS"); s != "" {
				fps = s
			}
			env = append(env, "STREAMDB_FAILPOINTS="+fps)
		}
		t0 := time.Now()
		p := startProcWith(t, dir, env, filepath.Join(dir, fmt.Sprintf("server-%d.log", round)))
		c := p.connect(t)
		recovered = append(recovered, time.Since(t0))
		if round == 0 {
			execAll(t, c, "CREATE TABLE a (id int PRIMARY KEY, k int, v int)",
				"CREATE TABLE b (id int PRIMARY KEY, k int, w int)")
		}
		m.check(t, c, fmt.Sprintf("seed %d, after restart %d", seed, round))
		if t.Failed() {
			if round > 0 {
				(&serverProc{log: filepath.Join(dir, fmt.Sprintf("server-%d.log", round-1))}).dumpLog(t)
			}
			p.dumpLog(t)
			if keep := os.Getenv("STREAMDB_CHAOS_KEEP"); keep != "" {
				p.kill()
				if out, err := exec.Command("cp", "-r", dir, keep).CombinedOutput(); err != nil {
					t.Logf("keeping the data dir: %v %s", err, out)
				}
			}
			return
		}
		c.Close(context.Background())
		if round == rounds {
			break
		}
		killAfter := time.Duration(300+rng.IntN(1200)) * time.Millisecond
		m.runRound(t, p, rng, killAfter)
	}
	sort.Slice(recovered, func(i, j int) bool { return recovered[i] < recovered[j] })
	t.Logf("chaos: %d rounds in %v; restart to first connection: min %v, median %v, max %v; %d acknowledged writes, %d views checked, %d graph recoveries",
		rounds, time.Since(start).Round(time.Millisecond), recovered[0].Round(time.Millisecond),
		recovered[len(recovered)/2].Round(time.Millisecond), recovered[len(recovered)-1].Round(time.Millisecond),
		m.acked, m.checkedViews, countRecoveries(dir))
}

// countRecoveries counts the graph recoveries the servers logged.
func countRecoveries(dir string) int {
	logs, _ := filepath.Glob(filepath.Join(dir, "server-*.log"))
	n := 0
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		n += strings.Count(string(b), "recovering streaming graph")
	}
	return n
}

// startProcWith starts a server over dataDir with extra environment,
// its log going to logPath.
func startProcWith(t *testing.T, dataDir string, env []string, logPath string) *serverProc {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p := startProcOpts(t, dataDir, env, f)
	p.log = logPath
	return p
}

func (p *serverProc) dumpLog(t *testing.T) {
	b, _ := os.ReadFile(p.log)
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	t.Logf("server log (%s), last bytes:\n%s", p.log, b)
}

// chaosModel is what the clients were told: the rows of a and b whose
// statements were acknowledged, and the views.
type chaosModel struct {
	mu sync.Mutex
	// rows per table: id -> value (the row exists) or -1 (deleted).
	rows map[string]map[int]int
	// unsure: ids whose last statement's outcome is unknown (the server
	// died under it): either the old or the new value may be there.
	unsure map[string]map[int][2]int
	// views: name -> true (created, acknowledged) or false (dropped).
	views        map[string]bool
	unsureViews  map[string]bool
	nextID       int
	nextView     int
	acked        int
	checkedViews int
}

func newChaosModel() *chaosModel {
	return &chaosModel{rows: map[string]map[int]int{"a": {}, "b": {}},
		unsure: map[string]map[int][2]int{"a": {}, "b": {}}, views: map[string]bool{}, unsureViews: map[string]bool{}}
}

// runRound runs the clients until the server is killed after killAfter.
func (m *chaosModel) runRound(t *testing.T, p *serverProc, rng *rand.Rand, killAfter time.Duration) {
	var wg sync.WaitGroup
	for i := 0; i < chaosWriters; i++ {
		c := p.connect(t)
		r := rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
		wg.Go(func() { m.writer(t, c, r, i) })
	}
	c := p.connect(t)
	r := rand.New(rand.NewPCG(rng.Uint64(), 99))
	wg.Go(func() { m.ddl(t, c, r) })
	time.Sleep(killAfter)
	p.kill()
	wg.Wait()
}

// outcome classifies a statement's error: done (acknowledged), not done
// (a clean error: nothing changed) or unknown (the connection died).
type outcome int

const (
	done outcome = iota
	notDone
	unknown
)

func classify(t *testing.T, err error, okCodes ...string) outcome {
	if err == nil {
		return done
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		for _, c := range append(okCodes, pgerr.SerializationFailure, pgerr.AdminShutdown, pgerr.UniqueViolation) {
			if pe.Code == c {
				return notDone
			}
		}
		t.Errorf("unexpected error: [%s] %s", pe.Code, pe.Message)
		return notDone
	}
	return unknown // the server went away
}

// chaosWriters is the number of DML clients; writer w owns the ids
// congruent to w, so the model's order of a row's statements is theirs.
const chaosWriters = 3

func (m *chaosModel) writer(t *testing.T, c *pgx.Conn, rng *rand.Rand, w int) {
	ctx := context.Background()
	defer c.Close(ctx)
	for {
		table := []string{"a", "b"}[rng.IntN(2)]
		col := map[string]string{"a": "v", "b": "w"}[table]
		m.mu.Lock()
		var id int
		if ids := m.liveIDs(table, w); len(ids) > 0 && rng.IntN(3) > 0 {
			id = ids[rng.IntN(len(ids))]
		} else {
			m.nextID++
			id = m.nextID*chaosWriters + w
		}
		old, had := m.rows[table][id]
		if !had {
			old = -1
		}
		m.mu.Unlock()
		val := rng.IntN(1000)
		var q string
		switch {
		case old < 0:
			q = fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d)", table, id, id%10, val)
		case rng.IntN(4) == 0:
			q, val = fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, id), -1
		default:
			q = fmt.Sprintf("UPDATE %s SET %s = %d WHERE id = %d", table, col, val, id)
		}
		_, err := c.Exec(ctx, q)
		switch classify(t, err) {
		case done:
			m.mu.Lock()
			m.rows[table][id] = val
			m.acked++
			m.mu.Unlock()
		case unknown:
			m.mu.Lock()
			m.unsure[table][id] = [2]int{old, val}
			m.mu.Unlock()
			return
		}
	}
}

// liveIDs returns the ids of writer w in a table that exist for sure
// (caller holds mu).
func (m *chaosModel) liveIDs(table string, w int) []int {
	var ids []int
	for id, v := range m.rows[table] {
		if _, u := m.unsure[table][id]; v >= 0 && !u && id%chaosWriters == w {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids
}

// ddl creates views (foreground: acknowledged once created) and drops
// the oldest when more than four exist.
func (m *chaosModel) ddl(t *testing.T, c *pgx.Conn, rng *rand.Rand) {
	ctx := context.Background()
	defer c.Close(ctx)
	for {
		m.mu.Lock()
		var live []string
		for name, ok := range m.views {
			if ok && !m.unsureViews[name] {
				live = append(live, name)
			}
		}
		sort.Strings(live)
		var q, name string
		create := len(live) < 4
		if create {
			m.nextView++
			name = fmt.Sprintf("cv%d_%d", m.nextView, rng.IntN(len(chaosViews)))
			q = fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, chaosViews[viewIndex(name)])
		} else {
			name = live[0]
			q = "DROP MATERIALIZED VIEW " + name
		}
		m.mu.Unlock()
		_, err := c.Exec(ctx, q)
		// A CREATE whose job was quarantined (failpoints) fails and
		// leaves no view.
		out := classify(t, err, pgerr.Internal)
		m.mu.Lock()
		switch out {
		case done:
			m.views[name] = create
		case unknown:
			m.unsureViews[name] = true
		}
		m.mu.Unlock()
		if out == unknown {
			return
		}
	}
}

func viewIndex(name string) int {
	i := strings.LastIndexByte(name, '_')
	n, _ := strconv.Atoi(name[i+1:])
	return n
}

// check compares the server's state with the model after a restart.
func (m *chaosModel) check(t *testing.T, c *pgx.Conn, when string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, table := range []string{"a", "b"} {
		got := map[int]int{}
		col := map[string]string{"a": "v", "b": "w"}[table]
		for _, line := range pgLines(t, c, fmt.Sprintf("SELECT id, %s FROM %s", col, table)) {
			var id, v int
			fmt.Sscanf(line, "%d|%d", &id, &v)
			got[id] = v
		}
		m.checkTable(t, table, got, when)
	}
	existing := map[string]bool{}
	for _, n := range pgLines(t, c, "SHOW MATERIALIZED VIEWS") {
		existing[n] = true
	}
	for name := range m.unsureViews {
		if existing[name] { // created after all (or not yet dropped)
			m.views[name] = true
			delete(m.unsureViews, name)
		}
	}
	for name, created := range m.views {
		if m.unsureViews[name] {
			continue
		}
		if created && !existing[name] {
			t.Errorf("%s: view %s was created (acknowledged) but is gone", when, name)
		}
		if !created && existing[name] {
			t.Errorf("%s: view %s was dropped (acknowledged) but is there", when, name)
		}
	}
	for name := range existing {
		got := pgLines(t, c, "SELECT * FROM "+name)
		want := pgLines(t, c, chaosViews[viewIndex(name)])
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: view %s differs from its query: %d rows vs %d\nview:  %.300v\nquery: %.300v",
				when, name, len(got), len(want), got, want)
		}
		m.checkedViews++
	}
}

// checkTable compares a table's rows with the model, and settles the
// unsure rows from what is there.
func (m *chaosModel) checkTable(t *testing.T, table string, got map[int]int, when string) {
	t.Helper()
	want := m.rows[table]
	for id, v := range want {
		if _, u := m.unsure[table][id]; u {
			continue
		}
		g, ok := got[id]
		switch {
		case v >= 0 && !ok:
			t.Errorf("%s: acknowledged row %s.id=%d is lost", when, table, id)
		case v >= 0 && g != v:
			t.Errorf("%s: %s.id=%d holds %d, the acknowledged value is %d", when, table, id, g, v)
		case v < 0 && ok:
			t.Errorf("%s: %s.id=%d was deleted (acknowledged) but holds %d", when, table, id, g)
		}
	}
	for id, vals := range m.unsure[table] {
		g, ok := got[id]
		if !ok {
			g = -1
		}
		if g != vals[0] && g != vals[1] {
			t.Errorf("%s: %s.id=%d holds %d; its last statements left %d or %d", when, table, id, g, vals[0], vals[1])
		}
		want[id] = g
		delete(m.unsure[table], id)
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: %s.id=%d (%d) was never written", when, table, id, g)
		}
	}
}

// pgLines runs a query in the simple protocol and returns its rows as
// sorted text lines ("NULL" for nulls, values joined by "|").
func pgLines(t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	out := orderedLines(t, c, q)
	sort.Strings(out)
	return out
}

// orderedLines runs q and returns its rows in the order they came, each
// as its columns' text joined by "|" (NULL for a null).
func orderedLines(t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var parts []string
		for _, v := range rows.RawValues() {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, string(v))
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
