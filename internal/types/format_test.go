package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

var pointOne = 0.1 // a variable, so that 0.1 + 0.2 is float arithmetic

// TestFormat checks output of Datums built directly; expectations were
// checked against Postgres 15.
func TestFormat(t *testing.T) {
	ts := func(y, m, d int, micros int64) Timestamp {
		return Timestamp(DaysFromCivil(y, m, d)*MicrosPerDay + micros)
	}
	cases := []struct {
		d    Datum
		t    Type
		want string
	}{
		{true, TBool, "t"},
		{false, TBool, "f"},
		{int64(-42), TInt32, "-42"},
		{123456789012345678.0, TFloat64, "1.2345678901234568e+17"},
		{1e15, TFloat64, "1e+15"},
		{1e14, TFloat64, "100000000000000"},
		{5e-324, TFloat64, "5e-324"},
		{0.000123, TFloat64, "0.000123"},
		{pointOne + 0.2, TFloat64, "0.30000000000000004"},
		{math.Copysign(0, -1), TFloat64, "-0"},
		{math.NaN(), TFloat64, "NaN"},
		{math.Inf(-1), TFloat32, "-Infinity"},
		{float64(float32(1.5e-7)), TFloat32, "1.5e-07"},
		{float64(float32(0.1)), TFloat32, "0.1"},
		{1234567.0, TFloat32, "1.234567e+06"},
		{123456.0, TFloat32, "123456"},
		{apd.New(150, -2), TNumeric, "1.50"},
		{apd.New(15, 2), TNumeric, "1500"},
		{&apd.Decimal{Negative: true}, TNumeric, "0"},
		{&apd.Decimal{Form: apd.NaN}, TNumeric, "NaN"},
		{&apd.Decimal{Form: apd.Infinite, Negative: true}, TNumeric, "-Infinity"},
		{"héllo", TText, "héllo"},
		{Date(0), TDate, "1970-01-01"},
		{Date(DaysFromCivil(0, 12, 31)), TDate, "0001-12-31 BC"},
		{DateInfinity, TDate, "infinity"},
		{ts(-43, 3, 15, 12*MicrosPerHour+250000), TTimestamp, "0044-03-15 12:00:00.25 BC"},
		{Timestamp(-1), TTimestampTZ, "1969-12-31 23:59:59.999999+00"},
		{ts(2024, 1, 2, 3*MicrosPerHour+4*MicrosPerMinute+5*MicrosPerSecond+500000), TTimestamp, "2024-01-02 03:04:05.5"},
		{TimestampNegInfinity, TTimestampTZ, "-infinity"},
		{Interval{Months: 14, Days: 3, Micros: 4*MicrosPerHour + 5*MicrosPerMinute + 6*MicrosPerSecond}, TInterval, "1 year 2 mons 3 days 04:05:06"},
		{Interval{}, TInterval, "00:00:00"},
		{Interval{Days: -1}, TInterval, "-1 days"},
		{Interval{Months: -14}, TInterval, "-1 years -2 mons"},
		{Interval{Days: 1, Micros: -1}, TInterval, "1 day -00:00:00.000001"},
		{Interval{Micros: 100 * MicrosPerHour}, TInterval, "100:00:00"},
		{Interval{Days: -1, Micros: 2 * MicrosPerHour}, TInterval, "-1 days +02:00:00"},
		{Interval{Months: 11}, TInterval, "11 mons"},
		{Interval{Months: -1, Days: -1, Micros: -MicrosPerSecond}, TInterval, "-1 mons -1 days -00:00:01"},
		{Interval{Days: 1, Micros: 1500000}, TInterval, "1 day 00:00:01.5"},
		{Interval{Micros: math.MinInt64}, TInterval, "-2562047788:00:54.775808"},
	}
	for _, c := range cases {
		if got := Format(c.d, c.t); got != c.want {
			t.Errorf("Format(%v, %s) = %q, want %q", c.d, c.t, got, c.want)
		}
	}
}

func TestCivilRoundTrip(t *testing.T) {
	for days := int64(minDate); days <= int64(maxDate); days += 9973 {
		y, m, d := CivilFromDays(days)
		if got := DaysFromCivil(y, m, d); got != days {
			t.Fatalf("day %d -> %d-%d-%d -> %d", days, y, m, d, got)
		}
	}
	if y, m, d := CivilFromDays(int64(minDate)); y != -4713 || m != 11 || d != 24 {
		t.Errorf("first date %d-%d-%d, want 4714-11-24 BC", y, m, d)
	}
}

func TestApplyTypmod(t *testing.T) {
	n := func(s string) *apd.Decimal { d, _, _ := apd.NewFromString(s); return d }
	t52 := Type{ID: IDNumeric, Precision: 5, Scale: 2}
	for in, want := range map[string]string{"1.005": "1.01", "-1.005": "-1.01", "999.994": "999.99", "0": "0.00", "-0.001": "0.00"} {
		got, err := ApplyTypmod(n(in), t52)
		if err != nil || FormatNumeric(got) != want {
			t.Errorf("%s::numeric(5,2) = %v, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ApplyTypmod(n("999.995"), t52); err == nil {
		t.Error("999.995::numeric(5,2) did not overflow")
	}
	if got := FormatNumeric(RoundNumeric(n("1234.5"), -2)); got != "1200" {
		t.Errorf("round(1234.5, -2) = %s", got)
	}
}
