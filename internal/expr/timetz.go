package expr

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// time with time zone (timetz): its Datum packs the time of day and the
// zone in an int64 ordered as timetz_cmp orders (types/timetz.go). As in
// Postgres: timetz ± interval moves the time of day around midnight and
// keeps the zone; date + timetz is a timestamptz; time converts to it
// implicitly, in the session zone's offset of today, and timetz to time
// (dropping the zone) and timestamptz to timetz (its local time and
// offset in the session zone) in assignments.

const tTimeTZ = types.IDTimeTZ

func init() {
	for _, op := range comparisons {
		addBinary(op, tTimeTZ, tTimeTZ, tBool, comparison(op, types.TTimeTZ))
	}
	addBinary("+", tTimeTZ, tIvl, tTimeTZ, func(a []types.Datum) (types.Datum, error) {
		return timeTZAddInterval(a[0].(int64), a[1].(types.Interval).Micros), nil
	})
	addBinary("+", tIvl, tTimeTZ, tTimeTZ, func(a []types.Datum) (types.Datum, error) {
		return timeTZAddInterval(a[1].(int64), a[0].(types.Interval).Micros), nil
	})
	addBinary("-", tTimeTZ, tIvl, tTimeTZ, func(a []types.Datum) (types.Datum, error) {
		return timeTZAddInterval(a[0].(int64), -(a[1].(types.Interval).Micros % types.MicrosPerDay)), nil
	})
	addBinary("+", tDate, tTimeTZ, tTSTZ, func(a []types.Datum) (types.Datum, error) {
		return dateAddTimeTZ(a[0].(types.Date), a[1].(int64))
	})
	addBinary("+", tTimeTZ, tDate, tTSTZ, func(a []types.Datum) (types.Datum, error) {
		return dateAddTimeTZ(a[1].(types.Date), a[0].(int64))
	})
}

// timeTZAtZone is timezone(text, timetz), timetz AT TIME ZONE zone
// (timetz_zone): the same instant in the zone, whose offset is the one
// it has now for a zone name with daylight saving time, as in
// PostgreSQL. A time converts to timetz (in the session's zone) first.
func timeTZAtZone(a []types.Datum) (types.Datum, error) {
	nz, err := types.LookupNamedZone(a[0].(string))
	if err != nil {
		return nil, err
	}
	now := systemNow()
	return timeTZInZone(a[1].(int64), -int64(nz.Local(now)-now)/types.MicrosPerSecond)
}

// timeTZAtIntervalZone is timezone(interval, timetz) (timetz_izone): the
// zone the interval's hours, minutes and seconds east of UTC.
func timeTZAtIntervalZone(a []types.Datum) (types.Datum, error) {
	iv := a[0].(types.Interval)
	if iv.Months != 0 || iv.Days != 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue,
			"interval time zone \"%s\" must not include months or days", types.FormatInterval(iv))
	}
	return timeTZInZone(a[1].(int64), -iv.Micros/types.MicrosPerSecond)
}

// timeTZInZone is v's instant as a time of day in zone (seconds west of
// UTC), modulo a day; 22009 for a zone beyond ±15:59:59.
func timeTZInZone(v int64, zone int64) (types.Datum, error) {
	t, from := types.SplitTimeTZ(v)
	r := timeAddInterval(t, (int64(from)-zone)*types.MicrosPerSecond)
	if !types.TimeTZValid(r, int32(zone)) || zone != int64(int32(zone)) {
		return nil, pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range")
	}
	return types.PackTimeTZ(r, int32(zone)), nil
}

// timeTZAddInterval is timetz_pl_interval: the time of day moves modulo
// a day, the zone stays.
func timeTZAddInterval(v, micros int64) int64 {
	t, zone := types.SplitTimeTZ(v)
	return types.PackTimeTZ(timeAddInterval(t, micros), zone)
}

// dateAddTimeTZ is date + timetz (datetimetz_timestamptz).
func dateAddTimeTZ(d types.Date, v int64) (types.Datum, error) {
	ts, err := dateToTimestamp(d)
	if err != nil || types.IsInfinite(ts) {
		return ts, err
	}
	t, zone := types.SplitTimeTZ(v)
	r := ts.(types.Timestamp) + types.Timestamp(t+int64(zone)*types.MicrosPerSecond)
	if !types.TimestampValid(r) {
		return nil, errTimestampRange
	}
	return r, nil
}

// extractTimeTZ is extract(unit from timetz).
func extractTimeTZ(unit string, v int64) (types.Datum, error) {
	t, zone := types.SplitTimeTZ(v)
	east := -int64(zone)
	switch unit {
	case "timezone":
		return apd.New(east, 0), nil
	case "timezone_hour":
		return apd.New(east/3600, 0), nil
	case "timezone_minute":
		return apd.New(east/60%60, 0), nil
	case "epoch":
		return apd.New(t+int64(zone)*types.MicrosPerSecond, -6), nil
	}
	d, err := extractTime(unit, t)
	if err != nil {
		return nil, unitError(unit, types.TTimeTZ, true)
	}
	return d, nil
}

// timeTZCastLevel decides castLevel for casts to and from timetz: from
// time implicitly; to time and from timestamptz in assignments; to and
// from the string types as any type's I/O; nothing else.
func timeTZCastLevel(from, to types.ID) (castContext, bool, bool) {
	switch {
	case from != tTimeTZ && to != tTimeTZ:
		return 0, false, false
	case from == tTime && to == tTimeTZ:
		return ctxImplicit, true, true
	case from == tTimeTZ && to == tTime, from == tTSTZ && to == tTimeTZ:
		return ctxAssign, true, true
	case category(to) == catString:
		return ctxAssign, true, true
	case category(from) == catString:
		return ctxExplicit, true, true
	}
	return 0, false, true
}

// timeTZConverter converts to and from timetz in zone z (the session's;
// nil: UTC); nil for other casts.
func timeTZConverter(from, to types.Type, z *types.Zone) convertFn {
	switch {
	case from.ID == tTimeTZ && to.ID == tTimeTZ:
		return func(v types.Datum) (types.Datum, error) {
			t, zone := types.SplitTimeTZ(v.(int64))
			return types.PackTimeTZ(types.RoundTime(t, to), zone), nil
		}
	case from.ID == tTimeTZ && to.ID == tTime:
		return func(v types.Datum) (types.Datum, error) {
			t, _ := types.SplitTimeTZ(v.(int64))
			return types.RoundTime(t, to), nil
		}
	case from.ID == tTime && to.ID == tTimeTZ:
		return func(v types.Datum) (types.Datum, error) {
			// time_timetz: the session zone's offset on today's date.
			y, m, d := time.Now().UTC().Date()
			t := types.RoundTime(v.(int64), to)
			east := z.LocalOffset(types.Timestamp(types.DaysFromCivil(y, int(m), d)*types.MicrosPerDay + t))
			return types.PackTimeTZ(t, int32(-east)), nil
		}
	case from.ID == tTSTZ && to.ID == tTimeTZ:
		return func(v types.Datum) (types.Datum, error) {
			ts := v.(types.Timestamp)
			if types.IsInfinite(ts) {
				return nil, nil // timestamptz_timetz: NULL for infinity
			}
			_, t := types.SplitTimestamp(localTime(ts, z))
			return types.PackTimeTZ(types.RoundTime(t, to), int32(-z.Offset(ts))), nil
		}
	}
	return nil
}

// ConvertsTimeTZByZoneName reports whether e converts a time with time
// zone to a named zone (timetz AT TIME ZONE 'Europe/Paris'): the offset
// is the zone's offset when the call runs (PostgreSQL's timetz_zone is
// not immutable), so a materialized view or a generated column would
// keep a value its query no longer gives after a daylight-saving change.
func ConvertsTimeTZByZoneName(e Expr) bool {
	if c, ok := e.(*call); ok && c.name == "timezone" && len(c.args) == 2 &&
		c.args[0].Type().ID == types.IDText && c.args[1].Type().ID == types.IDTimeTZ {
		return true
	}
	for _, c := range e.Children() {
		if ConvertsTimeTZByZoneName(c) {
			return true
		}
	}
	return false
}
