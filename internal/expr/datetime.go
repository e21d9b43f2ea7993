package expr

import (
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// dateAddDays is date + n days.
func dateAddDays(d types.Date, n int64) (types.Datum, error) {
	if types.IsInfinite(d) {
		return d, nil
	}
	r := int64(d) + n
	if !types.DateValid(types.Date(r)) {
		return nil, errDateRange
	}
	return types.Date(r), nil
}

// dateDiff is date - date, in days.
func dateDiff(a, b types.Date) (types.Datum, error) {
	if types.IsInfinite(a) || types.IsInfinite(b) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
	}
	return int64(a) - int64(b), nil
}

// addInterval is timestamp + interval as Postgres computes it: months
// first (clamping the day to the month's end), then days, then time.
func addInterval(ts types.Timestamp, iv types.Interval) (types.Datum, error) {
	if types.IsInfinite(ts) {
		return ts, nil
	}
	days, micros := types.SplitTimestamp(ts)
	if iv.Months != 0 {
		y, m, d := types.CivilFromDays(days)
		total := int64(y)*12 + int64(m-1) + int64(iv.Months)
		y, m = int(floorDivInt(total, 12)), int(total-floorDivInt(total, 12)*12)+1
		d = min(d, types.DaysInMonth(y, m))
		days = types.DaysFromCivil(y, m, d)
	}
	days += int64(iv.Days)
	if days < -math.MaxInt64/types.MicrosPerDay || days > math.MaxInt64/types.MicrosPerDay {
		return nil, errTimestampRange
	}
	base := days*types.MicrosPerDay + micros
	r, ok := int64Op("+", base, iv.Micros)
	if !ok || !types.TimestampValid(types.Timestamp(r)) {
		return nil, errTimestampRange
	}
	return types.Timestamp(r), nil
}

// negInterval is -interval.
func negInterval(iv types.Interval) (types.Interval, error) {
	if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
		return types.Interval{}, errIntervalRange
	}
	return types.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}, nil
}

// timestampDiff is timestamp - timestamp: the difference in days and time,
// with whole days moved out of the time part (justify_hours).
func timestampDiff(a, b types.Timestamp) (types.Datum, error) {
	if types.IsInfinite(a) || types.IsInfinite(b) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d, ok := int64Op("-", int64(a), int64(b))
	if !ok {
		return nil, errIntervalRange
	}
	return types.Interval{Days: int32(d / types.MicrosPerDay), Micros: d % types.MicrosPerDay}, nil
}

// intervalAdd is interval + interval (sub negates b first).
func intervalAdd(a, b types.Interval, sub bool) (types.Datum, error) {
	if sub {
		var err error
		if b, err = negInterval(b); err != nil {
			return nil, err
		}
	}
	months := int64(a.Months) + int64(b.Months)
	days := int64(a.Days) + int64(b.Days)
	micros, ok := int64Op("+", a.Micros, b.Micros)
	if !ok || months != int64(int32(months)) || days != int64(int32(days)) {
		return nil, errIntervalRange
	}
	return types.Interval{Months: int32(months), Days: int32(days), Micros: micros}, nil
}

// tsRound rounds to microsecond precision in seconds, as TSROUND does.
func tsRound(f float64) float64 { return math.RoundToEven(f*1e6) / 1e6 }

// intervalScale is interval * factor (interval_mul); with div it is
// interval / factor (interval_div). Fractional months cascade into 30-day
// days and fractional days into time, as in Postgres.
func intervalScale(iv types.Interval, factor float64, div bool) (types.Datum, error) {
	if div && factor == 0 {
		return nil, errDivByZero
	}
	apply := func(x float64) float64 {
		if div {
			return x / factor
		}
		return x * factor
	}
	monthF, dayF := apply(float64(iv.Months)), apply(float64(iv.Days))
	if math.IsNaN(monthF) || math.Abs(monthF) >= math.MaxInt32+1 || math.IsNaN(dayF) || math.Abs(dayF) >= math.MaxInt32+1 {
		return nil, errIntervalRange
	}
	months, days := int32(monthF), int32(dayF)
	monthRemDays := tsRound((monthF - float64(months)) * 30)
	secRem := tsRound((dayF - float64(days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	days += int32(monthRemDays)
	micros := math.RoundToEven(apply(float64(iv.Micros)) + secRem*1e6)
	if math.IsNaN(micros) || math.Abs(micros) >= 9.223372036854775807e18 {
		return nil, errIntervalRange
	}
	return types.Interval{Months: months, Days: days, Micros: int64(micros)}, nil
}
