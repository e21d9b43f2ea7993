package types

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// spanOf is the span in microseconds, computed exactly.
func spanOf(iv Interval) *big.Int {
	s := big.NewInt(int64(iv.Months)*DaysPerMonth + int64(iv.Days))
	s.Mul(s, big.NewInt(MicrosPerDay))
	return s.Add(s, big.NewInt(iv.Micros))
}

func TestIntervalSpan(t *testing.T) {
	equal := [][]Interval{
		{{Months: 1}, {Days: 30}, {Micros: 720 * MicrosPerHour}, {Days: 29, Micros: 24 * MicrosPerHour}},
		{{Days: 1}, {Micros: 24 * MicrosPerHour}},
		{{Months: 1, Days: -30}, {}, {Days: 1, Micros: -24 * MicrosPerHour}},
		{{Months: 12}, {Days: 360}},
		{{Micros: -1}, {Days: -1, Micros: MicrosPerDay - 1}},
	}
	for _, ivs := range equal {
		d0, m0 := ivs[0].Span()
		for _, iv := range ivs[1:] {
			if d, m := iv.Span(); d != d0 || m != m0 {
				t.Errorf("%+v spans (%d, %d), %+v (%d, %d): want equal", iv, d, m, ivs[0], d0, m0)
			}
		}
	}
	if d, m := (Interval{Micros: -1}).Span(); d != -1 || m != MicrosPerDay-1 {
		t.Errorf("span of -1us = (%d, %d)", d, m)
	}
}

// TestIntervalSpanOrder: spans order as the exact span in microseconds,
// and IntervalOfSpan gives back an interval of the same span.
func TestIntervalSpanOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() Interval {
		switch rng.IntN(3) {
		case 0:
			return Interval{Months: int32(rng.Uint32()), Days: int32(rng.Uint32()), Micros: int64(rng.Uint64())}
		case 1:
			return Interval{Months: int32(rng.IntN(5) - 2), Days: int32(rng.IntN(61) - 30), Micros: int64(rng.IntN(5)-2) * MicrosPerHour * 12}
		}
		extremes := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}
		return Interval{Months: int32(extremes[rng.IntN(5)] >> 32), Days: int32(extremes[rng.IntN(5)] >> 32), Micros: extremes[rng.IntN(5)]}
	}
	for range 20000 {
		a, b := gen(), gen()
		da, ma := a.Span()
		db, mb := b.Span()
		got := cmpPair(da, ma, db, mb)
		if want := spanOf(a).Cmp(spanOf(b)); got != want {
			t.Fatalf("%+v vs %+v: spans compare %d, exact %d", a, b, got, want)
		}
		back, ok := IntervalOfSpan(da, ma)
		if !ok || spanOf(back).Cmp(spanOf(a)) != 0 {
			t.Fatalf("IntervalOfSpan(%d, %d) of %+v = %+v, %v", da, ma, a, back, ok)
		}
	}
	if iv, _ := IntervalOfSpan(DaysPerMonth+1, MicrosPerHour); iv != (Interval{Months: 1, Days: 1, Micros: MicrosPerHour}) {
		t.Errorf("IntervalOfSpan(31 days 1 hour) = %+v", iv)
	}
	if iv, _ := IntervalOfSpan(-1, MicrosPerDay-1); iv != (Interval{Micros: -1}) {
		t.Errorf("IntervalOfSpan(-1us) = %+v", iv)
	}
	if _, ok := IntervalOfSpan(math.MaxInt64/2, 0); ok {
		t.Error("IntervalOfSpan of a span no interval has: ok")
	}
}

func cmpPair(a1, a2, b1, b2 int64) int {
	switch {
	case a1 != b1 && a1 < b1, a1 == b1 && a2 < b2:
		return -1
	case a1 != b1, a2 > b2:
		return 1
	}
	return 0
}
