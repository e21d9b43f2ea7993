package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// roundTrip formats d as t and parses it back.
func roundTrip(t *testing.T, d Datum, typ Type) Datum {
	t.Helper()
	s := Format(d, typ)
	back, err := Parse(s, typ)
	if err != nil {
		t.Fatalf("Parse(Format(%v)) = Parse(%q): %v", d, s, err)
	}
	return back
}

func FuzzRoundTripInt(f *testing.F) {
	for _, n := range []int64{0, -1, math.MaxInt64, math.MinInt64, 32767} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		if got := roundTrip(t, n, TInt64); got != n {
			t.Fatalf("%d -> %v", n, got)
		}
	})
}

func FuzzRoundTripFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), 0.1, 1e15, 1e-5, 5e-324, math.MaxFloat64, math.Inf(1), math.NaN()} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := roundTrip(t, x, TFloat64).(float64)
		if math.Float64bits(got) != math.Float64bits(x) && !(math.IsNaN(x) && math.IsNaN(got)) {
			t.Fatalf("%v -> %v", x, got)
		}
		x32 := float64(float32(x))
		got32 := roundTrip(t, x32, TFloat32).(float64)
		if math.Float64bits(got32) != math.Float64bits(x32) && !(math.IsNaN(x32) && math.IsNaN(got32)) {
			t.Fatalf("real %v -> %v", x32, got32)
		}
	})
}

func FuzzRoundTripNumeric(f *testing.F) {
	for _, s := range []string{"0", "1.50", "-123456789012345678901234567890.000001", "NaN", "-Infinity", "1e-20"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s, TNumeric)
		if err != nil {
			return
		}
		got := roundTrip(t, d, TNumeric).(*apd.Decimal)
		if Format(got, TNumeric) != Format(d, TNumeric) {
			t.Fatalf("%q: %s -> %s", s, Format(d, TNumeric), Format(got, TNumeric))
		}
	})
}

func FuzzRoundTripDateTime(f *testing.F) {
	f.Add(int32(0), int64(0))
	f.Add(int32(-2440588), int64(-1))
	f.Add(int32(2145042905), int64(math.MaxInt64/2))
	f.Fuzz(func(t *testing.T, days int32, micros int64) {
		if d := Date(days); DateValid(d) || IsInfinite(d) {
			if got := roundTrip(t, d, TDate); got != d {
				t.Fatalf("date %d -> %v", days, got)
			}
		}
		ts := Timestamp(micros)
		if TimestampValid(ts) || IsInfinite(ts) {
			for _, typ := range []Type{TTimestamp, TTimestampTZ} {
				if got := roundTrip(t, ts, typ); got != ts {
					t.Fatalf("%s %d (%s) -> %v", typ, micros, Format(ts, typ), got)
				}
			}
		}
	})
}

func FuzzRoundTripInterval(f *testing.F) {
	f.Add(int32(14), int32(-3), int64(1500000))
	f.Add(int32(math.MinInt32+1), int32(math.MaxInt32), int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, months, days int32, micros int64) {
		iv := Interval{Months: months, Days: days, Micros: micros}
		if got := roundTrip(t, iv, TInterval); got != iv {
			t.Fatalf("%+v (%s) -> %+v", iv, Format(iv, TInterval), got)
		}
	})
}

// FuzzParse checks that no input makes Parse panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1 day 02:03:04", "2024-01-02T03:04:05+05:30", "P1Y2M", "-1.5e3", "t"} {
		f.Add(s)
	}
	all := []Type{TBool, TInt16, TInt32, TInt64, TFloat32, TFloat64, TNumeric, {ID: IDNumeric, Precision: 5, Scale: 2},
		TText, {ID: IDVarchar, Width: 3}, TDate, TTimestamp, TTimestampTZ, TInterval, TBytea,
		TUUID, TTime, {ID: IDTime, Precision: 1}, TBpchar, {ID: IDBpchar, Width: 3}, TTimeTZ, TInet, TCidr}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range all {
			if d, err := Parse(s, typ); err == nil {
				_ = Format(d, typ)
			}
		}
	})
}
