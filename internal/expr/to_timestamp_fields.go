package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The field readers of to_timestamp (integers and names, as
// from_char_parse_int_len and from_char_seq_search read them), and the
// step from fields to a date and time (do_to_timestamp).

var (
	monthAbbrevs    = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	dayAbbrevs      = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	romanMonthsDesc = []string{"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"}
)

// ampmNames and adbcNames list AM (AD) at even and PM (BC) at odd
// indexes.
func ampmNames(dots bool) []string {
	if dots {
		return []string{"a.m.", "p.m.", "A.M.", "P.M."}
	}
	return []string{"am", "pm", "AM", "PM"}
}

func adbcNames(dots bool) []string {
	if dots {
		return []string{"a.d.", "b.c.", "A.D.", "B.C."}
	}
	return []string{"ad", "bc", "AD", "BC"}
}

// name reads one of names (case-insensitively, the longest listed first
// where one is a prefix of another) and stores conv(its index).
func (r *dchReader) name(dest *int, names []string, conv func(int) int) error {
	rest := r.in[r.s:]
	for i, nm := range names {
		if len(rest) >= len(nm) && strings.EqualFold(rest[:len(nm)], nm) {
			r.s += len(nm)
			return r.set(dest, conv(i))
		}
	}
	if i := strings.IndexAny(rest, " \t\n\r\f"); i >= 0 {
		rest = rest[:i]
	}
	e := dchError("invalid value \"%s\" for \"%s\"", rest, r.nodes[r.ni].key.name)
	e.Detail = "The given value did not match any of the allowed values for this field."
	return e
}

// intLen reads an integer field of width characters (all the digits
// there are in fill mode or before a non-digit), after any blanks, and
// stores it in dest (when not nil). It returns the input characters
// used, blanks included.
func (r *dchReader) intLen(dest *int, width int) (int, error) {
	n := &r.nodes[r.ni]
	init := r.s
	for r.s < len(r.in) && isCSpace(r.in[r.s]) {
		r.s++
	}
	field := r.in[r.s:min(r.s+width, len(r.in))]
	var v int64
	var overflow bool
	if n.fm || r.nextIsSeparator() {
		var end int
		v, end, overflow = cStrtol(r.in, init)
		r.s = end
	} else {
		if len(field) < width {
			e := dchError("source string too short for \"%s\" formatting field", n.key.name)
			e.Detail = fmt.Sprintf("Field requires %d characters, but only %d remain.", width, len(field))
			e.Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
			return 0, e
		}
		var used int
		v, used, overflow = cStrtol(field, 0)
		if used > 0 && used < width {
			e := dchError("invalid value \"%s\" for \"%s\"", field, n.key.name)
			e.Detail = fmt.Sprintf("Field requires %d characters, but only %d could be parsed.", width, used)
			e.Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
			return 0, e
		}
		r.s += used
	}
	if r.s == init {
		e := dchError("invalid value \"%s\" for \"%s\"", field, n.key.name)
		e.Detail = "Value must be an integer."
		return 0, e
	}
	if overflow || v < math.MinInt32 || v > math.MaxInt32 {
		e := pgerr.New(pgerr.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", n.key.name)
		e.Detail = "Value must be in the range -2147483648 to 2147483647."
		return 0, e
	}
	if dest != nil {
		if err := r.set(dest, int(v)); err != nil {
			return 0, err
		}
	}
	return r.s - init, nil
}

// nextIsSeparator reports whether the field being read ends where its
// digits do: it has an ordinal suffix, or what follows it in the
// template is not a digit.
func (r *dchReader) nextIsSeparator() bool {
	if r.nodes[r.ni].th || r.ni+1 >= len(r.nodes) {
		return true
	}
	next := &r.nodes[r.ni+1]
	if next.kind == dchAction {
		return !next.key.digit
	}
	return !(len(next.char) == 1 && isDigit(next.char[0]))
}

// cStrtol is C's strtol(s + start, &end, 10): blanks, a sign, digits;
// end is start when there are no digits, and overflow reports ERANGE.
func cStrtol(s string, start int) (v int64, end int, overflow bool) {
	i := start
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for ; j < len(s) && isDigit(s[j]); j++ {
		d := int64(s[j] - '0')
		if v > (math.MaxInt64-d)/10 {
			overflow = true
		} else if !overflow {
			v = v*10 + d
		}
	}
	if j == i {
		return 0, start, false
	}
	if neg {
		v = -v
	}
	return v, j, overflow
}

// dchTime is a date and time assembled from fields (a struct pg_tm).
type dchTime struct {
	year, mon, mday int64
	hour, min, sec  int64
	fsec            int64 // microseconds
	hasTZ           bool
	tzOffset        int64 // seconds east of UTC
	fprec           int   // FFn's n, to round to
	fieldMask       uint8 // which of year, month, day were given
	input           string
}

const (
	maskYear uint8 = 1 << iota
	maskMonth
	maskDay
	maskDate = maskYear | maskMonth | maskDay
)

// fieldOverflow is PostgreSQL's DTERR_FIELD_OVERFLOW report.
func fieldOverflow(input string) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
}

// wrap32 is v as C's int arithmetic leaves it: PostgreSQL 15 computes
// these fields in int, wrapping around (it is built with -fwrapv).
func wrap32(v int64) int64 { return int64(int32(v)) }

// julianDate is PostgreSQL's date2j: the Julian day number of y-m-d.
func julianDate(y, m, d int64) int64 {
	return types.DaysFromCivil(int(y), int(m), 1) + d - 1 + julianEpoch
}

// julianEpoch is the Julian day number of 1970-01-01.
const julianEpoch = 2440588

func fromJulian(j int64) (y, m, d int64) {
	yy, mm, dd := types.CivilFromDays(j - julianEpoch)
	return int64(yy), int64(mm), int64(dd)
}

// isoWeekJulian is the Julian day of the Monday of ISO week week of
// year year.
func isoWeekJulian(year, week int64) int64 {
	day4 := julianDate(year, 1, 4)
	day0 := floorMod(day4-1+1, 7) // the weekday of January 3rd, Sunday 0
	return (week-1)*7 + day4 - day0
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// toTime assembles the fields into a date and time (do_to_timestamp).
func (f *dchInput) toTime(input string) (*dchTime, error) {
	t := &dchTime{mon: 1, mday: 1, input: input, fprec: f.ff}
	if f.ssss != 0 {
		t.hour, t.min, t.sec = int64(f.ssss/3600), int64(f.ssss%3600/60), int64(f.ssss%60)
	}
	if f.ss != 0 {
		t.sec = int64(f.ss)
	}
	if f.mi != 0 {
		t.min = int64(f.mi)
	}
	if f.hh != 0 {
		t.hour = int64(f.hh)
	}
	if f.clock12 {
		if t.hour < 1 || t.hour > 12 {
			e := dchError("hour \"%d\" is invalid for the 12-hour clock", t.hour)
			e.Hint = "Use the 24-hour clock, or give an hour between 1 and 12."
			return nil, e
		}
		if f.pm != 0 && t.hour < 12 {
			t.hour += 12
		} else if f.pm == 0 && t.hour == 12 {
			t.hour = 0
		}
	}
	if err := f.setYear(t); err != nil {
		return nil, err
	}
	if err := f.setDate(t); err != nil {
		return nil, err
	}
	t.fsec = wrap32(wrap32(int64(f.ms)*1000) + int64(f.us))
	return t, t.validate(f)
}

// setYear sets the year from YYYY (and the like), CC and BC.
func (f *dchInput) setYear(t *dchTime) error {
	cc := int64(f.cc)
	if f.bc != 0 {
		cc = -cc
	}
	switch {
	case f.year != 0 && f.cc != 0 && f.yysz <= 2:
		// CC and YY: YY is the year in the given century; the 21st
		// century runs from 2001 to 2100.
		y := int64(f.year % 100)
		switch {
		case y == 0 && cc >= 0:
			y = cc * 100
		case y == 0:
			y = cc*100 + 1
		case cc >= 0:
			y += (cc - 1) * 100
		default:
			y = (cc+1)*100 - y + 1
		}
		t.year = y
	case f.year != 0:
		t.year = int64(f.year)
		if f.bc != 0 {
			t.year = -t.year
		}
		if t.year < 0 {
			t.year++
		}
	case f.cc != 0:
		t.year = (cc-1)*100 + 1
		if cc < 0 {
			t.year = cc*100 + 1
		}
	default:
		return nil
	}
	t.year = wrap32(t.year)
	t.fieldMask |= maskYear
	return nil
}

// setDate sets the month and day from J, IW/ID, WW, W, DD, MM and DDD.
func (f *dchInput) setDate(t *dchTime) error {
	if f.j != 0 {
		t.year, t.mon, t.mday = fromJulian(int64(f.j))
		t.fieldMask |= maskDate
	}
	ddd, dd := int64(f.ddd), int64(f.dd)
	if f.ww != 0 {
		if f.mode == dateModeISOWeek {
			j := isoWeekJulian(t.year, int64(f.ww))
			switch {
			case f.d > 1:
				j += int64(f.d) - 2
			case f.d != 0: // Sunday (1) ends the ISO week
				j += 6
			}
			t.year, t.mon, t.mday = fromJulian(j)
			t.fieldMask |= maskDate
		} else {
			ddd = wrap32((int64(f.ww)-1)*7 + 1)
		}
	}
	if f.w != 0 {
		dd = wrap32((int64(f.w)-1)*7 + 1)
	}
	if dd != 0 {
		t.mday = dd
		t.fieldMask |= maskDay
	}
	if f.mm != 0 {
		t.mon = int64(f.mm)
		t.fieldMask |= maskMonth
	}
	if ddd != 0 && (t.mon <= 1 || t.mday <= 1) {
		return f.dayOfYear(t, ddd)
	}
	return nil
}

// dayOfYear sets the month and day from a day of the year (Gregorian,
// or of the ISO year).
func (f *dchInput) dayOfYear(t *dchTime, ddd int64) error {
	if t.year == 0 && f.bc == 0 {
		return dchError("cannot calculate day of year without year information")
	}
	if f.mode == dateModeISOWeek {
		t.year, t.mon, t.mday = fromJulian(isoWeekJulian(t.year, 1) - 1 + ddd)
		t.fieldMask |= maskDate
		return nil
	}
	cum := [13]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
	leap := int64(0)
	if types.IsLeap(int(t.year)) {
		leap = 1
	}
	before := func(m int) int64 { // days of the year before month m+1
		if m >= 2 {
			return cum[m] + leap
		}
		return cum[m]
	}
	i := 1
	for ; i <= 12; i++ {
		if ddd <= before(i) {
			break
		}
	}
	if t.mon <= 1 {
		t.mon = int64(i)
	}
	if t.mday <= 1 {
		t.mday = ddd - before(i-1)
	}
	t.fieldMask |= maskMonth | maskDay
	return nil
}

// validate range-checks the date and time (ValidateDate and the time
// checks) and reads the time zone fields.
func (t *dchTime) validate(f *dchInput) error {
	if t.fieldMask&maskMonth != 0 && (t.mon < 1 || t.mon > 12) ||
		t.fieldMask&maskDay != 0 && (t.mday < 1 || t.mday > 31) ||
		t.fieldMask&maskDate == maskDate && t.mday > int64(types.DaysInMonth(int(t.year), int(t.mon))) {
		return fieldOverflow(t.input)
	}
	if t.hour < 0 || t.hour >= 24 || t.min < 0 || t.min >= 60 || t.sec < 0 || t.sec >= 60 ||
		t.fsec < 0 || t.fsec >= types.MicrosPerSecond {
		return fieldOverflow(t.input)
	}
	if f.tzsign != 0 {
		if f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60 {
			return pgerr.New("22009", "time zone displacement out of range: \"%s\"", t.input)
		}
		t.hasTZ = true
		t.tzOffset = int64(f.tzsign) * (int64(f.tzh)*3600 + int64(f.tzm)*60)
	}
	return nil
}

// validJulian is PostgreSQL's IS_VALID_JULIAN: from 4714-11-01 BC to
// 5874898-05-31.
func validJulian(y, m int64) bool {
	return (y > -4713 || y == -4713 && m >= 11) && (y < 5874898 || y == 5874898 && m < 6)
}

// timestamp is the time as a timestamp with time zone (tm2timestamp).
func (t *dchTime) timestamp() (types.Timestamp, error) {
	errRange := pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	if !validJulian(t.year, t.mon) {
		return 0, errRange
	}
	days := julianDate(t.year, t.mon, t.mday) - julianEpoch
	if days < -2440589 || days > 106_751_990 { // beyond: int64 microseconds overflow
		return 0, errRange
	}
	us := days*types.MicrosPerDay + ((t.hour*60+t.min)*60+t.sec)*types.MicrosPerSecond + t.fsec
	us -= t.tzOffset * types.MicrosPerSecond
	if t.fprec > 0 && t.fprec < 6 {
		us = roundMicros(us, t.fprec)
	}
	if !types.TimestampValid(types.Timestamp(us)) {
		return 0, errRange
	}
	return types.Timestamp(us), nil
}

// roundMicros rounds to prec fraction digits, halves away from zero
// (AdjustTimestampForTypmod).
func roundMicros(us int64, prec int) int64 {
	scale := int64(math.Pow10(6 - prec))
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

// date is the date (to_date).
func (t *dchTime) date() (types.Date, error) {
	errRange := pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", t.input)
	if !validJulian(t.year, t.mon) {
		return 0, errRange
	}
	days := julianDate(t.year, t.mon, t.mday) - julianEpoch
	if days < math.MinInt32 || days > math.MaxInt32 || !types.DateValid(types.Date(days)) {
		return 0, errRange
	}
	return types.Date(days), nil
}

// readDCH reads input through template into a date and time.
func readDCH(input, format string) (*dchTime, error) {
	r := &dchReader{in: input, nodes: parseDCHTemplate(format)}
	if err := r.readFields(); err != nil {
		return nil, err
	}
	return r.f.toTime(input)
}

func toTimestampText(a []types.Datum) (types.Datum, error) {
	t, err := readDCH(a[0].(string), a[1].(string))
	if err != nil {
		return nil, err
	}
	return t.timestamp()
}

func toDate(a []types.Datum) (types.Datum, error) {
	t, err := readDCH(a[0].(string), a[1].(string))
	if err != nil {
		return nil, err
	}
	return t.date()
}
