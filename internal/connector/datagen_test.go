package connector

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func TestDatagenRows(t *testing.T) {
	cols := []Column{{"id", types.TInt64}, {"k", types.TInt32}, {"s", types.TVarchar}, {"f", types.TFloat64}, {"b", types.TBool}}
	g, err := New(cols, map[string]string{
		"connector": "datagen", "fields.id.kind": "sequence", "fields.id.start": "10", "fields.id.end": "19",
		"fields.k.min": "-3", "fields.k.max": "3", "fields.s.length": "6", "fields.f.min": "0.5", "fields.f.max": "0.75",
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if g.Limit() != 10 || g.RowsPerSecond() != DefaultRowsPerSecond {
		t.Fatalf("limit %d rate %d", g.Limit(), g.RowsPerSecond())
	}
	seenK := map[int64]bool{}
	var row []types.Datum
	for i := int64(0); i < 10; i++ {
		row = g.Row(i, row)
		if row[0] != 10+i {
			t.Fatalf("row %d: id %v", i, row[0])
		}
		k := row[1].(int64)
		if k < -3 || k > 3 {
			t.Fatalf("row %d: k %d out of [-3, 3]", i, k)
		}
		seenK[k] = true
		if s := row[2].(string); len(s) != 6 {
			t.Fatalf("row %d: s %q", i, s)
		}
		if f := row[3].(float64); f < 0.5 || f > 0.75 {
			t.Fatalf("row %d: f %v", i, f)
		}
		if _, ok := row[4].(bool); !ok {
			t.Fatalf("row %d: b %v", i, row[4])
		}
		again := g.Row(i, nil)
		for c := range row {
			if types.Format(again[c], cols[c].Type) != types.Format(row[c], cols[c].Type) {
				t.Fatalf("row %d column %d differs between calls: %v, %v", i, c, row[c], again[c])
			}
		}
	}
	if len(seenK) < 3 {
		t.Fatalf("k took %d values in 10 rows", len(seenK))
	}
}

func TestDatagenOptionErrors(t *testing.T) {
	cols := []Column{{"a", types.TInt16}}
	for opts, want := range map[string]map[string]string{
		"22023": {"connector": "datagen", "fields.a.max": "x"},
		"42703": {"connector": "datagen", "fields.b.max": "1"},
		"22003": {"connector": "datagen", "fields.a.kind": "sequence", "fields.a.end": "40000"},
		"0A000": {"connector": "pulsar"},
	} {
		_, err := New(cols, want, 0)
		if err == nil || pgerr.Code(err) != opts {
			t.Errorf("%v: %v, want %s", want, err, opts)
		}
	}
}
