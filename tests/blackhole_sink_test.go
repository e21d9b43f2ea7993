package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb"
)

// TestBlackholeSink checks that a blackhole sink consumes every change of
// its input, its backfill first (counted as messages sent), across a
// restart, and that DROP SINK removes it and leaves no goroutine.
func TestBlackholeSink(t *testing.T) {
	verifyNoLeaks(t)
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO t SELECT g, g FROM generate_series(1, 300) AS g")
	mustExec(t, db, "CREATE SINK s FROM t WITH (connector = 'blackhole')")
	// The backfill's 300 rows, then 100 updates (a pair each) and 50
	// deletes.
	mustExec(t, db, "UPDATE t SET v = v + 1 WHERE id <= 100")
	mustExec(t, db, "DELETE FROM t WHERE id > 250")
	waitSent := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			got := queryInt(t, db, "SELECT messages_sent FROM streamdb_catalog.sinks WHERE name = 's'")
			if got == want {
				return
			}
			if got > want || time.Now().After(deadline) {
				t.Fatalf("messages sent: %d, want %d", got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitSent(300 + 200 + 50)
	rows := queryRows(t, db, "SHOW SINKS")
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "s|t|blackhole|") {
		t.Fatalf("SHOW SINKS = %v", rows)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true, Parallelism: 3}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 20 {
		mustExec(t, db, fmt.Sprintf("INSERT INTO t VALUES (%d, 0)", 1000+i))
	}
	waitSent(550 + 20) // a count kept with the sink's log: nothing sent twice
	mustExec(t, db, "DROP SINK s")
	if n := queryInt(t, db, "SELECT count(*) FROM streamdb_catalog.sinks"); n != 0 {
		t.Fatalf("%d sinks after DROP SINK", n)
	}
	mustExec(t, db, "DROP TABLE t")
}
