package expr

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// to_char(interval, format), as PostgreSQL 15's interval_to_char and
// DCH_to_char print it: the interval's fields as interval2itm splits
// them (years, months, days, hours, minutes, seconds, microseconds, each
// with the interval's sign where it has one), the day of the year
// approximated as (years * 12 + months) * 30 + days, and the patterns of
// calendar dates (J, IW, IDDD, IYYY ...) computed by PostgreSQL's date
// arithmetic over those fields as if they were a date. Names of days and
// months, eras and time zones are errors: an interval is not a date. An
// empty format is NULL.

func toCharInterval(a []types.Datum) (types.Datum, error) {
	format := a[1].(string)
	if format == "" {
		return nil, nil
	}
	iv := a[0].(types.Interval)
	us := iv.Micros
	f := ivlFields{year: int32(iv.Months / 12), mon: int32(iv.Months % 12), mday: int32(iv.Days),
		hour: us / types.MicrosPerHour, min: us / types.MicrosPerMinute % 60,
		sec: us / types.MicrosPerSecond % 60, fsec: us % types.MicrosPerSecond}
	f.yday = (f.year*12+f.mon)*30 + f.mday
	out, err := walkDCH(format, func(p string, fm, tm bool) (string, func(bool) string, error) {
		s, num, err := f.pattern(p, fm, tm)
		if !num {
			return s, nil, err
		}
		return s, func(upper bool) string { return thSuffix(s, upper) }, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ivlFields are an interval's fields, as PostgreSQL's struct pg_tm holds
// them for to_char (C ints: int32 arithmetic, as PostgreSQL's wraps).
type ivlFields struct {
	year, mon, mday, yday int32
	hour, min, sec, fsec  int64
}

// errIntervalFormat is INVALID_FOR_INTERVAL's error.
func errIntervalFormat() error {
	e := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid format specification for an interval value")
	e.Hint = "Intervals are not tied to specific calendar dates."
	return e
}

// pattern prints one template pattern p; num says whether TH may follow
// (it needs a number).
func (f ivlFields) pattern(p string, fm, tm bool) (out string, num bool, err error) {
	// width is the zero padding: none in fill mode, one more for a
	// negative value.
	width := func(w int, neg bool) int {
		switch {
		case fm:
			return 0
		case neg:
			return w + 1
		}
		return w
	}
	nf := func(w int, v int64) (string, bool, error) { return fmt.Sprintf("%0*d", w, v), true, nil }
	up := strings.ToUpper(p)
	isLower := p == strings.ToLower(p)
	switch up {
	case "AM", "PM", "A.M.", "P.M.":
		pm := f.hour%24 >= 12
		s := map[bool]string{false: "AM", true: "PM"}[pm]
		if len(up) == 4 {
			s = map[bool]string{false: "A.M.", true: "P.M."}[pm]
		}
		if isLower {
			s = strings.ToLower(s)
		}
		return s, false, nil
	case "HH", "HH12":
		h := f.hour % 12
		if h == 0 {
			h = 12
		}
		return nf(width(2, f.hour < 0), h)
	case "HH24":
		return nf(width(2, f.hour < 0), f.hour)
	case "MI":
		return nf(width(2, f.min < 0), f.min)
	case "SS":
		return nf(width(2, f.sec < 0), f.sec)
	case "FF1":
		return nf(1, f.fsec/100000)
	case "FF2":
		return nf(2, f.fsec/10000)
	case "FF3", "MS":
		return nf(3, f.fsec/1000)
	case "FF4":
		return nf(4, f.fsec/100)
	case "FF5":
		return nf(5, f.fsec/10)
	case "FF6", "US":
		return nf(6, f.fsec)
	case "SSSS", "SSSSS":
		return nf(0, f.hour*3600+f.min*60+f.sec)
	case "TZ", "TZH", "TZM", "OF", "A.D.", "B.C.", "AD", "BC", "MONTH", "MON", "DAY", "DY", "D", "ID":
		return "", false, errIntervalFormat()
	case "MM":
		return nf(width(2, f.mon < 0), int64(f.mon))
	case "DDD":
		return nf(width(3, false), int64(f.yday))
	case "IDDD":
		return nf(width(3, false), int64(pgDate2ISOYearDay(f.year, f.mon, f.mday)))
	case "DD":
		return nf(width(2, false), int64(f.mday))
	case "WW":
		return nf(width(2, false), int64((f.yday-1)/7+1))
	case "IW":
		return nf(width(2, false), int64(pgDate2ISOWeek(f.year, f.mon, f.mday)))
	case "Q":
		if f.mon == 0 {
			return "", false, nil
		}
		return nf(0, int64((f.mon-1)/3+1))
	case "CC":
		i := f.year / 100
		if i <= 99 && i >= -99 {
			return nf(width(2, i < 0), int64(i))
		}
		return nf(0, int64(i))
	case "Y,YYY":
		i := f.year / 1000
		return fmt.Sprintf("%d,%03d", i, f.year-i*1000), true, nil
	case "YYYY", "YYY", "YY", "Y", "IYYY", "IYY", "IY", "I":
		// The padding goes by the year, also for the ISO year.
		y := f.year
		if up[0] == 'I' {
			y = pgDate2ISOYear(f.year, f.mon, f.mday)
		}
		switch up {
		case "YYYY", "IYYY":
			return nf(width(4, f.year < 0), int64(y))
		case "YYY", "IYY":
			return nf(width(3, f.year < 0), int64(y%1000))
		case "YY", "IY":
			return nf(width(2, f.year < 0), int64(y%100))
		}
		return nf(1, int64(y%10))
	case "RM":
		if f.mon == 0 && f.year == 0 {
			return "", false, nil
		}
		var m int32
		switch {
		case f.mon == 0:
			if f.year < 0 {
				m = 11
			}
		case f.mon < 0:
			m = -(f.mon + 1)
		default:
			m = 12 - f.mon
		}
		s := romanMonths[11-m]
		if isLower {
			s = strings.ToLower(s)
		}
		if !fm {
			s = fmt.Sprintf("%-4s", s)
		}
		return s, false, nil
	case "W":
		return nf(0, int64((f.mday-1)/7+1))
	case "J":
		return nf(0, int64(pgDate2J(f.year, f.mon, f.mday)))
	case "FX":
		return "", false, nil
	}
	return p, false, nil
}

// walkDCH renders format with emit printing each template pattern:
// its text, and for a number the ordinal suffix a TH or th after it adds
// (nil: none, for a name).
func walkDCH(format string, emit func(p string, fm, tm bool) (string, func(upper bool) string, error)) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); {
		// One prefix at most, as PostgreSQL reads it: FM (fill mode) or
		// TM (translation mode: names are English here, but never
		// padded). "FMTMDay" is FM, then the characters T and M, then Day.
		fm, tm := false, false
		switch format[i:min(i+2, len(format))] {
		case "FM", "fm":
			fm = true
			i += 2
		case "TM", "tm":
			tm = true
			i += 2
		}
		if i >= len(format) {
			break
		}
		c := format[i]
		if c == '"' {
			for i++; i < len(format) && format[i] != '"'; i++ {
				if format[i] == '\\' && i+1 < len(format) {
					i++
				}
				b.WriteByte(format[i])
			}
			i++
			continue
		}
		if c == '\\' && i+1 < len(format) && format[i+1] == '"' {
			b.WriteByte('"')
			i += 2
			continue
		}
		pat := ""
		for _, p := range dchPatterns {
			if strings.HasPrefix(format[i:], p) {
				pat = p
				break
			}
		}
		if pat == "" {
			b.WriteByte(c)
			i++
			continue
		}
		i += len(pat)
		// One suffix at most: TH, th, or SP (spell mode: not implemented
		// by PostgreSQL either); "DDTHSP" prints SP as text.
		th := ""
		switch format[i:min(i+2, len(format))] {
		case "TH", "th":
			th = format[i : i+2]
			i += 2
		case "SP":
			i += 2
		}
		out, suffix, err := emit(pat, fm, tm)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
		if th != "" && suffix != nil {
			b.WriteString(suffix(th == "TH"))
		}
	}
	return b.String(), nil
}

// thSuffix is PostgreSQL's get_th: the ordinal suffix of the number
// printed as s, by its last two characters.
func thSuffix(s string, upper bool) string {
	suffix := "th"
	if n := len(s); n > 0 && (n == 1 || s[n-2] != '1') {
		switch s[n-1] {
		case '1':
			suffix = "st"
		case '2':
			suffix = "nd"
		case '3':
			suffix = "rd"
		}
	}
	if upper {
		return strings.ToUpper(suffix)
	}
	return suffix
}

// PostgreSQL's date arithmetic (datetime.c, timestamp.c) over C ints,
// for to_char's patterns of an interval's fields read as a date.

// pgDate2J is date2j.
func pgDate2J(year, month, day int32) int32 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// pgJ2Day is j2day: the day of the week of a Julian day, 0 = Sunday.
func pgJ2Day(date int32) int32 {
	date++
	date %= 7
	if date < 0 {
		date += 7
	}
	return date
}

// pgDate2ISOWeek is date2isoweek.
func pgDate2ISOWeek(year, mon, mday int32) int32 {
	dayn := pgDate2J(year, mon, mday)
	day4 := pgDate2J(year, 1, 4)
	day0 := pgJ2Day(day4 - 1)
	if dayn < day4-day0 {
		day4 = pgDate2J(year-1, 1, 4)
		day0 = pgJ2Day(day4 - 1)
	}
	result := (dayn-(day4-day0))/7 + 1
	if result >= 52 {
		day4 = pgDate2J(year+1, 1, 4)
		day0 = pgJ2Day(day4 - 1)
		if dayn >= day4-day0 {
			result = (dayn-(day4-day0))/7 + 1
		}
	}
	return result
}

// pgDate2ISOYear is date2isoyear.
func pgDate2ISOYear(year, mon, mday int32) int32 {
	dayn := pgDate2J(year, mon, mday)
	day4 := pgDate2J(year, 1, 4)
	day0 := pgJ2Day(day4 - 1)
	if dayn < day4-day0 {
		day4 = pgDate2J(year-1, 1, 4)
		day0 = pgJ2Day(day4 - 1)
		year--
	}
	result := (dayn-(day4-day0))/7 + 1
	if result >= 52 {
		day4 = pgDate2J(year+1, 1, 4)
		day0 = pgJ2Day(day4 - 1)
		if dayn >= day4-day0 {
			year++
		}
	}
	return year
}

// pgDate2ISOYearDay is date2isoyearday.
func pgDate2ISOYearDay(year, mon, mday int32) int32 {
	iy := pgDate2ISOYear(year, mon, mday)
	day4 := pgDate2J(iy, 1, 4)
	day0 := pgJ2Day(day4 - 1)
	return pgDate2J(year, mon, mday) - (day4 - day0) + 1
}
