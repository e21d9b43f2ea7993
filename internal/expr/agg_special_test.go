package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestSumSpecialRetract inserts and deletes NaN and infinite inputs of a
// sum and avg as a view's state does (Scales kept), and checks each result
// against PostgreSQL 15's sum and avg over the inputs that remain.
func TestSumSpecialRetract(t *testing.T) {
	type step struct {
		v        string
		del      bool
		sum, avg string
	}
	cases := []struct {
		arg   types.Type
		steps []step
	}{
		{types.TNumeric, []step{
			{"1.50", false, "1.50", "1.50000000000000000000"},
			{"NaN", false, "NaN", "NaN"},
			{"Infinity", false, "NaN", "NaN"},
			{"-Infinity", false, "NaN", "NaN"},
			{"2.5", false, "NaN", "NaN"},
			{"NaN", true, "NaN", "NaN"}, // Infinity + -Infinity
			{"-Infinity", true, "Infinity", "Infinity"},
			{"Infinity", true, "4.00", "2.0000000000000000"},
			{"1.50", true, "2.5", "2.5000000000000000"},
			{"2.5", true, "NULL", "NULL"},
			{"-Infinity", false, "-Infinity", "-Infinity"},
			{"-Infinity", true, "NULL", "NULL"},
		}},
		{types.TFloat64, []step{
			{"1.5", false, "1.5", "1.5"},
			{"NaN", false, "NaN", "NaN"},
			{"Infinity", false, "NaN", "NaN"},
			{"-Infinity", false, "NaN", "NaN"},
			{"2.25", false, "NaN", "NaN"},
			{"NaN", true, "NaN", "NaN"},
			{"Infinity", true, "-Infinity", "-Infinity"},
			{"-Infinity", true, "3.75", "1.875"},
		}},
		{types.TFloat32, []step{
			{"1.5", false, "1.5", "1.5"},
			{"Infinity", false, "Infinity", "Infinity"},
			{"2.25", false, "Infinity", "Infinity"},
			{"Infinity", true, "3.75", "1.875"},
		}},
	}
	for _, c := range cases {
		st := SumState{Scales: ScaleCounts{}}
		for i, s := range c.steps {
			d, err := types.Parse(s.v, c.arg)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Accumulate(d, c.arg, s.del); err != nil {
				t.Fatal(err)
			}
			// The state survives its stored form (a view's state row).
			if back, err := ParseSpecialCounts(st.Special.String()); err != nil || back != st.Special {
				t.Fatalf("special counts %v: round trip %v, %v", st.Special, back, err)
			}
			sum, avg := formatAgg(t, &st, AggSum, c.arg), formatAgg(t, &st, AggAvg, c.arg)
			if sum != s.sum || avg != s.avg {
				t.Errorf("%s step %d (%s %s): sum %s avg %s; want %s, %s", c.arg, i, map[bool]string{false: "insert", true: "delete"}[s.del], s.v, sum, avg, s.sum, s.avg)
			}
		}
	}
}

// TestSumSpecialMatchesBatch: after random inserts and deletes of
// numerics or floats, NaN and infinities included, a retracting state
// gives what a fresh state over the remaining inputs (a batch query's)
// gives. (The floats are exact in binary: a float sum that retracts may
// otherwise differ from a fresh one by rounding.)
func TestSumSpecialMatchesBatch(t *testing.T) {
	for _, arg := range []types.Type{types.TNumeric, types.TFloat64} {
		pool := []string{"NaN", "Infinity", "-Infinity", "1.5", "-2.25", "0.001", "10", "0"}
		if arg.IsFloat() {
			pool[5] = "0.125"
		}
		rng := rand.New(rand.NewPCG(1, uint64(arg.ID)))
		st := SumState{Scales: ScaleCounts{}}
		var live []types.Datum
		for i := range 2000 {
			if len(live) > 0 && rng.IntN(2) == 0 {
				j := rng.IntN(len(live))
				if err := st.Accumulate(live[j], arg, true); err != nil {
					t.Fatal(err)
				}
				live = append(live[:j], live[j+1:]...)
			} else {
				d, _ := types.Parse(pool[rng.IntN(len(pool))], arg)
				if err := st.Accumulate(d, arg, false); err != nil {
					t.Fatal(err)
				}
				live = append(live, d)
			}
			var batch SumState
			for _, d := range live {
				if err := batch.Accumulate(d, arg, false); err != nil {
					t.Fatal(err)
				}
			}
			for _, k := range []AggKind{AggSum, AggAvg} {
				if got, want := formatAgg(t, &st, k, arg), formatAgg(t, &batch, k, arg); got != want {
					t.Fatalf("%s step %d: %s %s, batch %s (special %v)", arg, i, k, got, want, st.Special)
				}
			}
		}
	}
}

// TestSumSpecialPartial: a running sum resumed from a NaN or infinite
// partial (a window frame's) still combines with later inputs.
func TestSumSpecialPartial(t *testing.T) {
	var st SumState
	inf, _ := types.Parse("Infinity", types.TNumeric)
	if err := st.AddPartial(inf, 1); err != nil {
		t.Fatal(err)
	}
	d, _ := types.Parse("-Infinity", types.TNumeric)
	if err := st.Accumulate(d, types.TNumeric, false); err != nil {
		t.Fatal(err)
	}
	if got := formatAgg(t, &st, AggSum, types.TNumeric); got != "NaN" {
		t.Fatalf("Infinity then -Infinity: %s", got)
	}
	if _, err := ParseSpecialCounts("1,2"); err == nil {
		t.Error("ParseSpecialCounts accepted two counts")
	}
}
