package expr

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// regrPair packs y and x as RegrPair does.
func regrPair(t *testing.T, y, x float64) types.Datum {
	t.Helper()
	e, err := RegrPair("corr", NewConst(y, types.TFloat64), NewConst(x, types.TFloat64))
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Eval(nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// regrResults are the values of every aggregate of the family over st,
// as text (NaN, -0 and NULL told apart).
func regrResults(t *testing.T, st *RegrState) string {
	t.Helper()
	out := ""
	for k := AggCorr; k <= AggRegrSYY; k++ {
		v, err := st.Result(k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if f, ok := v.(float64); ok {
			out += fmt.Sprintf("%s=%x ", k, math.Float64bits(f))
		} else {
			out += fmt.Sprintf("%s=%v ", k, v)
		}
	}
	return out
}

// TestRegrStateRetract: adding pairs and retracting some leaves exactly
// the state (and so the results) of adding only the others, NaN,
// infinities, huge and tiny values included; retracting all leaves the
// state of no input.
func TestRegrStateRetract(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e300, -1e-300, 5e-324, math.MaxFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), 123456789.123456789, 1.0 / 3}
	pick := func() float64 {
		if rng.Intn(3) == 0 {
			return rng.NormFloat64() * 1000
		}
		return vals[rng.Intn(len(vals))]
	}
	for round := 0; round < 200; round++ {
		pairs := make([]types.Datum, rng.Intn(12))
		for i := range pairs {
			pairs[i] = regrPair(t, pick(), pick())
		}
		gone := make([]bool, len(pairs))
		var all, kept RegrState
		for i, p := range pairs {
			if err := all.Accumulate(p, false); err != nil {
				t.Fatal(err)
			}
			if gone[i] = rng.Intn(2) == 0; !gone[i] {
				if err := kept.Accumulate(p, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		retract := func(which bool) {
			for i, p := range pairs {
				if gone[i] == which {
					if err := all.Accumulate(p, true); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		retract(true)
		if got, want := fmt.Sprint(all.StateColumns()), fmt.Sprint(kept.StateColumns()); got != want {
			t.Fatalf("round %d: state after retraction %s, without the retracted pairs %s", round, got, want)
		}
		if got, want := regrResults(t, &all), regrResults(t, &kept); got != want {
			t.Fatalf("round %d: results after retraction %s, without the retracted pairs %s", round, got, want)
		}
		retract(false)
		var empty RegrState
		if got, want := fmt.Sprint(all.StateColumns()), fmt.Sprint(empty.StateColumns()); got != want {
			t.Fatalf("round %d: state with every pair retracted %s, want %s", round, got, want)
		}
	}
}

// TestRegrStateColumns: a state read back from its columns is the same.
func TestRegrStateColumns(t *testing.T) {
	var st RegrState
	for _, p := range [][2]float64{{1, 2}, {3, math.NaN()}, {math.Inf(-1), 0.5}, {-7.25, 1e-20}} {
		if err := st.Accumulate(regrPair(t, p[0], p[1]), false); err != nil {
			t.Fatal(err)
		}
	}
	var back RegrState
	if err := back.SetStateColumns(st.StateColumns()); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(back.StateColumns()), fmt.Sprint(st.StateColumns()); got != want {
		t.Fatalf("state read back %s, want %s", got, want)
	}
	if got, want := regrResults(t, &back), regrResults(t, &st); got != want {
		t.Fatalf("results read back %s, want %s", got, want)
	}
	if err := back.SetStateColumns([]types.Datum{int64(1), nil, nil, nil, nil, nil, nil}); err == nil {
		t.Fatal("corrupt state read without an error")
	}
}

// TestRegrResult: PostgreSQL 15's values over a few inputs (where its
// float sums are exact).
func TestRegrResult(t *testing.T) {
	var st RegrState
	for _, p := range [][2]float64{{1, 2}, {3, 5}, {4, 4}} {
		if err := st.Accumulate(regrPair(t, p[0], p[1]), false); err != nil {
			t.Fatal(err)
		}
	}
	want := map[AggKind]float64{AggRegrAvgX: 3.6666666666666665, AggRegrAvgY: 2.6666666666666665,
		AggRegrSXX: 4.666666666666667, AggCovarSamp: 1.8333333333333333}
	for k, w := range want {
		if v, err := st.Result(k); err != nil || v != w {
			t.Errorf("%s = %v, %v; want %v", k, v, err, w)
		}
	}
	var one RegrState
	if err := one.Accumulate(regrPair(t, 5, 2), false); err != nil {
		t.Fatal(err)
	}
	for k, w := range map[AggKind]types.Datum{AggCovarPop: float64(0), AggCovarSamp: nil, AggCorr: nil,
		AggRegrSlope: nil, AggRegrSXX: float64(0), AggRegrAvgX: float64(2)} {
		if v, err := one.Result(k); err != nil || v != w {
			t.Errorf("one pair: %s = %v, %v; want %v", k, v, err, w)
		}
	}
}

// TestRegrPairNull: the pair is NULL when either argument is; a type
// without a cast to double precision is refused with the call's name.
func TestRegrPairNull(t *testing.T) {
	for _, args := range [][2]Expr{{NewConst(nil, types.TFloat64), NewConst(1.0, types.TFloat64)},
		{NewConst(int64(1), types.TInt32), NewConst(nil, types.TNumeric)}} {
		e, err := RegrPair("regr_slope", args[0], args[1])
		if err != nil {
			t.Fatal(err)
		}
		if v, err := e.Eval(nil); err != nil || v != nil {
			t.Errorf("%s = %v, %v; want NULL", e, v, err)
		}
	}
	_, err := RegrPair("regr_slope", NewConst("a", types.TText), NewConst(1.0, types.TFloat64))
	if pe, ok := err.(*pgerr.Error); !ok || pe.Code != pgerr.UndefinedFunction || pe.Message != "function regr_slope(text, double precision) does not exist" {
		t.Errorf("regr_slope(text, double precision): %v", err)
	}
}
