package expr

import (
	"math"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// registerDateTime adds date_trunc, date_part, extract, to_timestamp,
// make_date and the functions of the current time (clock.go).
func registerDateTime() {
	register(overloads(
		fn2(tText, tTS, tTS, truncTimestamp(types.TTimestamp)),
		fn2(tText, tTSTZ, tTSTZ, truncTimestamp(types.TTimestampTZ)),
		fn2(tText, tIvl, tIvl, truncInterval),
		fn3(tText, tTSTZ, tText, tTSTZ, truncTimestampAtZone),
	), "date_trunc")
	register(overloads(
		fn2(tText, tDate, tFloat8, datePartOfDate),
		fn2(tText, tTS, tFloat8, datePart(types.TTimestamp)),
		fn2(tText, tTSTZ, tFloat8, datePart(types.TTimestampTZ)),
		fn2(tText, tIvl, tFloat8, datePart(types.TInterval)),
		fn2(tText, tTime, tFloat8, datePart(types.TTime)),
		fn2(tText, tTimeTZ, tFloat8, datePart(types.TTimeTZ)),
	), "date_part")
	register(overloads(
		fn2(tText, tDate, tNum, extractFn(types.TDate)),
		fn2(tText, tTS, tNum, extractFn(types.TTimestamp)),
		fn2(tText, tTSTZ, tNum, extractFn(types.TTimestampTZ)),
		fn2(tText, tIvl, tNum, extractFn(types.TInterval)),
		fn2(tText, tTime, tNum, extractFn(types.TTime)),
		fn2(tText, tTimeTZ, tNum, extractFn(types.TTimeTZ)),
	), "extract")
	register(overloads(fn1(tFloat8, tTSTZ, toTimestamp), fn2(tText, tText, tTSTZ, toTimestampText)), "to_timestamp")
	register(overloads(fn3(tInt4, tInt4, tInt4, tDate, makeDate)), "make_date")
	registerClock()
}

// toTimestamp is to_timestamp(seconds since the Unix epoch).
func toTimestamp(a []types.Datum) (types.Datum, error) {
	f := a[0].(float64)
	switch {
	case math.IsNaN(f):
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
	case math.IsInf(f, 1):
		return types.TimestampInfinity, nil
	case math.IsInf(f, -1):
		return types.TimestampNegInfinity, nil
	}
	us := math.RoundToEven(f * 1e6)
	if us < -9.2e18 || us > 9.2e18 || !types.TimestampValid(types.Timestamp(us)) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", types.FormatFloat(f, 64))
	}
	return types.Timestamp(us), nil
}

// makeDate is make_date(year, month, day); negative years are BC.
func makeDate(a []types.Datum) (types.Datum, error) {
	y, m, d := a[0].(int64), a[1].(int64), a[2].(int64)
	bad := func() error {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if y == 0 || m < 1 || m > 12 || d < 1 {
		return nil, bad()
	}
	astro := y
	if y < 0 {
		astro = y + 1
	}
	if astro < -4713 || astro > 5874897 || d > int64(types.DaysInMonth(int(astro), int(m))) {
		return nil, bad()
	}
	days := types.DaysFromCivil(int(astro), int(m), int(d))
	if !types.DateValid(types.Date(days)) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%d-%02d-%02d\"", y, m, d)
	}
	return types.Date(days), nil
}

// unitError is the error of a field name a function does not know (22023)
// or does not support for the type (0A000).
func unitError(unit string, t types.Type, known bool) error {
	if known {
		return pgerr.New(pgerr.FeatureNotSupported, "unit %q not supported for type %s", unit, t)
	}
	return pgerr.New(pgerr.InvalidParameterValue, "unit %q not recognized for type %s", unit, t)
}

// unitAliases maps the spellings Postgres accepts to canonical field names.
var unitAliases = map[string]string{
	"microsecond": "microseconds", "microseconds": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"quarter": "quarter", "qtr": "quarter",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
	"epoch": "epoch", "dow": "dow", "isodow": "isodow", "doy": "doy", "isoyear": "isoyear",
	"julian": "julian", "j": "julian", "timezone": "timezone", "timezone_hour": "timezone_hour",
	"timezone_minute": "timezone_minute",
}

// canonicalUnit normalizes a field name argument.
func canonicalUnit(s string) (string, bool) {
	u, ok := unitAliases[strings.ToLower(strings.TrimSpace(s))]
	return u, ok
}

// datePartOfDate is date_part(field, date): Postgres defines it as
// date_part(field, date::timestamp).
func datePartOfDate(a []types.Datum) (types.Datum, error) {
	ts, err := dateToTimestamp(a[1].(types.Date))
	if err != nil {
		return nil, err
	}
	return datePart(types.TTimestamp)([]types.Datum{a[0], ts})
}
