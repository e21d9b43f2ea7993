package tests

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestTableOnConflictRestart checks that a table's ON CONFLICT behavior
// (RisingWave's clause of CREATE TABLE) is kept across a restart.
func TestTableOnConflictRestart(t *testing.T) {
	dir := t.TempDir()
	db, err := streamdb.Open(dir, &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE ow (id int PRIMARY KEY, v text) ON CONFLICT DO UPDATE IF NOT NULL")
	mustExec(t, db, "INSERT INTO ow VALUES (1, 'a'), (2, 'b')")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = streamdb.Open(dir, &streamdb.Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "INSERT INTO ow VALUES (1, 'A'), (2, NULL), (3, 'c')")
	if got, want := queryRows(t, db, "SELECT * FROM ow"), []string{"1|A", "2|b", "3|c"}; !slices.Equal(got, want) {
		t.Fatalf("after the restart: %v, want %v", got, want)
	}
}
