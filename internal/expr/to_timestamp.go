package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// to_timestamp(text, template) and to_date(text, template), as
// PostgreSQL 15 reads a date/time through a template (formatting.c's
// DCH_from_char and do_to_timestamp): each pattern reads its field
// (fixed width unless FM or a non-digit follows), spaces and separators
// in the template match one space or separator or nothing, other
// template characters skip one input character, and outside FX mode
// spaces before fields are skipped. Fields left out default to year 0
// (1 BC), January, the 1st, midnight; the session time zone is UTC, so
// a timestamp without TZH/TZM is read as UTC.

func init() {
	register(overloads(fn2(tText, tText, tDate, toDate)), "to_date")
}

// dchInput are the fields read (TmFromChar); 0 means not given.
type dchInput struct {
	mode                             uint8
	hh, pm, mi, ss, ssss, d, dd, ddd int
	mm, ms, year, bc, ww, w, cc, j   int
	us, yysz, ff                     int
	clock12                          bool
	tzsign, tzh, tzm                 int
}

// dchReader reads an input string through a template.
type dchReader struct {
	in        string
	s         int // the next input byte
	nodes     []dchNode
	ni        int // the node being read
	fx        bool
	extraSkip int // input characters skipped beyond those the template names
	f         dchInput
}

func dchError(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, format, args...)
}

// readFields fills r.f from the input (DCH_from_char).
func (r *dchReader) readFields() error {
	for ; r.ni < len(r.nodes) && r.s < len(r.in); r.ni++ {
		n := &r.nodes[r.ni]
		if !r.fx && (n.kind != dchAction || n.key.id != dchFX) && (n.kind == dchAction || r.ni == 0) {
			r.skipSpaces()
		}
		switch n.kind {
		case dchSpace, dchSeparator:
			if r.fx {
				r.next()
				continue
			}
			r.extraSkip--
			if c := r.at(r.s); isCSpace(c) || isSeparatorChar(c) {
				r.s++
				r.extraSkip++
			}
			continue
		case dchChar:
			if !r.fx && r.extraSkip > 0 {
				r.extraSkip--
			} else {
				r.next()
			}
			continue
		}
		if err := r.setMode(n.key.mode); err != nil {
			return err
		}
		if err := r.field(n); err != nil {
			return err
		}
		if !r.fx {
			r.extraSkip = 0
			r.skipSpaces()
		}
	}
	return nil
}

// at is the input byte at i, or 0 past the end (C's NUL).
func (r *dchReader) at(i int) byte {
	if i < len(r.in) {
		return r.in[i]
	}
	return 0
}

// next moves past one input character, if any is left.
func (r *dchReader) next() {
	if r.s < len(r.in) {
		r.s += charLen(r.in[r.s:])
	}
}

func (r *dchReader) skipSpaces() {
	for r.s < len(r.in) && isCSpace(r.in[r.s]) {
		r.s++
		r.extraSkip++
	}
}

func (r *dchReader) setMode(mode uint8) error {
	if mode == dateModeNone {
		return nil
	}
	if r.f.mode == dateModeNone {
		r.f.mode = mode
		return nil
	}
	if r.f.mode != mode {
		e := dchError("invalid combination of date conventions")
		e.Hint = "Do not mix Gregorian and ISO week date conventions in a formatting template."
		return e
	}
	return nil
}

// set stores a field, which must not contradict an earlier one.
func (r *dchReader) set(dest *int, v int) error {
	if *dest != 0 && *dest != v {
		e := dchError("conflicting values for \"%s\" field in formatting string", r.nodes[r.ni].key.name)
		e.Detail = "This value contradicts a previous setting for the same field type."
		return e
	}
	*dest = v
	return nil
}

// skipTH skips an ordinal suffix after a number.
func (r *dchReader) skipTH() {
	if r.nodes[r.ni].th {
		r.next()
		r.next()
	}
}

// field reads one pattern's field.
func (r *dchReader) field(n *dchNode) error {
	f := &r.f
	switch n.key.id {
	case dchFX:
		r.fx = true
		return nil
	case dchAMDots, dchAM:
		return r.name(&f.pm, ampmNames(n.key.id == dchAMDots), func(v int) int { f.clock12 = true; return v % 2 })
	case dchADDots, dchAD:
		return r.name(&f.bc, adbcNames(n.key.id == dchADDots), func(v int) int { return v % 2 })
	case dchMONTH:
		return r.name(&f.mm, monthNames[:], func(v int) int { return v + 1 })
	case dchMON:
		return r.name(&f.mm, monthAbbrevs, func(v int) int { return v + 1 })
	case dchDAY, dchDY:
		names := dayNames[:]
		if n.key.id == dchDY {
			names = dayAbbrevs
		}
		err := r.name(&f.d, names, func(v int) int { return v })
		f.d++
		return err
	case dchRM:
		return r.name(&f.mm, romanMonthsDesc, func(v int) int { return 12 - v })
	case dchTZ, dchOF:
		return pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.key.name)
	case dchTZH:
		return r.tzHour()
	case dchTZM:
		if f.tzsign == 0 {
			f.tzsign = 1
		}
		_, err := r.intLen(&f.tzm, 2)
		return err
	case dchYCommaYYY:
		return r.yCommaYYY()
	}
	return r.numberField(n)
}

// numberField reads a numeric field.
func (r *dchReader) numberField(n *dchNode) error {
	f := &r.f
	width := len(n.key.name)
	var dest *int
	switch n.key.id {
	case dchHH, dchHH24:
		dest, width, f.clock12 = &f.hh, 2, f.clock12 || n.key.id == dchHH
	case dchMI:
		dest = &f.mi
	case dchSS:
		dest = &f.ss
	case dchMS:
		return r.fraction(&f.ms, 3, 3)
	case dchUS:
		return r.fraction(&f.us, 6, 6)
	case dchFF:
		f.ff = n.key.arg
		return r.fraction(&f.us, n.key.arg, 6)
	case dchSSSS:
		dest = &f.ssss
	case dchMM:
		dest = &f.mm
	case dchDDD:
		dest = &f.ddd
	case dchIDDD:
		dest, width = &f.ddd, 3
	case dchDD:
		dest = &f.dd
	case dchD:
		dest = &f.d
	case dchIDay:
		if _, err := r.intLen(&f.d, 1); err != nil {
			return err
		}
		if f.d++; f.d > 7 {
			f.d = 1
		}
		r.skipTH()
		return nil
	case dchWW, dchIW:
		dest = &f.ww
	case dchQ:
		dest = nil // read, and ignored
	case dchCC:
		dest = &f.cc
	case dchYYYY, dchIYYY, dchYYY, dchIYY, dchYY, dchIY, dchY, dchI:
		return r.year(n)
	case dchW:
		dest = &f.w
	case dchJ:
		dest = &f.j
	}
	if _, err := r.intLen(dest, width); err != nil {
		return err
	}
	r.skipTH()
	return nil
}

// fraction reads MS, US or FFn, width characters, scaled as the leading
// digits of a field of digits digits ("25" for MS is 250 milliseconds).
func (r *dchReader) fraction(dest *int, width, digits int) error {
	n, err := r.intLen(dest, width)
	if err != nil {
		return err
	}
	for ; n < digits && n > 0; n++ {
		*dest = int(wrap32(int64(*dest) * 10))
	}
	r.skipTH()
	return nil
}

// year reads YYYY, YYY, YY, Y and their ISO forms; fewer than four
// digits are a year near 2020.
func (r *dchReader) year(n *dchNode) error {
	f := &r.f
	size := map[dchPat]int{dchYYYY: 4, dchIYYY: 4, dchYYY: 3, dchIYY: 3, dchYY: 2, dchIY: 2, dchY: 1, dchI: 1}[n.key.id]
	used, err := r.intLen(&f.year, len(n.key.name))
	if err != nil {
		return err
	}
	if size < 4 && used < 4 {
		f.year = adjustYearTo2020(f.year)
	}
	f.yysz = size
	r.skipTH()
	return nil
}

func adjustYearTo2020(y int) int {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}

// yCommaYYY reads Y,YYY: digits, a comma, up to three digits.
func (r *dchReader) yCommaYYY() error {
	millennia, n1, ok := scanCInt(r.in[r.s:], -1)
	rest := r.in[r.s+n1:]
	if !ok || !strings.HasPrefix(rest, ",") {
		return dchError("invalid input string for \"Y,YYY\"")
	}
	years, n2, ok := scanCInt(rest[1:], 3)
	if !ok {
		return dchError("invalid input string for \"Y,YYY\"")
	}
	y := wrap32(wrap32(int64(millennia)*1000) + int64(years))
	if err := r.set(&r.f.year, int(y)); err != nil {
		return err
	}
	r.f.yysz = 4
	r.s += n1 + 1 + n2
	r.skipTH()
	return nil
}

// scanCInt is scanf's %d (width -1: any): blanks, a sign, digits. It
// returns the value, the bytes used and whether there were digits.
func scanCInt(s string, width int) (int, int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	if width < 0 {
		width = len(s)
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') && width > 1 {
		i++
	}
	j := i
	for j < len(s) && j-start < width && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(s[start:j], 10, 32)
	if err != nil {
		v = math.MaxInt32 // scanf's overflow is undefined; keep it out of range
	}
	return int(v), j, true
}

// tzHour reads TZH: a sign (or a '-' the separator skipping took) and
// two digits.
func (r *dchReader) tzHour() error {
	f := &r.f
	switch c := r.at(r.s); {
	case c == '+' || c == '-' || c == ' ':
		f.tzsign = 1
		if c == '-' {
			f.tzsign = -1
		}
		r.s++
	case r.extraSkip > 0 && r.s > 0 && r.in[r.s-1] == '-':
		f.tzsign = -1
	default:
		f.tzsign = 1
	}
	_, err := r.intLen(&f.tzh, 2)
	return err
}
