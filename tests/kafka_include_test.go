package tests

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"
)

// TestKafkaInclude: INCLUDE columns hold each message's key, partition,
// offset, timestamp and headers, as produced, in a table and through a
// source's view; default names when there is no AS.
func TestKafkaInclude(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newKafkaTopic(t, "incl")
	defer k.close()
	db := openKafkaDB(t, t.TempDir())
	defer db.Close()
	base := time.UnixMilli(1700000000000)
	var recs []*kgo.Record
	for i := 0; i < 40; i++ {
		r := &kgo.Record{Topic: k.topic, Partition: int32(i % kafkaPartitions), Timestamp: base.Add(time.Duration(i) * time.Second),
			Value: []byte(fmt.Sprintf(`{"id": %d}`, i))}
		if i%4 != 3 {
			r.Key = []byte(fmt.Sprintf("key-%d", i))
		}
		if i%2 == 0 {
			r.Headers = []kgo.RecordHeader{{Key: "trace", Value: []byte(fmt.Sprintf("t%d", i))}, {Key: "bin", Value: []byte{0, 0xff, byte(i)}}}
		}
		recs = append(recs, r)
	}
	k.produce(t, recs) // fills in each record's offset

	mustExec(t, db, fmt.Sprintf(`CREATE TABLE ti (id int) INCLUDE key AS k INCLUDE partition AS p INCLUDE offset AS o
		INCLUDE timestamp AS ts INCLUDE header AS h INCLUDE header 'trace' AS tr INCLUDE header 'trace' varchar AS trs
		WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, fmt.Sprintf(`CREATE SOURCE si (id int) INCLUDE offset INCLUDE partition WITH (%s) FORMAT PLAIN ENCODE JSON`, k.with("earliest")))
	mustExec(t, db, "CREATE MATERIALIZED VIEW si_v AS SELECT id, _kafka_partition, _kafka_offset FROM si")
	waitFor(t, 30*time.Second, "the rows", func() bool {
		return queryInt(t, db, "SELECT count(*) FROM ti") == 40 && queryInt(t, db, "SELECT count(*) FROM si_v") == 40
	})
	mustExec(t, db, "FLUSH")

	var want, wantSrc []string
	for i, r := range recs {
		key := "NULL"
		if r.Key != nil {
			key = string(r.Key)
		}
		h, tr, trs := "[]", "NULL", "NULL"
		if r.Headers != nil {
			h = fmt.Sprintf(`[{"key": "trace", "value": "t%d"}, {"key": "bin", "value": "\\x00ff%02x"}]`, i, i)
			trs = fmt.Sprintf("t%d", i)
			tr = `\x` + hex.EncodeToString([]byte(trs)) // bytea's text form
		}
		want = append(want, fmt.Sprintf("%d|%s|%d|%d|%d|%s|%s|%s", i, key, r.Partition, r.Offset, r.Timestamp.UnixMilli(), h, tr, trs))
		wantSrc = append(wantSrc, fmt.Sprintf("%d|%d|%d", i, r.Partition, r.Offset))
	}
	got := queryRows(t, db, `SELECT id, coalesce(convert_from(k, 'UTF8'), 'NULL'), p, o,
		CAST(extract(epoch FROM ts) * 1000 AS bigint), h, tr, trs FROM ti`)
	if diff := rowsDiff(got, sortStrings(want)); diff != "" {
		t.Errorf("table ti:\n%s", diff)
	}
	if diff := rowsDiff(queryRows(t, db, "SELECT id, _kafka_partition, _kafka_offset FROM si_v"), sortStrings(wantSrc)); diff != "" {
		t.Errorf("view si_v:\n%s", diff)
	}
	// The options streamdb records itself (the resolved start offsets,
	// the INCLUDE columns) are not listed with the user's.
	opts := queryRows(t, db, "SELECT ftoptions::text FROM pg_foreign_table WHERE ftrelid = 'si'::regclass")
	if len(opts) != 1 || strings.Contains(opts[0], "streamdb.") || !strings.Contains(opts[0], "topic=incl") {
		t.Errorf("pg_foreign_table.ftoptions = %q", opts)
	}
	types := queryRows(t, db, `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'ti'::regclass AND attnum > 0 AND NOT attisdropped`)
	wantTypes := "h|jsonb,id|integer,k|bytea,o|character varying,p|character varying,trs|character varying,tr|bytea,ts|timestamp with time zone"
	if strings.Join(types, ",") != wantTypes {
		t.Errorf("column types = %v\nwant %s", types, wantTypes)
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// rowsDiff lists the rows of got and want that differ ("" when none).
func rowsDiff(got, want []string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, " got %s\nwant %s\n", g, w)
		}
	}
	return b.String()
}
