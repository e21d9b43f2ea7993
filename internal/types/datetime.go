package types

import "math"

// Time unit lengths in microseconds.
const (
	MicrosPerSecond int64 = 1_000_000
	MicrosPerMinute       = 60 * MicrosPerSecond
	MicrosPerHour         = 60 * MicrosPerMinute
	MicrosPerDay          = 24 * MicrosPerHour
)

// Infinite dates and timestamps, as Postgres keeps them: the extreme values
// of the representation.
const (
	DateInfinity         Date      = math.MaxInt32
	DateNegInfinity      Date      = math.MinInt32
	TimestampInfinity    Timestamp = math.MaxInt64
	TimestampNegInfinity Timestamp = math.MinInt64
)

// Valid ranges. Dates and timestamps start, as in Postgres, at Julian day 0
// (4714-11-24 BC). Dates end at 5874897-12-31; timestamps end earlier than in
// Postgres (which counts from 2000-01-01) because ours count from 1970 in
// an int64: the last valid year is 294246.
var (
	minDate      = Date(-2440588)
	maxDate      = Date(2145042905)
	minTimestamp = Timestamp(int64(minDate) * MicrosPerDay)
	endTimestamp = Timestamp(DaysFromCivil(294247, 1, 1) * MicrosPerDay)
)

// DaysFromCivil returns the day number (days since 1970-01-01) of the
// proleptic Gregorian date y-m-d; year 0 is 1 BC. m and d must be in range.
func DaysFromCivil(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(days int64) (y, m, d int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// DaysInMonth returns the number of days of month m of year y.
func DaysInMonth(y, m int) int {
	switch m {
	case 2:
		if IsLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// IsLeap reports whether y (astronomical numbering) is a leap year.
func IsLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// SplitTimestamp returns the day number and the microseconds since midnight
// of ts.
func SplitTimestamp(ts Timestamp) (days, micros int64) {
	days = floorDiv(int64(ts), MicrosPerDay)
	return days, int64(ts) - days*MicrosPerDay
}

// DateValid reports whether d is a finite date within Postgres's range.
func DateValid(d Date) bool { return d >= minDate && d <= maxDate }

// TimestampValid reports whether ts is a finite timestamp within range.
func TimestampValid(ts Timestamp) bool { return ts >= minTimestamp && ts < endTimestamp }

// IsInfinite reports whether a date or timestamp Datum is +/-infinity.
func IsInfinite(d Datum) bool {
	switch v := d.(type) {
	case Date:
		return v == DateInfinity || v == DateNegInfinity
	case Timestamp:
		return v == TimestampInfinity || v == TimestampNegInfinity
	}
	return false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
