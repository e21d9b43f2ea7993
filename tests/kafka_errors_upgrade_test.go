package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/storage"
)

// relationEntry returns the stored catalog entry of the relation named
// name in the (closed) database of dir, its meta key and the store, open.
func relationEntry(t *testing.T, dir, name string) (*storage.Store, string, *catalog.Relation) {
	t.Helper()
	st, err := storage.Open(dir, storage.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	keys, vals, err := st.ScanMeta("catalog/rel/")
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	for i := range keys {
		r := new(catalog.Relation)
		if err := json.Unmarshal(vals[i], r); err != nil {
			st.Close()
			t.Fatal(err)
		}
		if r.Name == name || r.Name == "public."+name {
			return st, keys[i], r
		}
	}
	st.Close()
	t.Fatalf("no catalog entry of %q", name)
	return nil, "", nil
}

// produceBad produces one message per partition that is not JSON.
func (k *kafkaTopic) produceBad(t *testing.T, tag string) {
	t.Helper()
	var recs []*kgo.Record
	for p := int32(0); p < kafkaPartitions; p++ {
		recs = append(recs, &kgo.Record{Topic: k.topic, Partition: p, Value: []byte("not json " + tag)})
	}
	k.produce(t, recs)
}

// TestKafkaErrorsOfOlderRelations: a Kafka table created by a streamdb
// that kept no error table (its catalog entry has its position table
// alone, as such a build wrote it) is given one at Open, in one durable
// catalog write, so its malformed messages are kept across restarts as
// a newer relation's are.
func TestKafkaErrorsOfOlderRelations(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "olderr")
	defer k.close()
	dir := t.TempDir()
	db := openKafkaDB(t, dir)
	k.produceRows(t, 0, 40)
	mustExec(t, db, fmt.Sprintf(`CREATE TABLE r (id bigint, k int) WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	waitFor(t, 30*time.Second, "the first rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == 40 })
	mustExec(t, db, "FLUSH")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Make it an older build's relation: no error table.
	st, key, r := relationEntry(t, dir, "r")
	if len(r.Internal) != 2 {
		st.Close()
		t.Fatalf("a new Kafka table has internal tables %v, want its positions and its errors", r.Internal)
	}
	if err := st.DropTable(r.Internal[1]); err != nil {
		t.Fatal(err)
	}
	r.Internal = r.Internal[:1]
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutMeta(key, b); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	db = openKafkaDB(t, dir)
	k.produceBad(t, "a")
	k.produceRows(t, 40, 40)
	waitFor(t, 30*time.Second, "the later rows", func() bool { return queryInt(t, db, "SELECT count(*) FROM r") == 80 })
	waitFor(t, 30*time.Second, "the skipped messages", func() bool {
		return queryInt(t, db, "SELECT skipped FROM streamdb_catalog.sources WHERE name = 'r'") == kafkaPartitions
	})
	mustExec(t, db, "FLUSH")
	want := queryRows(t, db, "SELECT partition_id, message_offset FROM streamdb_catalog.source_errors")
	if len(want) != kafkaPartitions {
		t.Fatalf("source_errors = %v, want one per partition", want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st, _, r = relationEntry(t, dir, "r")
	internal := r.Internal
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if len(internal) != 2 {
		t.Fatalf("after Open the table's internal tables are %v, want an error table added", internal)
	}
	for round := 0; round < 2; round++ {
		db = openKafkaDB(t, dir)
		got := queryRows(t, db, "SELECT partition_id, message_offset FROM streamdb_catalog.source_errors")
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("round %d: after a restart source_errors = %v, want %v", round, got, want)
		}
		if got := queryInt(t, db, "SELECT count(*) FROM r"); got != 80 {
			t.Errorf("round %d: %d rows, want 80", round, got)
		}
		// A table created now gets an id past the one given at Open.
		mustExec(t, db, fmt.Sprintf("CREATE TABLE plain%d (a int)", round))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		st, _, p := relationEntry(t, dir, fmt.Sprintf("plain%d", round))
		st.Close()
		if p.ID <= internal[1] {
			t.Errorf("round %d: a new table got id %d, not past the error table %d", round, p.ID, internal[1])
		}
	}
}
