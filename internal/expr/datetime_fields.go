package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// fields are the calendar fields of a finite timestamp.
type fields struct {
	days    int64 // day number
	micros  int64 // since midnight
	y, m, d int   // astronomical year (0 = 1 BC)
}

func splitFields(ts types.Timestamp) fields {
	days, micros := types.SplitTimestamp(ts)
	y, m, d := types.CivilFromDays(days)
	return fields{days: days, micros: micros, y: y, m: m, d: d}
}

// isodow is the ISO day of the week, Monday 1 to Sunday 7.
func (f fields) isodow() int64 {
	dow := (f.days+4)%7 + 7
	if dow%7 == 0 {
		return 7
	}
	return dow % 7
}

// isoWeek returns the ISO 8601 year and week number.
func (f fields) isoWeek() (year, week int64) {
	thursday := f.days + 4 - f.isodow()
	y, _, _ := types.CivilFromDays(thursday)
	return int64(y), (thursday-types.DaysFromCivil(y, 1, 1))/7 + 1
}

// calendarField returns a field that timestamps and dates share, exactly.
func (f fields) calendarField(unit string) (int64, bool) {
	y := int64(f.y)
	switch unit {
	case "day":
		return int64(f.d), true
	case "month":
		return int64(f.m), true
	case "quarter":
		return int64(f.m-1)/3 + 1, true
	case "year":
		if y > 0 {
			return y, true
		}
		return y - 1, true
	case "decade":
		if y > 0 {
			return y / 10, true
		}
		return -((8 - (y - 1)) / 10), true
	case "century":
		if y > 0 {
			return (y + 99) / 100, true
		}
		return -((99 - (y - 1)) / 100), true
	case "millennium":
		if y > 0 {
			return (y + 999) / 1000, true
		}
		return -((999 - (y - 1)) / 1000), true
	case "dow":
		return f.isodow() % 7, true
	case "isodow":
		return f.isodow(), true
	case "doy":
		return f.days - types.DaysFromCivil(f.y, 1, 1) + 1, true
	case "week":
		_, w := f.isoWeek()
		return w, true
	case "isoyear":
		iy, _ := f.isoWeek()
		if iy > 0 {
			return iy, true
		}
		return iy - 1, true
	}
	return 0, false
}

// extractTimestamp is extract(unit from ts) as a numeric (Postgres 14+).
func extractTimestamp(unit string, ts types.Timestamp, t types.Type) (types.Datum, error) {
	if types.IsInfinite(ts) {
		return infiniteField(unit, ts == types.TimestampNegInfinity), nil
	}
	f := splitFields(ts)
	if v, ok := f.calendarField(unit); ok {
		return apd.New(v, 0), nil
	}
	secs := f.micros % types.MicrosPerMinute
	switch unit {
	case "microseconds":
		return apd.New(secs, 0), nil
	case "milliseconds":
		return apd.New(secs, -3), nil
	case "second":
		return apd.New(secs, -6), nil
	case "minute":
		return apd.New(f.micros/types.MicrosPerMinute%60, 0), nil
	case "hour":
		return apd.New(f.micros/types.MicrosPerHour, 0), nil
	case "epoch":
		return apd.New(int64(ts), -6), nil
	case "julian":
		day, err := numericArith("/")([]types.Datum{apd.New(f.micros, 0), apd.New(types.MicrosPerDay, 0)})
		if err != nil {
			return nil, err
		}
		return numericArith("+")([]types.Datum{apd.New(f.days+julianOffset, 0), day})
	case "timezone", "timezone_hour", "timezone_minute":
		if t.ID == types.IDTimestampTZ {
			return apd.New(0, 0), nil
		}
	}
	return nil, unitError(unit, t, true)
}

// julianOffset is the Julian day number of 1970-01-01.
const julianOffset = 2440588

// infiniteField is a field of an infinite timestamp: +/-Infinity for the
// unbounded fields, NULL for the others.
func infiniteField(unit string, neg bool) types.Datum {
	switch unit {
	case "epoch", "year", "decade", "century", "millennium", "julian", "isoyear":
		return &apd.Decimal{Form: apd.Infinite, Negative: neg}
	}
	return nil
}

// extractDate is extract(unit from date): whole-number fields only.
func extractDate(unit string, d types.Date) (types.Datum, error) {
	if types.IsInfinite(d) {
		return infiniteField(unit, d == types.DateNegInfinity), nil
	}
	f := fields{days: int64(d)}
	f.y, f.m, f.d = types.CivilFromDays(f.days)
	if v, ok := f.calendarField(unit); ok {
		return apd.New(v, 0), nil
	}
	switch unit {
	case "epoch":
		return apd.New(f.days*86400, 0), nil
	case "julian":
		return apd.New(f.days+julianOffset, 0), nil
	}
	return nil, unitError(unit, types.TDate, true)
}

// extractInterval is extract(unit from interval).
func extractInterval(unit string, iv types.Interval) (types.Datum, error) {
	year, mon := int64(iv.Months/12), int64(iv.Months%12)
	secs := iv.Micros % types.MicrosPerMinute
	switch unit {
	case "microseconds":
		return apd.New(secs, 0), nil
	case "milliseconds":
		return apd.New(secs, -3), nil
	case "second":
		return apd.New(secs, -6), nil
	case "minute":
		return apd.New(iv.Micros/types.MicrosPerMinute%60, 0), nil
	case "hour":
		return apd.New(iv.Micros/types.MicrosPerHour, 0), nil
	case "day":
		return apd.New(int64(iv.Days), 0), nil
	case "month":
		return apd.New(mon, 0), nil
	case "quarter":
		return apd.New(mon/3+1, 0), nil
	case "year":
		return apd.New(year, 0), nil
	case "decade":
		return apd.New(year/10, 0), nil
	case "century":
		return apd.New(year/100, 0), nil
	case "millennium":
		return apd.New(year/1000, 0), nil
	case "epoch":
		secs := 31557600*year + 30*86400*mon + 86400*int64(iv.Days) // a year is 365.25 days
		return apd.New(secs*types.MicrosPerSecond+iv.Micros, -6), nil
	}
	return nil, unitError(unit, types.TInterval, true)
}

// extractFn is extract(field from source) for a source of type t.
func extractFn(t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		unit, ok := canonicalUnit(a[0].(string))
		if !ok {
			return nil, unitError(a[0].(string), t, false)
		}
		switch t.ID {
		case types.IDTime:
			return extractTime(unit, a[1].(int64))
		case types.IDTimeTZ:
			return extractTimeTZ(unit, a[1].(int64))
		}
		switch v := a[1].(type) {
		case types.Date:
			return extractDate(unit, v)
		case types.Interval:
			return extractInterval(unit, v)
		}
		return extractTimestamp(unit, a[1].(types.Timestamp), t)
	}
}

// datePart is date_part(field, source): extract as double precision.
func datePart(t types.Type) evalFn {
	ex := extractFn(t)
	return func(a []types.Datum) (types.Datum, error) {
		v, err := ex(a)
		if v == nil || err != nil {
			return nil, err
		}
		return numericToFloat(v.(*apd.Decimal)), nil
	}
}

// truncTimestamp is date_trunc(field, timestamp[tz]).
func truncTimestamp(t types.Type) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		ts := a[1].(types.Timestamp)
		unit, ok := canonicalUnit(a[0].(string))
		if !ok {
			return nil, unitError(a[0].(string), t, false)
		}
		if types.IsInfinite(ts) {
			return ts, nil
		}
		r, ok := truncFields(unit, splitFields(ts))
		if !ok {
			return nil, unitError(a[0].(string), t, unit != "epoch")
		}
		return r, nil
	}
}

// truncFields zeroes the fields of f below unit.
func truncFields(unit string, f fields) (types.Timestamp, bool) {
	us := f.micros
	switch unit {
	case "microseconds":
	case "milliseconds":
		us -= us % 1000
	case "second":
		us -= us % types.MicrosPerSecond
	case "minute":
		us -= us % types.MicrosPerMinute
	case "hour":
		us -= us % types.MicrosPerHour
	case "day":
		us = 0
	case "week":
		return types.Timestamp((f.days - f.isodow() + 1) * types.MicrosPerDay), true
	case "month", "quarter", "year", "decade", "century", "millennium":
		y, m := truncYearMonth(unit, f.y, f.m)
		return types.Timestamp(types.DaysFromCivil(y, m, 1) * types.MicrosPerDay), true
	default:
		return 0, false
	}
	return types.Timestamp(f.days*types.MicrosPerDay + us), true
}

// truncYearMonth truncates year and month for the month-or-larger units.
func truncYearMonth(unit string, y, m int) (int, int) {
	switch unit {
	case "month":
		return y, m
	case "quarter":
		return y, 3*((m-1)/3) + 1
	case "decade":
		if y > 0 {
			return y / 10 * 10, 1
		}
		return -((8 - (y - 1)) / 10) * 10, 1
	case "century":
		if y > 0 {
			return (y+99)/100*100 - 99, 1
		}
		return -((99-(y-1))/100)*100 + 1, 1
	case "millennium":
		if y > 0 {
			return (y+999)/1000*1000 - 999, 1
		}
		return -((999-(y-1))/1000)*1000 + 1, 1
	}
	return y, 1
}

// truncInterval is date_trunc(field, interval).
func truncInterval(a []types.Datum) (types.Datum, error) {
	iv := a[1].(types.Interval)
	unit, ok := canonicalUnit(a[0].(string))
	if !ok {
		return nil, unitError(a[0].(string), types.TInterval, false)
	}
	year, mon := iv.Months/12, iv.Months%12
	us := iv.Micros
	switch unit {
	case "millennium", "century", "decade", "year", "quarter", "month":
		div := map[string]int32{"millennium": 1000, "century": 100, "decade": 10, "year": 1}[unit]
		if div > 0 {
			year, mon = year/div*div, 0
		} else if unit == "quarter" {
			mon = mon / 3 * 3
		}
		return types.Interval{Months: year*12 + mon}, nil
	case "day":
		us = 0
	case "hour":
		us -= us % types.MicrosPerHour
	case "minute":
		us -= us % types.MicrosPerMinute
	case "second":
		us -= us % types.MicrosPerSecond
	case "milliseconds":
		us -= us % 1000
	case "microseconds":
	default:
		return nil, unitError(unit, types.TInterval, true)
	}
	return types.Interval{Months: iv.Months, Days: iv.Days, Micros: us}, nil
}
