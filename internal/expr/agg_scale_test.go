package expr

import (
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// TestSumStateScales: a sum that counts its inputs' scales has, after a
// retraction, the scale PostgreSQL's sum over the remaining inputs has;
// one that does not keeps the largest it has seen.
func TestSumStateScales(t *testing.T) {
	dec := func(s string) *apd.Decimal {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		track     bool
		sum, avg  string
		roundTrip bool
	}{
		{track: true, sum: "2.5", avg: "2.5000000000000000", roundTrip: true},
		{track: false, sum: "2.500", avg: "2.5000000000000000"},
	} {
		var st SumState
		if tc.track {
			st.Scales = ScaleCounts{}
		}
		for _, step := range []struct {
			v       string
			retract bool
		}{{"1.50", false}, {"2.5", false}, {"0.125", false}, {"0.125", true}, {"1.50", true}} {
			if err := st.Accumulate(dec(step.v), types.TNumeric, step.retract); err != nil {
				t.Fatal(err)
			}
			if tc.roundTrip && st.Scales != nil {
				sc, err := ParseScaleCounts(st.Scales.String())
				if err != nil || sc.String() != st.Scales.String() {
					t.Fatalf("scale counts %q round-trip to %q, %v", st.Scales, sc, err)
				}
				st.Scales = sc
			}
		}
		sum, err := st.Result(false, types.TNumeric)
		if err != nil {
			t.Fatal(err)
		}
		avg, err := st.Result(true, types.TNumeric)
		if err != nil {
			t.Fatal(err)
		}
		if got := sum.(*apd.Decimal).String(); got != tc.sum {
			t.Errorf("track %v: sum %s, want %s", tc.track, got, tc.sum)
		}
		if got := avg.(*apd.Decimal).String(); got != tc.avg {
			t.Errorf("track %v: avg %s, want %s", tc.track, got, tc.avg)
		}
	}
	if _, err := ParseScaleCounts("2:x"); err == nil {
		t.Error("bad scale counts parsed")
	}
}
