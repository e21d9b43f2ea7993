package types

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// A time [without time zone] Datum is an int64: microseconds since
// midnight, from 0 to MicrosPerDay (24:00:00, which Postgres accepts and
// keeps apart from 00:00:00). As an int64 it compares and keys as
// integers do, which is time's order; Type says it is a time.

// TimePrecision returns the number of fractional digits time type t
// keeps (6 without a precision).
func TimePrecision(t Type) int { // also timetz's
	if t.Precision > 0 {
		return t.Precision - 1
	}
	return 6
}

// ParseTime reads a time of day as Postgres's time_in does: an optional
// date (ignored), then HH:MM[:SS[.ffffff]] or HHMM[SS[.ffffff]] with an
// optional AM / PM, then an optional time zone (ignored); also allballs
// (00:00:00). 24:00:00 is allowed, a leap second 23:59:60 reads as
// 24:00:00. The result is rounded to t's precision.
func ParseTime(s string, t Type) (int64, error) {
	dt, err := parseTimeOfDay(s, "time")
	if err != nil {
		return 0, err
	}
	return RoundTime(dt.micros, t), nil
}

// parseTimeOfDay reads time_in's and timetz_in's forms: the date (if
// any; month 0 when there is none), the clock and the zone (hasZone) as
// parseDateTime gives them. typ names the type in errors.
func parseTimeOfDay(s, typ string) (dateTime, error) {
	var dt dateTime
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "allballs" {
		return dt, nil
	}
	p := &dtParser{s: v}
	if p.date(&dt) && (p.i == len(p.s) || p.s[p.i] == ' ' || p.s[p.i] == 't') {
		p.eat('t')
		p.skipSpaces()
	} else {
		dt, p.i = dateTime{}, 0
	}
	p.eat('t')
	if !p.timeOfDay(&dt) {
		if p.err != nil {
			return dt, p.err
		}
		return dt, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", typ, s)
	}
	if p.badZone {
		return dt, zoneDisplacementError(s)
	}
	if dt.micros < 0 || dt.micros > MicrosPerDay || p.badClock {
		return dt, fieldOverflow(s)
	}
	return dt, nil
}

// timeOfDay reads the clock, an AM / PM and a zone to the end into dt.
func (p *dtParser) timeOfDay(dt *dateTime) bool {
	pos := p.i
	if !p.clock(dt) {
		if p.i = pos; !p.basicClock(dt) {
			return false
		}
	}
	p.skipSpaces()
	if micros, ok := p.meridiem(dt.micros); ok {
		dt.micros = micros
		p.skipSpaces()
	}
	return p.i == len(p.s) || p.zone(dt) && p.i == len(p.s)
}

// basicClock reads the ISO basic forms HHMM and HHMMSS[.ffffff].
func (p *dtParser) basicClock(dt *dateTime) bool {
	start := p.i
	n, digits := p.number()
	var h, m, sec, frac int64
	switch digits {
	case 4:
		h, m = n/100, n%100
	case 6:
		h, m, sec = n/10000, n/100%100, n%100
		if p.eat('.') {
			frac = p.fraction()
		}
	default:
		p.i = start
		return false
	}
	if h > 24 || m > 59 || sec > 60 || (h == 24 && (m != 0 || sec != 0 || frac != 0)) {
		p.badClock = true
	}
	dt.micros = h*MicrosPerHour + m*MicrosPerMinute + sec*MicrosPerSecond + frac
	return true
}

// meridiem applies a following am or pm (or a.m., p.m.) to a 12-hour
// clock reading; a longer word (america/new_york) is not one.
func (p *dtParser) meridiem(micros int64) (int64, bool) {
	rest := p.s[p.i:]
	var pm bool
	n := 0
	for _, w := range []string{"am", "a.m.", "pm", "p.m."} {
		if strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isLetter(rest[len(w)]) && rest[len(w)] != '/') {
			n, pm = len(w), w[0] == 'p'
		}
	}
	if n == 0 {
		return micros, false
	}
	p.i += n
	if micros >= 13*MicrosPerHour || micros < 0 {
		p.badClock = true
	}
	h := micros / MicrosPerHour
	switch {
	case pm && h < 12:
		micros += 12 * MicrosPerHour
	case !pm && h == 12:
		micros -= 12 * MicrosPerHour
	}
	return micros, true
}

// RoundTime rounds a time of day to the precision of time type t, as
// Postgres's AdjustTimeForTypmod does (halves away from zero).
func RoundTime(micros int64, t Type) int64 {
	p := TimePrecision(t)
	if p >= 6 {
		return micros
	}
	scale := int64(1)
	for i := p; i < 6; i++ {
		scale *= 10
	}
	return (micros + scale/2) / scale * scale
}

// FormatTime writes a time of day as time_out does: HH:MM:SS with the
// fractional seconds that are not zero.
func FormatTime(micros int64) string {
	return string(AppendTime(make([]byte, 0, 15), micros))
}

// AppendTime appends FormatTime's text to buf.
func AppendTime(buf []byte, micros int64) []byte {
	h, m := micros/MicrosPerHour, micros/MicrosPerMinute%60
	sec, frac := micros/MicrosPerSecond%60, micros%MicrosPerSecond
	buf = append(buf, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if frac == 0 {
		return buf
	}
	f := strconv.AppendInt(nil, frac+MicrosPerSecond, 10)[1:] // six digits
	buf = append(buf, '.')
	return append(buf, strings.TrimRight(string(f), "0")...)
}
