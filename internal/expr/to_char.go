package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// to_char(timestamp | timestamptz | interval, format), with PostgreSQL's
// template patterns (time zone UTC: a timestamptz's fields are UTC's and
// TZ prints "UTC"). Numbers are zero-padded to their field's width
// unless FM precedes the pattern; names are blank-padded to 9 characters
// (Month, Day) unless FM or TM; TH and th add an ordinal suffix; text in double
// quotes is copied (\" is a double quote). Numbers have their own
// templates: num_template.go, num_format.go and to_char_num.go.

func init() {
	register(overloads(append([]sig{
		fn2(tTS, tText, tText, toCharTimestamp(false)),
		fn2(tTSTZ, tText, tText, toCharTimestamp(true)),
		fn2(tIvl, tText, tText, toCharInterval),
	}, toCharNumSigs...)...), "to_char")
}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

var dayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

var romanMonths = [...]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// dchPatterns are the template patterns, longest first where one is a
// prefix of another, as PostgreSQL matches them.
var dchPatterns = []string{
	"A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I",
	"J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.", "PM", "Q", "RM", "SSSSS", "SSSS", "SS",
	"TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y",
	"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
	"ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy", "iyy", "iy", "i",
	"j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm", "sssss", "ssss", "ss",
	"tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
}

// dchFields are what a pattern prints from.
type dchFields struct {
	year, month, day                   int // astronomical year (0 = 1 BC)
	hour, min, sec                     int64
	micros                             int64 // within the second
	days                               int64 // day number (timestamps)
	doy                                int   // day of the year, 1-based
	dow                                int   // 0 = Sunday
	isoYear, isoWeek, isoDow, isoYDays int
	tz                                 string // the zone's abbreviation, or "" for a timestamp
	off                                int64  // the zone's offset, seconds east of UTC
}

func toCharTimestamp(tz bool) evalFn {
	if tz {
		return toCharTimestampTZ(nil)
	}
	return toCharTimestampIn(nil, false)
}

// toCharTimestampTZ is to_char(timestamptz, format) in the session time
// zone z: the fields of the local time, TZ its abbreviation, OF its offset.
func toCharTimestampTZ(z *types.Zone) evalFn { return toCharTimestampIn(z, true) }

func toCharTimestampIn(z *types.Zone, tz bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		ts := a[0].(types.Timestamp)
		if types.IsInfinite(ts) || a[1].(string) == "" {
			return nil, nil // an empty format is NULL, as in PostgreSQL
		}
		var abbrev string
		var off int64
		if tz {
			abbrev, off = z.Abbrev(ts), z.Offset(ts)
			ts = z.Local(ts)
		}
		f := splitFields(ts)
		iy, iw := f.isoWeek()
		jan1 := types.DaysFromCivil(int(iy), 1, 4)
		isoStart := jan1 - floorMod(jan1+3, 7) // the Monday of ISO week 1
		d := dchFields{year: f.y, month: f.m, day: f.d, hour: f.micros / types.MicrosPerHour,
			min: f.micros / types.MicrosPerMinute % 60, sec: f.micros / types.MicrosPerSecond % 60,
			micros: f.micros % types.MicrosPerSecond, days: f.days,
			doy: int(f.days-types.DaysFromCivil(f.y, 1, 1)) + 1, dow: int(f.isodow() % 7),
			isoYear: int(iy), isoWeek: int(iw), isoDow: int(f.isodow()), isoYDays: int(f.days-isoStart) + 1}
		d.tz, d.off = abbrev, off
		return formatDCH(a[1].(string), &d), nil
	}
}

// formatDCH renders format over d.
func formatDCH(format string, d *dchFields) string {
	out, _ := walkDCH(format, func(p string, fm, tm bool) (string, func(bool) string, error) {
		s, num := d.pattern(p, fm, tm)
		if num == dchNoNum {
			return s, nil, nil
		}
		return s, func(upper bool) string { return ordinal(num, upper) }, nil
	})
	return out
}

// dchNoNum is pattern's num for a name: TH adds nothing to it.
const dchNoNum = math.MinInt64

// pattern renders one pattern; num is the number it printed (for TH,
// which a negative number takes too: -13th), or dchNoNum for a name.
// TM (translation mode) prints Month and Day without padding.
func (d *dchFields) pattern(p string, fm, tm bool) (string, int64) {
	pad := func(n int64, width int) (string, int64) {
		if fm {
			return strconv.FormatInt(n, 10), n
		}
		s := strconv.FormatInt(absI64(n), 10)
		for len(s) < width {
			s = "0" + s
		}
		if n < 0 {
			s = "-" + s
		}
		return s, n
	}
	name := func(s string, upper, lower bool, width int) (string, int64) {
		switch {
		case upper:
			s = strings.ToUpper(s)
		case lower:
			s = strings.ToLower(s)
		}
		if !fm && !tm {
			for len(s) < width {
				s += " "
			}
		}
		return s, dchNoNum
	}
	year, isoYear := d.year, d.isoYear
	bc := year <= 0
	if bc {
		year = 1 - year
	}
	if isoYear <= 0 {
		isoYear = 1 - isoYear
	}
	up := strings.ToUpper(p)
	isUpper := p == up
	isLower := p == strings.ToLower(p)
	switch up {
	case "HH", "HH12":
		h := d.hour % 12
		if h == 0 {
			h = 12
		}
		return pad(h, 2)
	case "HH24":
		return pad(d.hour, 2)
	case "MI":
		return pad(d.min, 2)
	case "SS":
		return pad(d.sec, 2)
	case "MS":
		return pad(d.micros/1000, 3)
	case "US":
		return pad(d.micros, 6)
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		n := int(p[2] - '0')
		v := d.micros
		for k := n; k < 6; k++ {
			v /= 10
		}
		return pad(v, n)
	case "SSSS", "SSSSS":
		return pad(d.hour*3600+d.min*60+d.sec, 0)
	case "AM", "PM":
		s := "AM"
		if d.hour%24 >= 12 {
			s = "PM"
		}
		if isLower {
			s = strings.ToLower(s)
		}
		return s, dchNoNum
	case "A.M.", "P.M.":
		s := "A.M."
		if d.hour%24 >= 12 {
			s = "P.M."
		}
		if isLower {
			s = strings.ToLower(s)
		}
		return s, dchNoNum
	case "Y,YYY":
		s := strconv.Itoa(year / 1000)
		rest, _ := pad(int64(year%1000), 3)
		if fm {
			rest = strconv.Itoa(year % 1000)
			for len(rest) < 3 {
				rest = "0" + rest
			}
		}
		return s + "," + rest, int64(year)
	case "YYYY":
		return pad(int64(year), 4)
	case "YYY":
		return pad(int64(year%1000), 3)
	case "YY":
		return pad(int64(year%100), 2)
	case "Y":
		return pad(int64(year%10), 1)
	case "IYYY":
		return pad(int64(isoYear), 4)
	case "IYY":
		return pad(int64(isoYear%1000), 3)
	case "IY":
		return pad(int64(isoYear%100), 2)
	case "I":
		return pad(int64(isoYear%10), 1)
	case "BC", "AD":
		s := "AD"
		if bc {
			s = "BC"
		}
		if isLower {
			s = strings.ToLower(s)
		}
		return s, dchNoNum
	case "B.C.", "A.D.":
		s := "A.D."
		if bc {
			s = "B.C."
		}
		if isLower {
			s = strings.ToLower(s)
		}
		return s, dchNoNum
	case "MONTH":
		if d.month < 1 {
			return "", dchNoNum
		}
		return name(monthNames[d.month-1], isUpper, isLower, 9)
	case "MON":
		if d.month < 1 {
			return "", dchNoNum
		}
		return name(monthNames[d.month-1][:3], isUpper, isLower, 0)
	case "MM":
		return pad(int64(d.month), 2)
	case "DAY":
		return name(dayNames[d.dow], isUpper, isLower, 9)
	case "DY":
		return name(dayNames[d.dow][:3], isUpper, isLower, 0)
	case "DDD":
		return pad(int64(d.doy), 3)
	case "IDDD":
		return pad(int64(d.isoYDays), 3)
	case "DD":
		return pad(int64(d.day), 2)
	case "D":
		return pad(int64(d.dow+1), 0)
	case "ID":
		return pad(int64(d.isoDow), 0)
	case "W":
		return pad(int64((d.day-1)/7+1), 0)
	case "WW":
		return pad(int64((d.doy-1)/7+1), 2)
	case "IW":
		return pad(int64(d.isoWeek), 2)
	case "CC":
		cc := (year + 99) / 100
		if bc {
			cc = -cc
		}
		return pad(int64(cc), 2)
	case "J":
		return pad(d.days+2440588, 0)
	case "Q":
		if d.month < 1 {
			return "", dchNoNum
		}
		return pad(int64((d.month-1)/3+1), 0)
	case "RM":
		if d.month < 1 {
			return "", dchNoNum
		}
		s := romanMonths[d.month-1]
		if isLower {
			s = strings.ToLower(s)
		}
		if !fm {
			for len(s) < 4 {
				s += " "
			}
		}
		return s, dchNoNum
	case "TZ":
		if isLower {
			return strings.ToLower(d.tz), dchNoNum
		}
		return d.tz, dchNoNum
	case "TZH", "TZM", "OF":
		return d.offsetPattern(p, fm), dchNoNum
	case "FX":
		return "", dchNoNum
	}
	return p, dchNoNum
}

// offsetPattern prints TZH (+05), TZM (30) or OF (+05:30; FM drops the
// hours' zero padding) of a timestamptz's zone offset (a timestamp's is
// +00, as PostgreSQL prints it).
func (d *dchFields) offsetPattern(p string, fm bool) string {
	sign, abs := '+', d.off
	if abs < 0 {
		sign, abs = '-', -abs
	}
	switch p {
	case "TZH":
		return fmt.Sprintf("%c%02d", sign, abs/3600)
	case "TZM":
		return fmt.Sprintf("%02d", abs%3600/60)
	}
	width := 2
	if fm {
		width = 0
	}
	s := fmt.Sprintf("%c%0*d", sign, width, abs/3600)
	if abs%3600 != 0 {
		s += fmt.Sprintf(":%02d", abs%3600/60)
	}
	return s
}

func absI64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// ordinal is the English ordinal suffix of n.
func ordinal(n int64, upper bool) string {
	n = absI64(n)
	s := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			s = "st"
		case 2:
			s = "nd"
		case 3:
			s = "rd"
		}
	}
	if upper {
		return strings.ToUpper(s)
	}
	return s
}
