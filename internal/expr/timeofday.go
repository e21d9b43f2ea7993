package expr

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// time [without time zone]: its Datum is an int64 of microseconds since
// midnight (types/timeofday.go). Its operators, casts and fields are
// Postgres's: time ± interval wraps around midnight and ignores the
// interval's days and months, time - time is an interval, date + time a
// timestamp; time converts to interval implicitly, and from interval,
// timestamp and timestamptz in assignments.

const tTime = types.IDTime

func init() {
	for _, op := range comparisons {
		addBinary(op, tTime, tTime, tBool, comparison(op, types.TTime))
	}
	addBinary("+", tTime, tIvl, tTime, func(a []types.Datum) (types.Datum, error) {
		return timeAddInterval(a[0].(int64), a[1].(types.Interval).Micros), nil
	})
	addBinary("+", tIvl, tTime, tTime, func(a []types.Datum) (types.Datum, error) {
		return timeAddInterval(a[1].(int64), a[0].(types.Interval).Micros), nil
	})
	addBinary("-", tTime, tIvl, tTime, func(a []types.Datum) (types.Datum, error) {
		return timeAddInterval(a[0].(int64), -(a[1].(types.Interval).Micros % types.MicrosPerDay)), nil
	})
	addBinary("-", tTime, tTime, tIvl, func(a []types.Datum) (types.Datum, error) {
		return types.Interval{Micros: a[0].(int64) - a[1].(int64)}, nil
	})
	addBinary("+", tDate, tTime, tTS, func(a []types.Datum) (types.Datum, error) {
		return dateAddTime(a[0].(types.Date), a[1].(int64))
	})
	addBinary("+", tTime, tDate, tTS, func(a []types.Datum) (types.Datum, error) {
		return dateAddTime(a[1].(types.Date), a[0].(int64))
	})
	register(overloads(fn3(tInt4, tInt4, tFloat8, tTime, makeTime)), "make_time")
}

// timeAddInterval is time_pl_interval: the sum modulo a day.
func timeAddInterval(t, micros int64) int64 {
	r := (t + micros%types.MicrosPerDay) % types.MicrosPerDay
	if r < 0 {
		r += types.MicrosPerDay
	}
	return r
}

// dateAddTime is date + time (datetime_timestamp).
func dateAddTime(d types.Date, t int64) (types.Datum, error) {
	ts, err := dateToTimestamp(d)
	if err != nil || types.IsInfinite(ts) {
		return ts, err
	}
	r := ts.(types.Timestamp) + types.Timestamp(t)
	if !types.TimestampValid(r) {
		return nil, errTimestampRange
	}
	return r, nil
}

// makeTime is make_time(hour, min, sec).
func makeTime(a []types.Datum) (types.Datum, error) {
	h, m, s := a[0].(int64), a[1].(int64), a[2].(float64)
	micros := int64(s*1e6 + 0.5)
	if s < 0 {
		micros = -1
	}
	v := h*types.MicrosPerHour + m*types.MicrosPerMinute + micros
	if h < 0 || m < 0 || m > 59 || micros < 0 || micros > 60*types.MicrosPerSecond || v > types.MicrosPerDay {
		return nil, errTimeFieldOverflow(h, m, s)
	}
	return v, nil
}

func errTimeFieldOverflow(h, m int64, s float64) error {
	sec := strconv.FormatFloat(s, 'g', -1, 64) // %02g, as PostgreSQL prints it
	if len(sec) < 2 {
		sec = "0" + sec
	}
	return pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, m, sec)
}

// extractTime is extract(unit from time).
func extractTime(unit string, t int64) (types.Datum, error) {
	secs := t % types.MicrosPerMinute
	switch unit {
	case "microseconds":
		return apd.New(secs, 0), nil
	case "milliseconds":
		return apd.New(secs, -3), nil
	case "second":
		return apd.New(secs, -6), nil
	case "minute":
		return apd.New(t/types.MicrosPerMinute%60, 0), nil
	case "hour":
		return apd.New(t/types.MicrosPerHour, 0), nil
	case "epoch":
		return apd.New(t, -6), nil
	}
	return nil, unitError(unit, types.TTime, true)
}

// timeCastLevel decides castLevel for casts to and from time: to interval
// implicitly; from interval, timestamp and timestamptz in assignments;
// to and from the string types as any type's I/O; nothing else.
func timeCastLevel(from, to types.ID) (castContext, bool, bool) {
	switch {
	case from != tTime && to != tTime:
		return 0, false, false
	case from == tTime && to == tIvl:
		return ctxImplicit, true, true
	case to == tTime && (from == tIvl || from == tTS || from == tTSTZ):
		return ctxAssign, true, true
	case category(to) == catString:
		return ctxAssign, true, true
	case category(from) == catString:
		return ctxExplicit, true, true
	}
	return 0, false, true
}

// timeConverter converts to and from time; nil for other casts.
func timeConverter(from, to types.Type) convertFn {
	switch {
	case from.ID == tTime && to.ID == tTime:
		return func(v types.Datum) (types.Datum, error) { return types.RoundTime(v.(int64), to), nil }
	case from.ID == tTime && to.ID == tIvl:
		return func(v types.Datum) (types.Datum, error) { return types.Interval{Micros: v.(int64)}, nil }
	case from.ID == tIvl && to.ID == tTime:
		return func(v types.Datum) (types.Datum, error) {
			return types.RoundTime(timeAddInterval(0, v.(types.Interval).Micros), to), nil
		}
	case (from.ID == tTS || from.ID == tTSTZ) && to.ID == tTime:
		return func(v types.Datum) (types.Datum, error) {
			ts := v.(types.Timestamp)
			if types.IsInfinite(ts) {
				return nil, nil // timestamp_time: NULL for infinity
			}
			_, micros := types.SplitTimestamp(ts)
			return types.RoundTime(micros, to), nil
		}
	}
	return nil
}
