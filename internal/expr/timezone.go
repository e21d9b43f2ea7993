package expr

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The session time zone (the TimeZone setting) in expressions.
//
// Expressions are built without it: every constructor evaluates in UTC.
// WithZone then gives a bound expression its zone, as the binder does for
// each statement with the session's zone (and a materialized view's
// definition with the zone the view was created under): it replaces the
// implementation of each node whose value depends on the zone, found by
// what the node is, not by how it was built:
//
//   - casts between text and timestamptz (or timestamptz[]), timestamp
//     and timestamptz, date and timestamptz, and timestamptz to date:
//     timestamptz text is the local time with its offset, and a
//     timestamp names a local time;
//   - literals of those types (a Const read from text), read again;
//   - the calls of zoneCalls: timestamptz +/- interval (months and days
//     step in local time, DST-aware), comparisons of a date or timestamp
//     with a timestamptz, date_trunc, extract, date_part, age, to_char,
//     to_timestamp(text, text), make_timestamptz, current_date,
//     localtimestamp, array_to_string over timestamptz, and to_json and
//     to_jsonb of a timestamptz.
//
// The zone is a value in the tree: no global state, and expressions of
// sessions in different zones run side by side.

// WithZone returns e with its time zone dependent parts evaluated in zone
// z (nil: UTC, as built). Nodes that do not depend on the zone are
// shared with e.
func WithZone(e Expr, z *types.Zone) Expr {
	switch n := e.(type) {
	case *Const:
		if n.lit == "" {
			return n
		}
		v, err := types.ParseIn(n.lit, n.Typ, z)
		if err != nil {
			return n
		}
		return &Const{Value: v, Typ: n.Typ, lit: n.lit}
	case *Guarded:
		return &Guarded{E: WithZone(n.E, z), Sink: n.Sink}
	}
	e = mapChildren(e, func(c Expr) Expr { return WithZone(c, z) })
	switch n := e.(type) {
	case *call:
		if zf := zoneCalls[callKey(n.name, exprTypes(n.args))]; zf != nil {
			c := *n
			c.fn = zf(z, n)
			c.zone = z
			return &c
		}
	case *castExpr:
		if zc := zoneConverter(n.e.Type(), n.to, n.explicit); zc != nil {
			c := *n
			c.fn = zc(z)
			return &c
		}
	}
	return e
}

// zoneParsed reports whether reading text as t depends on the zone.
func zoneParsed(t types.Type) bool {
	return t.ID == types.IDTimestampTZ || t.ID == types.IDTimeTZ || t.ID == types.IDArray && t.Elem == types.IDTimestampTZ
}

// zoneConverter returns, for a conversion from -> to that depends on the
// session time zone, the converter in a given zone; nil for the others.
func zoneConverter(from, to types.Type, explicit bool) func(*types.Zone) convertFn {
	const tstz = types.IDTimestampTZ
	switch {
	case from.ID == types.IDArray && to.ID == types.IDArray:
		fe, te := from.ElemType(), to.ElemType()
		inner := zoneConverter(fe, te, explicit)
		if inner == nil || fe == te {
			return nil
		}
		return func(z *types.Zone) convertFn {
			conv := inner(z)
			return func(v types.Datum) (types.Datum, error) { return mapArray(v.(string), fe, te, conv) }
		}
	case (from.IsString() || from.ID == types.IDUnknown) && zoneParsed(to):
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) { return types.ParseIn(v.(string), to, z) }
		}
	case zoneParsed(from) && to.IsString():
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) {
				s := types.FormatIn(v, from, z)
				if to.ID == types.IDVarchar {
					return types.CheckVarchar(s, to, explicit)
				}
				return s, nil
			}
		}
	case from.ID == types.IDTimestamp && to.ID == tstz:
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) { return timestampToTZ(v.(types.Timestamp), z) }
		}
	case from.ID == types.IDDate && to.ID == tstz:
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) {
				ts, err := dateToTimestamp(v.(types.Date))
				if err != nil {
					return nil, err
				}
				return timestampToTZ(ts.(types.Timestamp), z)
			}
		}
	case from.ID == tstz && to.ID == types.IDTimestamp:
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) { return localTime(v.(types.Timestamp), z), nil }
		}
	case from.ID == types.IDTime && to.ID == types.IDTimeTZ, from.ID == tstz && to.ID == types.IDTimeTZ:
		return func(z *types.Zone) convertFn { return timeTZConverter(from, to, z) }
	case from.ID == tstz && to.ID == types.IDTime:
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) {
				return timeConverter(types.TTimestamp, to)(localTime(v.(types.Timestamp), z))
			}
		}
	case from.ID == tstz && to.ID == types.IDDate:
		return func(z *types.Zone) convertFn {
			return func(v types.Datum) (types.Datum, error) {
				return timestampToDate(localTime(v.(types.Timestamp), z)), nil
			}
		}
	}
	return nil
}

// localTime is the wall clock of ts in z (infinities stay).
func localTime(ts types.Timestamp, z *types.Zone) types.Timestamp {
	if types.IsInfinite(ts) {
		return ts
	}
	return z.Local(ts)
}

// timestampToTZ is timestamp::timestamptz: the instant of the local time
// ts in z (timestamp2timestamptz).
func timestampToTZ(ts types.Timestamp, z *types.Zone) (types.Datum, error) {
	if types.IsInfinite(ts) {
		return ts, nil
	}
	r := z.FromLocal(ts)
	if !types.TimestampValid(r) {
		return nil, errTimestampRange
	}
	return r, nil
}

// zoneFn builds the implementation of a call in zone z.
type zoneFn func(z *types.Zone, c *call) evalFn

// zoneCalls are the calls whose value depends on the session time zone,
// by callKey.
var zoneCalls = map[string]zoneFn{}

// callKey names an overload: its name and argument types.
func callKey(name string, args []types.Type) string {
	var b strings.Builder
	b.WriteString(name)
	for _, t := range args {
		b.WriteByte('/')
		b.WriteString(strconv.Itoa(int(t.ID)))
		if t.ID == types.IDArray {
			b.WriteByte('.')
			b.WriteString(strconv.Itoa(int(t.Elem)))
		}
	}
	return b.String()
}

func zoneCall(f zoneFn, name string, args ...types.Type) { zoneCalls[callKey(name, args)] = f }

func init() {
	tstz, ivl, text := types.TTimestampTZ, types.TInterval, types.TText
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			return addIntervalIn(z, a[0].(types.Timestamp), a[1].(types.Interval), false)
		}
	}, "+", tstz, ivl)
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			return addIntervalIn(z, a[1].(types.Timestamp), a[0].(types.Interval), false)
		}
	}, "+", ivl, tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			return addIntervalIn(z, a[0].(types.Timestamp), a[1].(types.Interval), true)
		}
	}, "-", tstz, ivl)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return truncTimestampTZ(z) }, "date_trunc", text, tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return extractTZ(z) }, "extract", text, tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		ex := extractTZ(z)
		return func(a []types.Datum) (types.Datum, error) {
			v, err := ex(a)
			if v == nil || err != nil {
				return nil, err
			}
			return numericToFloat(v.(*apd.Decimal)), nil
		}
	}, "date_part", text, tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			t1, t2 := a[0].(types.Timestamp), a[1].(types.Timestamp)
			if types.IsInfinite(t1) || types.IsInfinite(t2) {
				return nil, errIntervalRange
			}
			return ageOf(z.Local(t1), z.Local(t2), t1 < t2)
		}
	}, "age", tstz, tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return ageToday(z, true, systemNow) }, "age", tstz)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return ageToday(z, false, systemNow) }, "age", types.TTimestamp)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return toCharTimestampTZ(z) }, "to_char", tstz, text)
	zoneCall(func(z *types.Zone, _ *call) evalFn { return toTimestampTextIn(z) }, "to_timestamp", text, text)
	i4 := types.TInt32
	zoneCall(func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			ts, err := makeTimestamp(a)
			if err != nil {
				return nil, err
			}
			return timestampToTZ(ts.(types.Timestamp), z)
		}
	}, "make_timestamptz", i4, i4, i4, i4, i4, types.TFloat64)
	for _, name := range []string{"current_date", "localtimestamp", "current_time", "localtime"} {
		zoneCall(func(z *types.Zone, c *call) evalFn {
			return func([]types.Datum) (types.Datum, error) { return clockValue(c.typ, systemNow(), z), nil }
		}, name)
	}
	tstzArr := types.ArrayOf(types.IDTimestampTZ)
	toString := func(z *types.Zone, c *call) evalFn { return arrayToStringIn(c.args[0].Type(), z) }
	zoneCall(toString, "array_to_string", tstzArr, text)
	zoneCall(toString, "array_to_string", tstzArr, text, text)
	toJSON := func(z *types.Zone, _ *call) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			return jsonb.FromString(isoTimestampIn(a[0].(types.Timestamp), z)).String(), nil
		}
	}
	zoneCall(toJSON, "to_json", tstz)
	zoneCall(toJSON, "to_jsonb", tstz)

	for _, op := range comparisons {
		for _, other := range []types.Type{types.TDate, types.TTimestamp} {
			zoneCall(func(z *types.Zone, _ *call) evalFn { return compareWithTZ(op, z, 0) }, op, other, tstz)
			zoneCall(func(z *types.Zone, _ *call) evalFn { return compareWithTZ(op, z, 1) }, op, tstz, other)
		}
	}
	register(overloads(
		fn2(tText, tTSTZ, tTS, atZone(true)),
		fn2(tText, tTS, tTSTZ, atZone(false)),
		fn2(tIvl, tTSTZ, tTS, atIntervalZone(true)),
		fn2(tIvl, tTS, tTSTZ, atIntervalZone(false)),
		fn2(tText, tTimeTZ, tTimeTZ, timeTZAtZone),
		fn2(tIvl, tTimeTZ, tTimeTZ, timeTZAtIntervalZone),
	), "timezone")
}

// TimestampTZComparison takes apart a comparison of a date or timestamp
// with a timestamptz (either way round), which compares in the session's
// zone, into the same comparison of two timestamptz values: the local
// side cast to timestamptz in the comparison's zone, the instant it names
// there, as PostgreSQL's cross-type operators compare. ok is false for
// any other expression. A temporal filter (WHERE ts > now() - ...) over a
// timestamp column uses it to keep its rows in instant order.
func TimestampTZComparison(e Expr) (op string, l, r Expr, ok bool) {
	c, isCall := e.(*call)
	if !isCall {
		return "", nil, nil, false
	}
	if op, l, r, ok = Comparison(e); !ok {
		return "", nil, nil, false
	}
	local := func(t types.Type) bool { return t.ID == types.IDDate || t.ID == types.IDTimestamp }
	toTZ := func(x Expr) (Expr, bool) {
		cx, err := Cast(x, types.TTimestampTZ)
		if err != nil {
			return nil, false
		}
		return WithZone(cx, c.zone), true
	}
	switch lt, rt := l.Type(), r.Type(); {
	case local(lt) && rt.ID == types.IDTimestampTZ:
		l, ok = toTZ(l)
	case lt.ID == types.IDTimestampTZ && local(rt):
		r, ok = toTZ(r)
	default:
		ok = false
	}
	if !ok {
		return "", nil, nil, false
	}
	return op, l, r, true
}

// compareWithTZ compares a date or timestamp (argument local) with a
// timestamptz, as the instant it names in zone z (date_cmp_timestamptz,
// timestamp_cmp_timestamptz).
func compareWithTZ(op string, z *types.Zone, local int) evalFn {
	cmp := comparison(op, types.TTimestampTZ)
	return func(a []types.Datum) (types.Datum, error) {
		var ts types.Timestamp
		switch v := a[local].(type) {
		case types.Date:
			d, err := dateToTimestamp(v)
			if err != nil {
				return nil, err
			}
			ts = d.(types.Timestamp)
		case types.Timestamp:
			ts = v
		}
		if !types.IsInfinite(ts) {
			ts = z.FromLocal(ts)
		}
		args := []types.Datum{a[0], a[1]}
		args[local] = ts
		return cmp(args)
	}
}

// isoTimestampIn is a timestamptz as JSON has it (XSD style) in zone z:
// 2019-12-31T19:00:00-05:00.
func isoTimestampIn(ts types.Timestamp, z *types.Zone) string {
	if types.IsInfinite(ts) {
		return isoTimestamp(ts, true)
	}
	off := z.Offset(ts)
	s := isoTimestamp(ts+types.Timestamp(off*types.MicrosPerSecond), false)
	if rest, bc := strings.CutSuffix(s, " BC"); bc {
		return rest + types.FormatOffset(off, true) + " BC"
	}
	return s + types.FormatOffset(off, true)
}

// addIntervalIn is timestamptz + interval in zone z (timestamptz_pl_interval):
// the months, then the days step the local calendar, each landing on a
// local time resolved as input is (DST-aware: a day is 23 or 25 hours
// across a transition); the time part adds to the instant.
func addIntervalIn(z *types.Zone, ts types.Timestamp, iv types.Interval, sub bool) (types.Datum, error) {
	if sub {
		var err error
		if iv, err = negInterval(iv); err != nil {
			return nil, err
		}
	}
	if types.IsInfinite(ts) || z.IsUTC() {
		return addInterval(ts, iv)
	}
	for _, step := range []types.Interval{{Months: iv.Months}, {Days: iv.Days}} {
		if step.Months == 0 && step.Days == 0 {
			continue
		}
		local, err := addInterval(z.Local(ts), step)
		if err != nil {
			return nil, err
		}
		ts = z.FromLocal(local.(types.Timestamp))
	}
	r, ok := int64Op("+", int64(ts), iv.Micros)
	if !ok || !types.TimestampValid(types.Timestamp(r)) {
		return nil, errTimestampRange
	}
	return types.Timestamp(r), nil
}

// truncTimestampTZ is date_trunc(unit, timestamptz) in zone z
// (timestamptz_trunc_internal): the local time truncated; from a day up
// the result's offset is the one of the truncated local time, below the
// input's own.
func truncTimestampTZ(z *types.Zone) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		return truncIn(a[0].(string), a[1].(types.Timestamp), z)
	}
}

func truncIn(unitArg string, ts types.Timestamp, z *types.Zone) (types.Datum, error) {
	unit, ok := canonicalUnit(unitArg)
	if !ok {
		return nil, unitError(unitArg, types.TTimestampTZ, false)
	}
	if types.IsInfinite(ts) {
		return ts, nil
	}
	off := types.Timestamp(z.Offset(ts) * types.MicrosPerSecond)
	r, ok := truncFields(unit, splitFields(ts+off))
	if !ok {
		return nil, unitError(unitArg, types.TTimestampTZ, unit != "epoch")
	}
	switch unit {
	case "microseconds", "milliseconds", "second", "minute", "hour":
		return r - off, nil
	}
	return z.FromLocal(r), nil
}

// extractTZ is extract(field from timestamptz) in zone z: the fields of
// the local time; epoch is the instant's, timezone* the offset's.
func extractTZ(z *types.Zone) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		unit, ok := canonicalUnit(a[0].(string))
		if !ok {
			return nil, unitError(a[0].(string), types.TTimestampTZ, false)
		}
		ts := a[1].(types.Timestamp)
		if types.IsInfinite(ts) {
			return infiniteField(unit, ts == types.TimestampNegInfinity), nil
		}
		off := z.Offset(ts)
		switch unit {
		case "epoch":
			return apd.New(int64(ts), -6), nil
		case "timezone":
			return apd.New(off, 0), nil
		case "timezone_hour":
			return apd.New(off/3600, 0), nil
		case "timezone_minute":
			return apd.New(off/60%60, 0), nil
		}
		return extractTimestamp(unit, ts+types.Timestamp(off*types.MicrosPerSecond), types.TTimestampTZ)
	}
}

// ageToday is age(x): age(current_date, x), the midnight of now's day in
// zone z (as a timestamptz for tz, else a timestamp).
func ageToday(z *types.Zone, tz bool, now func() types.Timestamp) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		x := a[0].(types.Timestamp)
		if types.IsInfinite(x) {
			return nil, errIntervalRange
		}
		midnight := types.Timestamp(int64(timestampToDate(z.Local(now()))) * types.MicrosPerDay)
		if !tz {
			return ageOf(midnight, x, midnight < x)
		}
		return ageOf(midnight, z.Local(x), z.FromLocal(midnight) < x)
	}
}

// toTimestampTextIn is to_timestamp(text, template) in zone z: a time
// read without TZH/TZM is a local time of z.
func toTimestampTextIn(z *types.Zone) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		t, err := readDCH(a[0].(string), a[1].(string))
		if err != nil {
			return nil, err
		}
		if !t.hasTZ && !z.IsUTC() {
			local, err := t.timestamp()
			if err != nil {
				return nil, err
			}
			t.tzOffset, t.hasTZ = z.LocalOffset(local), true
		}
		return t.timestamp()
	}
}

// atZone is timezone(zone, x), x AT TIME ZONE zone: a timestamptz's local
// time in the named zone (toLocal), or the instant of a timestamp's local
// time there.
func atZone(toLocal bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		ts := a[1].(types.Timestamp)
		if types.IsInfinite(ts) {
			return ts, nil
		}
		nz, err := types.LookupNamedZone(a[0].(string))
		if err != nil {
			return nil, err
		}
		r := nz.FromLocal(ts)
		if toLocal {
			r = nz.Local(ts)
		}
		if !types.TimestampValid(r) {
			return nil, errTimestampRange
		}
		return r, nil
	}
}

// atIntervalZone is timezone(interval, x): the zone that far east of UTC.
func atIntervalZone(toLocal bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		iv, ts := a[0].(types.Interval), a[1].(types.Timestamp)
		if iv.Months != 0 || iv.Days != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue,
				"interval time zone \"%s\" must not include months or days", types.FormatInterval(iv))
		}
		if types.IsInfinite(ts) {
			return ts, nil
		}
		off := types.Timestamp(iv.Micros / types.MicrosPerSecond * types.MicrosPerSecond)
		r := ts - off
		if toLocal {
			r = ts + off
		}
		if !types.TimestampValid(r) {
			return nil, errTimestampRange
		}
		return r, nil
	}
}

// truncTimestampAtZone is date_trunc(unit, timestamptz, zone): truncated
// in the named zone's calendar.
func truncTimestampAtZone(a []types.Datum) (types.Datum, error) {
	nz, err := types.LookupNamedZone(a[2].(string))
	if err != nil {
		return nil, err
	}
	return truncIn(a[0].(string), a[1].(types.Timestamp), nz.Zone())
}
