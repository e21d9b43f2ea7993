package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// kcatPath finds Debian's kcat: missing, the test fails in CI (which
// installs it, .ci/run) and is skipped elsewhere.
func kcatPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("kcat is not installed (apt-get install kcat): %v", err)
	}
	t.Skipf("kcat is not installed (apt-get install kcat): %v", err)
	return ""
}

// kcatProduce runs kcat as a producer of lines ("key:value", or
// "key:" for a tombstone) into topic on the cluster at addr.
func kcatProduce(t *testing.T, kcat, addr, topic string, lines []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kcat, "-b", addr, "-t", topic, "-P", "-K:", "-Z")
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, out)
	}
}

// TestKafkaKcat: messages produced by kcat (librdkafka, another client
// than the one streamdb reads with) over TCP into a topic reach a PLAIN
// table and its GROUP BY view, and an UPSERT table keyed by kcat's keys,
// whose tombstones (-Z: an empty value is null) delete.
func TestKafkaKcat(t *testing.T) {
	kcat := kcatPath(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "kcat")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE kp (id bigint, k int) INCLUDE key AS key WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW kp_k AS SELECT k, count(*) AS c, sum(id) AS s FROM kp GROUP BY k")
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ku (id bigint, k int, PRIMARY KEY (key)) INCLUDE key AS key WITH (%s)
		FORMAT UPSERT ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW ku_k AS SELECT k, count(*) AS c, sum(id) AS s FROM ku GROUP BY k")

	type agg struct{ c, s int64 }
	plain, last := map[int64]agg{}, map[string][2]int64{}
	var lines []string
	n := 0
	for id := int64(0); id < 500; id++ {
		key := fmt.Sprintf("u%d", id%120)
		lines = append(lines, fmt.Sprintf(`%s:{"id": %d, "k": %d}`, key, id, id%7))
		a := plain[id%7]
		plain[id%7] = agg{a.c + 1, a.s + id}
		last[key] = [2]int64{id, id % 7}
		n++
		if id%9 == 0 { // a tombstone: no row in kp, a delete in ku
			lines = append(lines, key+":")
			delete(last, key)
			n++
		}
	}
	kcatProduce(t, kcat, k.addr, k.topic, lines)

	waitFor(t, 60*time.Second, "kcat's messages", func() bool {
		rows := queryRows(t, db, "SELECT name, rows_generated FROM streamdb_catalog.sources")
		return strings.Join(rows, ",") == fmt.Sprintf("kp|500,ku|%d", n)
	})
	mustExec(t, db, "FLUSH")
	var want []string
	for key, a := range plain {
		want = append(want, fmt.Sprintf("%d|%d|%d", key, a.c, a.s))
	}
	sort.Strings(want)
	if got := queryRows(t, db, "SELECT k, c, s FROM kp_k"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("view kp_k = %v\nproduced %v", got, want)
	}
	ups := map[int64]agg{}
	for _, v := range last {
		a := ups[v[1]]
		ups[v[1]] = agg{a.c + 1, a.s + v[0]}
	}
	want = want[:0]
	for key, a := range ups {
		want = append(want, fmt.Sprintf("%d|%d|%d", key, a.c, a.s))
	}
	sort.Strings(want)
	if got := queryRows(t, db, "SELECT k, c, s FROM ku_k"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("view ku_k = %v\nproduced %v", got, want)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM ku"); got != int64(len(last)) {
		t.Fatalf("ku holds %d rows, want %d", got, len(last))
	}
	// The plain table skips the tombstones silently, as RisingWave does.
	if got := queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 'kp'"); got != 0 {
		t.Fatalf("kp skipped %d messages", got)
	}
}
