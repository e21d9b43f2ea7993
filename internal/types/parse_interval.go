package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// intervalUnit is one unit word of interval input.
type intervalUnit struct {
	months int64 // whole months per unit (year, decade ...)
	days   int64 // whole days per unit (day, week)
	micros int64 // microseconds per unit (hour ... microsecond)
}

var intervalUnits = map[string]intervalUnit{}

func init() {
	add := func(u intervalUnit, names ...string) {
		for _, n := range names {
			intervalUnits[n] = u
		}
	}
	add(intervalUnit{micros: 1}, "microsecond", "microseconds", "us", "usec", "usecs", "useconds")
	add(intervalUnit{micros: 1000}, "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds")
	add(intervalUnit{micros: MicrosPerSecond}, "second", "seconds", "s", "sec", "secs")
	add(intervalUnit{micros: MicrosPerMinute}, "minute", "minutes", "m", "min", "mins")
	add(intervalUnit{micros: MicrosPerHour}, "hour", "hours", "h", "hr", "hrs")
	add(intervalUnit{days: 1}, "day", "days", "d")
	add(intervalUnit{days: 7}, "week", "weeks", "w")
	add(intervalUnit{months: 1}, "month", "months", "mon", "mons")
	add(intervalUnit{months: 12}, "year", "years", "y", "yr", "yrs")
	add(intervalUnit{months: 120}, "decade", "decades", "dec", "decs")
	add(intervalUnit{months: 1200}, "century", "centuries", "c", "cent")
	add(intervalUnit{months: 12000}, "millennium", "millennia", "mil", "mils")
}

// intervalAcc accumulates interval fields with room to detect overflow.
// Microseconds are kept exactly; months and days as floats (they are
// small enough to be exact).
type intervalAcc struct {
	months, days float64
	micros       int64
	overflow     bool
}

// addMicros adds a (rounded) number of microseconds.
func (a *intervalAcc) addMicros(f float64) {
	r := math.RoundToEven(f)
	if math.Abs(r) >= 9.2e18 {
		a.overflow = true
		return
	}
	a.addMicrosInt(int64(r))
}

func (a *intervalAcc) addMicrosInt(n int64) {
	r := a.micros + n
	if (a.micros >= 0) == (n >= 0) && (r >= 0) != (n >= 0) {
		a.overflow = true
	}
	a.micros = r
}

// addWhole adds n units of us microseconds exactly.
func (a *intervalAcc) addWhole(n, us int64) {
	if n != 0 && (n > math.MaxInt64/us || n < math.MinInt64/us) {
		a.overflow = true
		return
	}
	a.addMicrosInt(n * us)
}

// add adds v units of u, spilling fractions down as Postgres 15 does:
// fractional months become 30-day days, fractional days 24-hour days.
func (a *intervalAcc) add(v float64, u intervalUnit) {
	switch {
	case u.months >= 12:
		whole := math.Trunc(v)
		a.months += whole*float64(u.months) + math.RoundToEven((v-whole)*float64(u.months))
	case u.months == 1:
		whole := math.Trunc(v)
		a.months += whole
		a.addDays((v - whole) * 30)
	case u.days > 0:
		a.addDays(v * float64(u.days))
	default:
		whole := math.Trunc(v)
		if math.Abs(whole) >= 9.2e18 {
			a.overflow = true
			return
		}
		a.addWhole(int64(whole), u.micros)
		a.addMicros((v - whole) * float64(u.micros))
	}
}

func (a *intervalAcc) addDays(v float64) {
	whole := math.Trunc(v)
	a.days += whole
	a.addMicros((v - whole) * float64(MicrosPerDay))
}

func (a *intervalAcc) negate() {
	a.months, a.days = -a.months, -a.days
	if a.micros == math.MinInt64 {
		a.overflow = true
	}
	a.micros = -a.micros
}

func (a *intervalAcc) result(s string) (Interval, error) {
	if math.Abs(a.months) > math.MaxInt32 || math.Abs(a.days) > math.MaxInt32 || a.overflow {
		return Interval{}, pgerr.New("22015", "interval field value out of range: %q", s)
	}
	return Interval{Months: int32(a.months), Days: int32(a.days), Micros: a.micros}, nil
}

// ParseInterval reads an interval in Postgres syntax ("1 day", "2 hours 30
// minutes", "1 year 2 mons", "01:02:03", "1 day 02:03:04", "-1 day",
// "3 days ago", "@ 1 minute", a bare number of seconds) or ISO 8601
// ("P1Y2M3DT4H5M6S").
func ParseInterval(s string) (Interval, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	v = strings.TrimSpace(strings.TrimPrefix(v, "@"))
	var acc intervalAcc
	var ok bool
	if strings.HasPrefix(v, "p") {
		ok = parseISOInterval(v[1:], &acc)
	} else {
		ok = parsePGInterval(v, &acc)
	}
	if !ok {
		return Interval{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	}
	return acc.result(s)
}

// intervalTokens splits interval input into numbers (with sign, point and
// colons) and words.
func intervalTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == ',' || c == '\t':
			i++
			continue
		case isDigit(c) || c == '+' || c == '-' || c == '.':
			for i++; i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == ':'); i++ {
			}
		case c >= 'a' && c <= 'z':
			for i++; i < len(s) && s[i] >= 'a' && s[i] <= 'z'; i++ {
			}
		default:
			return nil
		}
		toks = append(toks, s[start:i])
	}
	return toks
}

func parsePGInterval(s string, acc *intervalAcc) bool {
	toks := intervalTokens(s)
	if len(toks) == 0 {
		return false
	}
	ago := false
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok == "ago" && i == len(toks)-1:
			ago = true
		case strings.Contains(tok, ":"):
			if !addClock(tok, acc) {
				return false
			}
		case isDigit(tok[0]) || strings.ContainsAny(tok[:1], "+-."):
			f, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return false
			}
			u := intervalUnit{micros: MicrosPerSecond}
			if i+1 < len(toks) && toks[i+1] != "ago" {
				var known bool
				if u, known = intervalUnits[toks[i+1]]; !known {
					return false
				}
				i++
			}
			acc.add(f, u)
		default:
			return false
		}
	}
	if ago {
		acc.negate()
	}
	return true
}

// addClock adds [-]H:MM[:SS[.ffffff]] or [-]MM:SS.ffffff (hours
// unbounded) to acc, exactly.
func addClock(tok string, acc *intervalAcc) bool {
	sign := int64(1)
	if strings.HasPrefix(tok, "-") {
		sign = -1
	}
	parts := strings.Split(strings.TrimLeft(tok, "+-"), ":")
	if len(parts) > 3 {
		return false
	}
	units := []int64{MicrosPerHour, MicrosPerMinute, MicrosPerSecond}
	if len(parts) == 2 && strings.Contains(parts[1], ".") {
		units = units[1:] // MM:SS.fff
	}
	var total intervalAcc
	for i, part := range parts {
		whole, frac, hasFrac := strings.Cut(part, ".")
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || (hasFrac && i < len(parts)-1) || (i > 0 && n >= 60) || strings.Trim(frac, "0123456789") != "" {
			return false
		}
		total.addWhole(sign*n, units[i])
		if hasFrac {
			total.addMicrosInt(sign * fractionMicros(frac) * units[i] / MicrosPerSecond)
		}
	}
	acc.addMicrosInt(total.micros)
	acc.overflow = acc.overflow || total.overflow
	return true
}

// parseISOInterval reads the part after "P" of an ISO 8601 duration.
func parseISOInterval(s string, acc *intervalAcc) bool {
	if s == "" {
		return false
	}
	inTime := false
	for s != "" {
		if s[0] == 't' {
			if inTime {
				return false
			}
			inTime, s = true, s[1:]
			continue
		}
		j := 0
		for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == '-' || s[j] == '+') {
			j++
		}
		if j == 0 || j == len(s) {
			return false
		}
		f, err := strconv.ParseFloat(s[:j], 64)
		if err != nil {
			return false
		}
		u, ok := isoUnit(s[j], inTime)
		if !ok {
			return false
		}
		acc.add(f, u)
		s = s[j+1:]
	}
	return true
}

func isoUnit(c byte, inTime bool) (intervalUnit, bool) {
	name := map[bool]map[byte]string{
		false: {'y': "year", 'm': "month", 'w': "week", 'd': "day"},
		true:  {'h': "hour", 'm': "minute", 's': "second"},
	}[inTime][c]
	u, ok := intervalUnits[name]
	return u, ok
}
