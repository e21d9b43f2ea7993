package systemcatalog

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// fakeEngine is an Engine over fixed state: a table with a primary key,
// a view being created over it, and a source.
type fakeEngine struct{ rels []*catalog.Relation }

func newFakeEngine() fakeEngine {
	t := &catalog.Relation{ID: 1, Name: "t", Kind: catalog.KindTable, State: catalog.StateCreated, PK: []int{0},
		DMLRateLimit: 50, Columns: []catalog.Column{{Name: "id", Type: types.TInt32, NotNull: true}, {Name: "v", Type: types.TText}}}
	mv := &catalog.Relation{ID: 2, Name: "mv", Kind: catalog.KindMaterializedView, State: catalog.StateCreating,
		Definition: "SELECT count(*) AS n FROM t", BackfillRateLimit: 100, Parallelism: 2,
		Columns: []catalog.Column{{Name: "n", Type: types.TInt64}}}
	src := &catalog.Relation{ID: 3, Name: "seq", Kind: catalog.KindSource, State: catalog.StateCreated,
		Connector: map[string]string{"connector": "datagen", "datagen.rows.per.second": "10"}, SourcePaused: true,
		Columns: []catalog.Column{{Name: "id", Type: types.TInt32}}}
	return fakeEngine{rels: []*catalog.Relation{t, mv, src}}
}

func (e fakeEngine) Relations() []*catalog.Relation {
	return append([]*catalog.Relation(nil), e.rels...)
}

func (e fakeEngine) RelationByID(id uint32) (*catalog.Relation, bool) {
	for _, r := range e.rels {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

func (e fakeEngine) RelationByName(name string) (*catalog.Relation, bool) {
	for _, r := range e.rels {
		if r.Name == name {
			return r, true
		}
	}
	return Relation(name)
}

func (e fakeEngine) Schemas() []catalog.Schema { return nil }

func (e fakeEngine) Fragments(id uint32) []planner.Fragment {
	if id != 2 {
		return nil
	}
	var lo, hi, all storage.VnodeBitmap
	for v := uint16(0); v < storage.NumVnodes; v++ {
		all.Set(v)
		if v < 128 {
			lo.Set(v)
		} else {
			hi.Set(v)
		}
	}
	return []planner.Fragment{
		{Kind: "scan", Actors: []stream.ActorID{7, 8}, Vnodes: []storage.VnodeBitmap{lo, hi}, Ops: []string{"scan t", "project"},
			Inputs: []planner.FragmentInput{{Upstream: "t", Key: []int{0}}}},
		{Kind: "agg", Actors: []stream.ActorID{9}, Vnodes: []storage.VnodeBitmap{all}, Ops: []string{"agg"},
			Inputs: []planner.FragmentInput{{Fragment: 0, Key: []int{}}}},
	}
}

func (e fakeEngine) RowsGenerated(id uint32) (int64, bool) { return 42, id == 3 }

func (e fakeEngine) Jobs() []Job {
	return []Job{{ID: 2, Statement: "CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t", Phase: "snapshot",
		Progress: 12.345, RowsRead: 10, RowsTotal: 80, RowsPerSecond: 5.5, Elapsed: 1600 * time.Millisecond,
		View: e.rels[1], Failures: 1, LastError: "boom", Epoch: 40, CommittedEpoch: 43, OwnEpoch: 7,
		Joined: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}}
}

func (e fakeEngine) Recoveries() []Recovery {
	return []Recovery{{Seq: 1, At: time.UnixMicro(1_000_000), Cause: errors.New("actor 7 failed").Error(), Rebuild: 1500 * time.Microsecond}}
}

func (e fakeEngine) Watermark(id uint32) (types.Datum, int64, bool) { return nil, 0, false }

func (e fakeEngine) StateSizes() ([]StateSize, error) {
	return []StateSize{
		{Relation: e.rels[0], Table: 1, Kind: StateRows, TableSize: storage.TableSize{Keys: 2, Bytes: 40, DiskBytes: 0}},
		{Relation: e.rels[1], Table: 2, Kind: StateRows, TableSize: storage.TableSize{Keys: 1, Bytes: 20, DiskBytes: 1024}},
		{Relation: e.rels[1], Table: 4, Kind: StateInternal, TableSize: storage.TableSize{Keys: 3, Bytes: 60, DiskBytes: 2048}},
	}, nil
}

func (e fakeEngine) Subscriptions() ([]Subscription, error) {
	return []Subscription{{Name: "s", Relation: "v", Retention: time.Hour, Oldest: 3, Newest: 9, Changes: 12}}, nil
}

func (e fakeEngine) SequenceState(uint32) (int64, bool, error) { return 0, false, nil }

func (e fakeEngine) ViewErrors() []ViewError {
	return []ViewError{
		{View: "mv", Code: "22012", Message: "division by zero", Count: 3, FirstEpoch: 0, LastEpoch: 9,
			First: time.UnixMicro(1_000_000), Last: time.UnixMicro(2_000_000)},
	}
}

var testIdentity = Identity{User: "alice", Database: "db", Settings: map[string]string{"timezone": "UTC", "application_name": "x"},
	Defaults: map[string]string{"timezone": "UTC", "application_name": ""}}

// TestRowsFitColumns: every system relation's rows have a value of its
// column's type (or NULL) for each column, tableoid included.
func TestRowsFitColumns(t *testing.T) {
	e := newFakeEngine()
	for name, tab := range tablesByName {
		rows, err := Rows(e, testIdentity, tab.rel)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, row := range rows {
			if len(row) != len(tab.rel.Columns) {
				t.Fatalf("%s row %d: %d values for %d columns", name, i, len(row), len(tab.rel.Columns))
			}
			for k, d := range row {
				if c := tab.rel.Columns[k]; !fits(d, c.Type) {
					t.Errorf("%s row %d: column %s (%s) holds %T %v", name, i, c.Name, c.Type, d, d)
				}
			}
		}
	}
}

// fits reports whether d is a value of type t (as types.Datum holds it).
func fits(d types.Datum, t types.Type) bool {
	switch d.(type) {
	case nil:
		return true
	case int64:
		return t.IsInteger() || t.IsOID()
	case float64:
		return t.IsFloat()
	case bool:
		return t.ID == types.IDBool
	case string:
		return t.IsString() || t.ID == types.IDArray
	case types.Timestamp:
		return t.ID == types.IDTimestampTZ
	case types.Interval:
		return t.ID == types.IDInterval
	}
	return false
}

// TestRelationIdentifiers: names, ids and OIDs are unique, and relOID
// and relByOID are inverses.
func TestRelationIdentifiers(t *testing.T) {
	if len(tablesByID) != len(streamdbTables)+len(postgresTables) || len(tablesByOID) != len(tablesByID) {
		t.Fatalf("%d ids and %d OIDs for %d relations", len(tablesByID), len(tablesByOID), len(streamdbTables)+len(postgresTables))
	}
	v := lookup(newFakeEngine(), testIdentity)
	for _, r := range append(systemRels, newFakeEngine().rels[0]) {
		got, ok := v.relByOID(relOID(r))
		if !ok || got.Name != r.Name {
			t.Errorf("relByOID(relOID(%s)) = %v, %v", r.Name, got, ok)
		}
	}
	if _, ok := v.relByOID(relOID(newFakeEngine().rels[1])); ok {
		t.Errorf("a view being created has an OID")
	}
}

// TestStreamdbCatalogRows: the streamdb_catalog relations render the
// engine's state.
func TestStreamdbCatalogRows(t *testing.T) {
	e := newFakeEngine()
	for _, tc := range []struct{ rel, want string }{
		{"streamdb_catalog.ddl_progress", "2|CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t|snapshot|12.35%|10|80|5|0|2s|f|100|2|1|boom|f|40|3|7|2026-12-01 10:00:00+00|NULL"},
		{"streamdb_catalog.rate_limits", "mv|backfill|100|f\nseq|source|0|t\nt|dml|50|f"},
		{"streamdb_catalog.sources", "seq|source|datagen|42|10|NULL|t|NULL|NULL"},
		{"streamdb_catalog.actors", "mv|0|scan|7|128|0-127\nmv|0|scan|8|128|128-255\nmv|1|agg|9|256|0-255"},
		{"streamdb_catalog.fragments", "mv|0|scan|2|project <- scan t|t ($0)|NULL\nmv|1|agg|1|agg|fragment 0 ()|NULL"},
		{"streamdb_catalog.recoveries", "1|1970-01-01 00:00:01+00|NULL|actor 7 failed|1.5"},
		{"streamdb_catalog.view_errors", "mv|22012|division by zero|3|NULL|9|1970-01-01 00:00:01+00|1970-01-01 00:00:02+00"},
		{"streamdb_catalog.state_sizes", "t|table|1|rows|2|40|0\nmv|materialized view|2|rows|1|20|1024\nmv|materialized view|4|internal|3|60|2048"},
	} {
		r, ok := Relation(tc.rel)
		if !ok {
			t.Fatalf("no relation %s", tc.rel)
		}
		rows, err := Rows(e, testIdentity, r)
		if err != nil {
			t.Fatalf("%s: %v", tc.rel, err)
		}
		if got := render(rows, r); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.rel, got, tc.want)
		}
	}
}

func render(rows [][]types.Datum, r *catalog.Relation) string {
	var lines []string
	for _, row := range rows {
		var vals []string
		for k, d := range row {
			if d == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, types.Format(d, r.Columns[k].Type))
			}
		}
		lines = append(lines, strings.Join(vals, "|"))
	}
	return strings.Join(lines, "\n")
}

// failingEngine is a fakeEngine whose state cannot be measured.
type failingEngine struct{ fakeEngine }

func (failingEngine) StateSizes() ([]StateSize, error) { return nil, storage.ErrClosed }

// TestRowsError: a relation whose rows the engine cannot give fails its
// scan instead of showing no rows.
func TestRowsError(t *testing.T) {
	r, _ := Relation("streamdb_catalog.state_sizes")
	if rows, err := Rows(failingEngine{newFakeEngine()}, testIdentity, r); !errors.Is(err, storage.ErrClosed) || rows != nil {
		t.Fatalf("rows %v, err %v; want storage.ErrClosed", rows, err)
	}
}
