package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// dateTime is a parsed date/time literal before conversion.
type dateTime struct {
	year, month, day int
	micros           int64 // time of day
	hasTime          bool
	offset           int64 // zone offset east of UTC, in micros
	hasZone          bool
	zone             inputZone // a named zone: offset depends on the local time
	special          string    // "infinity", "-infinity", "epoch"
}

// ParseDate reads a date: ISO YYYY-MM-DD, optionally followed by a time
// (ignored) and BC; also infinity, -infinity and epoch.
func ParseDate(s string) (Date, error) {
	dt, err := parseDateTime(s, TDate)
	if err != nil {
		return 0, err
	}
	switch dt.special {
	case "infinity":
		return DateInfinity, nil
	case "-infinity":
		return DateNegInfinity, nil
	case "epoch":
		return 0, nil
	}
	days := DaysFromCivil(dt.year, dt.month, dt.day)
	if days < int64(minDate) || days > int64(maxDate) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %q", s)
	}
	return Date(days), nil
}

// ParseTimestamp reads a timestamp: YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]]
// [zone][ BC], where the zone is +HH, +HHMM or +HH:MM[:SS], an
// abbreviation (Z, UTC, EST, CEST, ...), a zone name (Europe/Paris) or a
// POSIX offset (UTC+3); see timezone.go. For timestamptz the zone shifts
// the value to UTC (no zone means the session zone: UTC here, see
// ParseTimestampIn); timestamp
// without time zone ignores it, as Postgres does. Also infinity,
// -infinity and epoch.
func ParseTimestamp(s string, tz bool) (Timestamp, error) { return parseTimestamp(s, tz, nil) }

// ParseTimestampIn reads a timestamptz in the session time zone z: one
// without a zone of its own is a local time of z (an instant a
// transition skips or repeats resolved as Zone.LocalOffset does).
func ParseTimestampIn(s string, z *Zone) (Timestamp, error) { return parseTimestamp(s, true, z) }

func parseTimestamp(s string, tz bool, z *Zone) (Timestamp, error) {
	t := TTimestamp
	if tz {
		t = TTimestampTZ
	}
	dt, err := parseDateTime(s, t)
	if err != nil {
		return 0, err
	}
	switch dt.special {
	case "infinity":
		return TimestampInfinity, nil
	case "-infinity":
		return TimestampNegInfinity, nil
	case "epoch":
		return 0, nil
	}
	days := DaysFromCivil(dt.year, dt.month, dt.day)
	if days < int64(minDate)-1 || days > int64(endTimestamp)/MicrosPerDay+1 {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %q", s)
	}
	ts := Timestamp(days*MicrosPerDay + dt.micros)
	if tz && dt.zone.loc != nil {
		// PostgreSQL resolves a named zone at the whole second.
		dt.offset = dt.zone.offsetAt(days*secsPerDay+dt.micros/MicrosPerSecond) * MicrosPerSecond
	}
	switch {
	case tz && dt.hasZone:
		ts -= Timestamp(dt.offset)
	case tz && !z.IsUTC():
		// PostgreSQL resolves the session zone at the whole second too.
		ts -= Timestamp(z.LocalOffset(ts) * MicrosPerSecond)
	}
	if !TimestampValid(ts) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %q", s)
	}
	return ts, nil
}

func dateSyntaxError(t Type, s string) error {
	name := t.String()
	if t.ID == IDTimestamp {
		name = "timestamp" // as PostgreSQL's timestamp_in names it
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", name, s)
}

// zoneDisplacementError is the 22009 error of a numeric time zone
// beyond ±15:59:59.
func zoneDisplacementError(s string) error {
	return pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: %q", s)
}

func fieldOverflow(s string) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
}

// parseDateTime splits a date/time literal into its fields and checks
// their ranges.
func parseDateTime(s string, t Type) (dateTime, error) {
	var dt dateTime
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "infinity", "+infinity", "-infinity", "epoch":
		dt.special = strings.TrimPrefix(v, "+")
		return dt, nil
	}
	bc := false
	// BC or AD ends the literal, unless it ends a zone name (Asia/Baghdad).
	if rest, ok := strings.CutSuffix(v, "bc"); ok && !endsInZoneName(rest) {
		v, bc = strings.TrimSpace(rest), true
	} else if rest, ok := strings.CutSuffix(v, "ad"); ok && !endsInZoneName(rest) {
		v = strings.TrimSpace(rest)
	}
	p := &dtParser{s: v}
	if !p.date(&dt) || !p.timeAndZone(&dt) {
		if p.err != nil {
			return dt, p.err
		}
		return dt, dateSyntaxError(t, s)
	}
	if bc {
		if dt.year <= 0 {
			return dt, dateSyntaxError(t, s)
		}
		dt.year = 1 - dt.year
	}
	if p.badZone {
		return dt, zoneDisplacementError(s)
	}
	if dt.month < 1 || dt.month > 12 || dt.day < 1 || dt.day > DaysInMonth(dt.year, dt.month) || dt.year == 0 && !bc {
		return dt, fieldOverflow(s)
	}
	if dt.micros > MicrosPerDay || dt.micros < 0 || p.badClock {
		return dt, fieldOverflow(s)
	}
	return dt, nil
}

// endsInZoneName reports whether s ends in a character of a zone name.
func endsInZoneName(s string) bool {
	if s == "" {
		return false
	}
	c := s[len(s)-1]
	return isLetter(c) || c == '/' || c == '_'
}

// dtParser is a cursor over a lower-cased date/time literal.
type dtParser struct {
	s        string
	i        int
	badClock bool
	badZone  bool  // a numeric zone beyond ±15:59:59
	err      error // an error other than a syntax error
}

// number reads a run of digits; n is how many.
func (p *dtParser) number() (v int64, n int) {
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) && p.i-start < 18 {
		v = v*10 + int64(p.s[p.i]-'0')
		p.i++
	}
	return v, p.i - start
}

func (p *dtParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *dtParser) skipSpaces() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// date reads YYYY-MM-DD (or YYYYMMDD).
func (p *dtParser) date(dt *dateTime) bool {
	y, n := p.number()
	if n == 8 && (p.i == len(p.s) || p.s[p.i] == ' ' || p.s[p.i] == 't') {
		dt.year, dt.month, dt.day = int(y/10000), int(y/100%100), int(y%100)
		return true
	}
	if n == 0 || !p.eat('-') {
		return false
	}
	m, n2 := p.number()
	if n2 == 0 || n2 > 2 || !p.eat('-') {
		return false
	}
	d, n3 := p.number()
	if n3 == 0 || n3 > 2 || y > 10_000_000 {
		return false
	}
	dt.year, dt.month, dt.day = int(y), int(m), int(d)
	return true
}

// timeAndZone reads an optional time of day and zone up to the end.
func (p *dtParser) timeAndZone(dt *dateTime) bool {
	if p.i == len(p.s) {
		return true
	}
	if !p.eat('t') {
		p.skipSpaces()
	}
	if p.i < len(p.s) && isDigit(p.s[p.i]) {
		if !p.clock(dt) {
			return false
		}
		p.skipSpaces()
	}
	if p.i == len(p.s) {
		return true
	}
	return p.zone(dt) && p.i == len(p.s)
}

// clock reads HH:MM[:SS[.ffffff]]; 24:00:00 is allowed, as in Postgres.
func (p *dtParser) clock(dt *dateTime) bool {
	h, n := p.number()
	if n == 0 || n > 2 || !p.eat(':') {
		return false
	}
	m, n := p.number()
	if n != 2 {
		return false
	}
	var sec, frac int64
	if p.eat(':') {
		if sec, n = p.number(); n != 2 {
			return false
		}
		if p.eat('.') {
			frac = p.fraction()
		}
	}
	if h > 24 || m > 59 || sec > 60 || (h == 24 && (m != 0 || sec != 0 || frac != 0)) {
		p.badClock = true
	}
	dt.micros = h*MicrosPerHour + m*MicrosPerMinute + sec*MicrosPerSecond + frac
	dt.hasTime = true
	return true
}

// fraction reads the digits after a decimal point as microseconds,
// rounding beyond the sixth digit (half to even, like rint).
func (p *dtParser) fraction() int64 {
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	return fractionMicros(p.s[start:p.i])
}

// fractionMicros converts the digits after a decimal point to micros.
func fractionMicros(digits string) int64 {
	if digits == "" {
		return 0
	}
	f, _ := strconv.ParseFloat("0."+digits, 64)
	return int64(math.RoundToEven(f * 1e6))
}

// zone reads a time zone: a numeric offset, or a name (zoneName).
func (p *dtParser) zone(dt *dateTime) bool {
	if p.i < len(p.s) && isLetter(p.s[p.i]) {
		return p.zoneName(dt)
	}
	neg := p.eat('-')
	if !neg && !p.eat('+') {
		return false
	}
	h, n := p.number()
	var m, sec int64
	switch {
	case n == 4:
		h, m = h/100, h%100
	case n == 1 || n == 2:
		if p.eat(':') {
			if m, n = p.number(); n != 2 {
				return false
			}
			if p.eat(':') {
				if sec, n = p.number(); n != 2 {
					return false
				}
			}
		}
	default:
		return false
	}
	if h > 15 || m > 59 || sec > 59 {
		p.badZone = true
	}
	off := h*MicrosPerHour + m*MicrosPerMinute + sec*MicrosPerSecond
	if neg {
		off = -off
	}
	dt.offset, dt.hasZone = off, true
	return true
}

// zoneName reads a time zone that starts with a letter, the way
// PostgreSQL's ParseDateTime splits it: letters alone are an
// abbreviation (est) or else a zone name (japan); letters followed by
// '/', '-', '+', '.' or a digit run on through those, '_', ':' and
// alphanumerics, and are a zone name (america/new_york, est5edt) or a
// POSIX offset (utc+3), or else an unknown zone (22023).
func (p *dtParser) zoneName(dt *dateTime) bool {
	start := p.i
	for p.i < len(p.s) && isLetter(p.s[p.i]) {
		p.i++
	}
	if p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '/' || c == '-' || c == '+' || c == '.' || isDigit(c):
			for p.i < len(p.s) && (isLetter(p.s[p.i]) || isDigit(p.s[p.i]) || strings.IndexByte("+-/_.:", p.s[p.i]) >= 0) {
				p.i++
			}
		}
	}
	name := p.s[start:p.i]
	simple := true
	for i := 0; i < len(name); i++ {
		simple = simple && isLetter(name[i])
	}
	if simple {
		if off, ok := tzFixedAbbrevs[name]; ok {
			dt.offset, dt.hasZone = int64(off)*MicrosPerSecond, true
			return true
		}
		if zn, ok := tzDynamicAbbrevs[name]; ok {
			if loc := loadZone(zn); loc != nil {
				dt.zone, dt.hasZone = inputZone{loc: loc, abbrev: strings.ToUpper(name)}, true
				return true
			}
		}
	}
	if loc := loadZone(name); loc != nil {
		dt.zone, dt.hasZone = inputZone{loc: loc}, true
		return true
	}
	if simple {
		return false
	}
	if off, ok := posixZoneOffset(name); ok {
		dt.offset, dt.hasZone = off*MicrosPerSecond, true
		return true
	}
	p.err = pgerr.New(pgerr.InvalidParameterValue, "time zone %q not recognized", name)
	return false
}
