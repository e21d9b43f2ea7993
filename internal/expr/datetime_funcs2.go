package expr

import (
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// date_bin, age, make_timestamp[tz], make_interval and justify_days,
// justify_hours, justify_interval, as PostgreSQL 15 has them (a
// timestamptz's fields are UTC's here; WithZone gives age and
// make_timestamptz the session's zone: timezone.go).

const daysPerMonth = 30

func init() {
	register(overloads(
		fn3(tIvl, tTS, tTS, tTS, dateBin),
		fn3(tIvl, tTSTZ, tTSTZ, tTSTZ, dateBin),
	), "date_bin")
	register(overloads(
		fn2(tTS, tTS, tIvl, age),
		fn2(tTSTZ, tTSTZ, tIvl, age),
		fn1(tTS, tIvl, ageToday(nil, false, systemNow)),
		fn1(tTSTZ, tIvl, ageToday(nil, true, systemNow)),
	), "age")
	mk := sig{params: []types.ID{tInt4, tInt4, tInt4, tInt4, tInt4, tFloat8}, result: tTS, fn: makeTimestamp}
	register(overloads(mk), "make_timestamp")
	mk.result = tTSTZ
	register(overloads(mk), "make_timestamptz")
	register(overloads(
		sig{params: []types.ID{}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4, tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4, tInt4, tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4, tInt4, tInt4, tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4, tInt4, tInt4, tInt4, tInt4}, result: tIvl, fn: makeInterval},
		sig{params: []types.ID{tInt4, tInt4, tInt4, tInt4, tInt4, tInt4, tFloat8}, result: tIvl, fn: makeInterval},
	), "make_interval")
	register(overloads(fn1(tIvl, tIvl, justify(justifyDays))), "justify_days")
	register(overloads(fn1(tIvl, tIvl, justify(justifyHours))), "justify_hours")
	register(overloads(fn1(tIvl, tIvl, justify(justifyInterval))), "justify_interval")
}

// dateBin is date_bin(stride, source, origin): the start of the bin of
// width stride, counted from origin, that holds source.
func dateBin(a []types.Datum) (types.Datum, error) {
	stride, ts, origin := a[0].(types.Interval), a[1].(types.Timestamp), a[2].(types.Timestamp)
	if ts == types.TimestampInfinity || ts == types.TimestampNegInfinity {
		return ts, nil
	}
	if origin == types.TimestampInfinity || origin == types.TimestampNegInfinity {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	s := int64(stride.Days)*types.MicrosPerDay + stride.Micros
	if s <= 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "stride must be greater than zero")
	}
	diff, ok := sub64(int64(ts), int64(origin))
	if !ok {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	// Go's % truncates toward zero: a source before origin that is not on
	// a bin boundary belongs to the bin one stride further down (a source
	// on a boundary is its own bin start, as PostgreSQL 15.18 has it).
	delta := diff - diff%s
	if diff%s < 0 {
		if delta, ok = sub64(delta, s); !ok {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
	}
	r := types.Timestamp(int64(origin) + delta)
	if !types.TimestampValid(r) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	return r, nil
}

// sub64 is a - b, and false when it overflows.
func sub64(a, b int64) (int64, bool) {
	r := a - b
	return r, (a^b)&(a^r) >= 0
}

// age is age(t1, t2): t1 - t2 as years, months and days, field by field
// the way PostgreSQL's timestamp_age forms it.
func age(a []types.Datum) (types.Datum, error) {
	t1, t2 := a[0].(types.Timestamp), a[1].(types.Timestamp)
	if types.IsInfinite(t1) || types.IsInfinite(t2) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return ageOf(t1, t2, t1 < t2)
}

// ageOf is age over the fields of the finite t1 and t2 (local times for
// a timestamptz: see timezone.go); neg is whether t1 is before t2.
func ageOf(t1, t2 types.Timestamp, neg bool) (types.Datum, error) {
	f1, f2 := splitFields(t1), splitFields(t2)
	us := f1.micros%types.MicrosPerSecond - f2.micros%types.MicrosPerSecond
	sec := f1.micros/types.MicrosPerSecond%60 - f2.micros/types.MicrosPerSecond%60
	mins := f1.micros/types.MicrosPerMinute%60 - f2.micros/types.MicrosPerMinute%60
	hours := f1.micros/types.MicrosPerHour - f2.micros/types.MicrosPerHour
	days := int64(f1.d - f2.d)
	months := int64(f1.m - f2.m)
	years := int64(f1.y - f2.y)
	flip := func() {
		us, sec, mins, hours, days, months, years = -us, -sec, -mins, -hours, -days, -months, -years
	}
	if neg {
		flip()
	}
	for us < 0 {
		us += types.MicrosPerSecond
		sec--
	}
	for sec < 0 {
		sec += 60
		mins--
	}
	for mins < 0 {
		mins += 60
		hours--
	}
	for hours < 0 {
		hours += 24
		days--
	}
	for days < 0 {
		if neg {
			days += int64(types.DaysInMonth(f1.y, f1.m))
		} else {
			days += int64(types.DaysInMonth(f2.y, f2.m))
		}
		months--
	}
	for months < 0 {
		months += 12
		years--
	}
	if neg {
		flip()
	}
	m := years*12 + months
	if m > math.MaxInt32 || m < math.MinInt32 {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return types.Interval{Months: int32(m), Days: int32(days),
		Micros: hours*types.MicrosPerHour + mins*types.MicrosPerMinute + sec*types.MicrosPerSecond + us}, nil
}

// makeTimestamp is make_timestamp(year, month, mday, hour, min, sec).
func makeTimestamp(a []types.Datum) (types.Datum, error) {
	y, mo, d, h, mi := a[0].(int64), a[1].(int64), a[2].(int64), a[3].(int64), a[4].(int64)
	sec := a[5].(float64)
	date, err := makeDate([]types.Datum{y, mo, d})
	if err != nil {
		return nil, err
	}
	if h < 0 || h > 24 || mi < 0 || mi > 59 || math.IsNaN(sec) || sec < 0 || sec > 60 ||
		h == 24 && (mi > 0 || sec > 0) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, mi,
			types.FormatFloat(sec, 64))
	}
	us := h*types.MicrosPerHour + mi*types.MicrosPerMinute + int64(math.RoundToEven(sec*1e6))
	days := int64(date.(types.Date))
	ts := types.Timestamp(days*types.MicrosPerDay + us)
	if !types.TimestampValid(ts) {
		return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", y, mo, d, h, mi,
			types.FormatFloat(sec, 64))
	}
	return ts, nil
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs), each defaulting to 0.
func makeInterval(a []types.Datum) (types.Datum, error) {
	var v [6]int64
	for i := 0; i < len(a) && i < 6; i++ {
		v[i] = a[i].(int64)
	}
	secs := 0.0
	if len(a) == 7 {
		secs = a[6].(float64)
	}
	overflow := pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	months := v[0]*12 + v[1]
	days := v[2]*7 + v[3]
	if math.IsNaN(secs) || math.IsInf(secs, 0) || months > math.MaxInt32 || months < math.MinInt32 ||
		days > math.MaxInt32 || days < math.MinInt32 {
		return nil, overflow
	}
	us := float64(v[4])*float64(types.MicrosPerHour) + float64(v[5])*float64(types.MicrosPerMinute) + math.RoundToEven(secs*1e6)
	if us > 9.2e18 || us < -9.2e18 {
		return nil, overflow
	}
	return types.Interval{Months: int32(months), Days: int32(days), Micros: int64(us)}, nil
}

func justify(f func(types.Interval) types.Interval) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return f(a[0].(types.Interval)), nil }
}

// justifyDays turns each 30 days into a month.
func justifyDays(iv types.Interval) types.Interval {
	whole := iv.Days / daysPerMonth
	iv.Days -= whole * daysPerMonth
	iv.Months += whole
	switch {
	case iv.Months > 0 && iv.Days < 0:
		iv.Days += daysPerMonth
		iv.Months--
	case iv.Months < 0 && iv.Days > 0:
		iv.Days -= daysPerMonth
		iv.Months++
	}
	return iv
}

// justifyHours turns each 24 hours into a day.
func justifyHours(iv types.Interval) types.Interval {
	whole := iv.Micros / types.MicrosPerDay
	iv.Micros -= whole * types.MicrosPerDay
	iv.Days += int32(whole)
	switch {
	case iv.Days > 0 && iv.Micros < 0:
		iv.Micros += types.MicrosPerDay
		iv.Days--
	case iv.Days < 0 && iv.Micros > 0:
		iv.Micros -= types.MicrosPerDay
		iv.Days++
	}
	return iv
}

// justifyInterval does both, with the signs made consistent.
func justifyInterval(iv types.Interval) types.Interval {
	if iv.Days > 0 && iv.Micros > 0 || iv.Days < 0 && iv.Micros < 0 {
		whole := iv.Days / daysPerMonth
		iv.Days -= whole * daysPerMonth
		iv.Months += whole
	}
	whole := iv.Micros / types.MicrosPerDay
	iv.Micros -= whole * types.MicrosPerDay
	iv.Days += int32(whole)
	wm := iv.Days / daysPerMonth
	iv.Days -= wm * daysPerMonth
	iv.Months += wm
	switch {
	case iv.Months > 0 && (iv.Days < 0 || iv.Days == 0 && iv.Micros < 0):
		iv.Days += daysPerMonth
		iv.Months--
	case iv.Months < 0 && (iv.Days > 0 || iv.Days == 0 && iv.Micros > 0):
		iv.Days -= daysPerMonth
		iv.Months++
	}
	switch {
	case iv.Days > 0 && iv.Micros < 0:
		iv.Micros += types.MicrosPerDay
		iv.Days--
	case iv.Days < 0 && iv.Micros > 0:
		iv.Micros -= types.MicrosPerDay
		iv.Days++
	}
	return iv
}
