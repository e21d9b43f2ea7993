package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Format renders a non-NULL Datum of type t in Postgres text output format
// (what psql shows: booleans as t/f, timestamps as 2024-01-02 03:04:05.5,
// timestamptz with +00, intervals as "1 day 02:00:00", floats with the
// shortest round-trip representation, NaN, Infinity ...).
func Format(d Datum, t Type) string { return format(d, t) }

// FormatIn is Format in the session time zone z: a timestamptz, and the
// elements of a timestamptz array, print as local times with their
// offsets. The nil Zone is UTC, as Format.
func FormatIn(d Datum, t Type, z *Zone) string {
	switch {
	case z.IsUTC():
	case t.ID == IDTimestampTZ:
		if ts, ok := d.(Timestamp); ok {
			return FormatTimestampTZ(ts, z)
		}
	case t.ID == IDArray && t.Elem == IDTimestampTZ:
		if s, ok := d.(string); ok {
			if a, err := ParseArrayValue(s, TTimestampTZ); err == nil {
				return FormatArrayValueIn(a, TTimestampTZ, z)
			}
		}
	}
	return format(d, t)
}

// ParseIn is Parse in the session time zone z: a timestamptz without a
// zone of its own (and each such element of a timestamptz array) is a
// local time of z. The nil Zone is UTC, as Parse.
func ParseIn(s string, t Type, z *Zone) (Datum, error) {
	switch {
	case z.IsUTC():
	case t.ID == IDTimestampTZ:
		return ParseTimestampIn(s, z)
	case t.ID == IDTimeTZ:
		return ParseTimeTZ(s, t, z)
	case t.ID == IDArray && t.Elem == IDTimestampTZ:
		a, err := parseArrayIn(s, TTimestampTZ, z)
		if err != nil {
			return nil, err
		}
		return FormatArrayValue(a, TTimestampTZ), nil
	}
	return parse(s, t)
}

// Parse reads a value of type t from Postgres text input format, as a
// string literal cast to t would (22P02 / 22007 / 22008 / 22003 on bad input).
func Parse(s string, t Type) (Datum, error) { return parse(s, t) }

func format(d Datum, t Type) string {
	switch v := d.(type) {
	case nil:
		return ""
	case bool:
		if v {
			return "t"
		}
		return "f"
	case int64:
		switch t.ID {
		case IDTime:
			return FormatTime(v)
		case IDTimeTZ:
			return FormatTimeTZ(v)
		}
		return strconv.FormatInt(v, 10)
	case float64:
		if t.ID == IDFloat32 {
			return FormatFloat(v, 32)
		}
		return FormatFloat(v, 64)
	case *apd.Decimal:
		return FormatNumeric(v)
	case string:
		if t.Vector {
			return formatVector(v)
		}
		if t.ID == IDBytea {
			return FormatBytea(v)
		}
		switch t.ID {
		case IDUUID:
			return FormatUUID(v)
		case IDInet, IDCidr:
			return FormatInet(v, t.ID == IDCidr)
		}
		return v
	case Date:
		return FormatDate(v)
	case Timestamp:
		return FormatTimestamp(v, t.ID == IDTimestampTZ)
	case Interval:
		return FormatInterval(v)
	}
	return fmt.Sprint(d)
}

// FormatFloat renders f as Postgres 12+ does with extra_float_digits = 1:
// the shortest digits that read back as the same float (bits 32 for real,
// 64 for double), in fixed notation for decimal exponents from -4 up to
// 14 (real: 5) and in scientific notation (1e+15, 1.5e-05) beyond.
func FormatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	sci := strconv.FormatFloat(f, 'e', -1, bits)
	neg := strings.HasPrefix(sci, "-")
	sci = strings.TrimPrefix(sci, "-")
	ePos := strings.IndexByte(sci, 'e')
	digits := strings.Replace(sci[:ePos], ".", "", 1)
	exp, _ := strconv.Atoi(sci[ePos+1:])
	limit := 15
	if bits == 32 {
		limit = 6
	}
	var out string
	if exp < -4 || exp >= limit {
		out = sci
	} else {
		out = fixedFromDigits(digits, exp)
	}
	if neg {
		return "-" + out
	}
	return out
}

// fixedFromDigits places the decimal point in significant digits d.ddd
// whose decimal exponent is exp.
func fixedFromDigits(digits string, exp int) string {
	if exp < 0 {
		return "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return digits + strings.Repeat("0", exp+1-len(digits))
	}
	return digits[:exp+1] + "." + digits[exp+1:]
}

// FormatNumeric renders a numeric with its scale kept (1.50 stays 1.50),
// never in exponent notation, and without a negative zero.
func FormatNumeric(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	if d.IsZero() && d.Negative {
		var c apd.Decimal
		c.Set(d)
		c.Negative = false
		return c.Text('f')
	}
	return d.Text('f')
}

// FormatDate renders d as YYYY-MM-DD, with " BC" for years before 1.
func FormatDate(d Date) string {
	switch d {
	case DateInfinity:
		return "infinity"
	case DateNegInfinity:
		return "-infinity"
	}
	y, m, day := CivilFromDays(int64(d))
	var b strings.Builder
	bc := writeYMD(&b, y, m, day)
	if bc {
		b.WriteString(" BC")
	}
	return b.String()
}

// writeYMD writes a date, returning whether it is BC (the caller appends
// the era after any time and zone, as Postgres does).
func writeYMD(b *strings.Builder, y, m, d int) bool {
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	fmt.Fprintf(b, "%04d-%02d-%02d", y, m, d)
	return bc
}

// FormatTimestamp renders ts as "YYYY-MM-DD HH:MM:SS[.ffffff]", with the
// fraction trimmed of trailing zeros and "+00" appended for timestamptz
// (in time zone UTC; FormatTimestampTZ renders one in a session's zone).
func FormatTimestamp(ts Timestamp, tz bool) string {
	if tz {
		return FormatTimestampTZ(ts, nil)
	}
	return formatTimestamp(ts, false, 0)
}

// FormatTimestampTZ renders the timestamptz ts as PostgreSQL's ISO
// DateStyle does in time zone z: the local time, then its offset
// (-05, +05:30, -04:56:02 for a local mean time).
func FormatTimestampTZ(ts Timestamp, z *Zone) string {
	if ts == TimestampInfinity || ts == TimestampNegInfinity {
		return formatTimestamp(ts, false, 0)
	}
	off := z.Offset(ts)
	return formatTimestamp(ts+Timestamp(off*MicrosPerSecond), true, off)
}

func formatTimestamp(ts Timestamp, tz bool, off int64) string {
	switch ts {
	case TimestampInfinity:
		return "infinity"
	case TimestampNegInfinity:
		return "-infinity"
	}
	days, micros := SplitTimestamp(ts)
	y, m, d := CivilFromDays(days)
	var b strings.Builder
	bc := writeYMD(&b, y, m, d)
	b.WriteByte(' ')
	writeClock(&b, micros/MicrosPerHour, micros%MicrosPerHour)
	if tz {
		b.WriteString(FormatOffset(off, false))
	}
	if bc {
		b.WriteString(" BC")
	}
	return b.String()
}

// FormatOffset renders a zone offset, seconds east of UTC, as PostgreSQL's
// EncodeTimezone does: +HH, with :MM when the minutes (or seconds) are
// not zero and :SS when the seconds are not; xsd (the XML Schema style
// of JSON) always writes the minutes.
func FormatOffset(east int64, xsd bool) string {
	sign := byte('+')
	if east < 0 {
		sign, east = '-', -east
	}
	h, m, s := east/3600, east%3600/60, east%60
	switch {
	case s != 0:
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, h, m, s)
	case m != 0 || xsd:
		return fmt.Sprintf("%c%02d:%02d", sign, h, m)
	}
	return fmt.Sprintf("%c%02d", sign, h)
}

// writeClock writes hours:MM:SS[.ffffff] for non-negative hours and the
// microseconds below an hour.
func writeClock(b *strings.Builder, hours, rest int64) {
	fmt.Fprintf(b, "%02d:%02d:%02d", hours, rest/MicrosPerMinute, rest%MicrosPerMinute/MicrosPerSecond)
	writeFraction(b, rest%MicrosPerSecond)
}

// writeFraction writes ".ffffff" without trailing zeros, nothing for 0.
func writeFraction(b *strings.Builder, micros int64) {
	if micros == 0 {
		return
	}
	f := fmt.Sprintf("%06d", micros)
	b.WriteByte('.')
	b.WriteString(strings.TrimRight(f, "0"))
}

// FormatInterval renders iv in Postgres's default "postgres" interval
// style: "1 year 2 mons 3 days 04:05:06", "-1 days", "00:00:00".
func FormatInterval(iv Interval) string {
	var b strings.Builder
	isZero, isBefore := true, false
	addPart := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			b.WriteByte(' ')
		}
		if isBefore && v > 0 {
			b.WriteByte('+')
		}
		fmt.Fprintf(&b, "%d %s", v, unit)
		if v != 1 {
			b.WriteByte('s')
		}
		isBefore, isZero = v < 0, false
	}
	addPart(int64(iv.Months/12), "year")
	addPart(int64(iv.Months%12), "mon")
	addPart(int64(iv.Days), "day")
	if isZero || iv.Micros != 0 {
		writeIntervalTime(&b, iv.Micros, isZero, isBefore)
	}
	return b.String()
}

// writeIntervalTime writes the time part of an interval: [-|+]HH:MM:SS.ff.
func writeIntervalTime(b *strings.Builder, micros int64, isZero, isBefore bool) {
	if !isZero {
		b.WriteByte(' ')
	}
	neg := micros < 0
	switch {
	case neg:
		b.WriteByte('-')
	case isBefore:
		b.WriteByte('+')
	}
	u := uint64(micros)
	if neg {
		u = -u
	}
	hours := u / uint64(MicrosPerHour)
	rest := int64(u % uint64(MicrosPerHour))
	writeClock(b, int64(hours), rest)
}
