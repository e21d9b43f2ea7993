package types

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Zone is a session time zone, the TimeZone setting: timestamptz values
// print in it, and a timestamp read without a zone, a timestamp without
// time zone converted to timestamptz and the calendar fields of a
// timestamptz (date_trunc, extract, ::date, + interval '1 day') are its
// local time. It is a zone of the IANA database (America/New_York), a
// POSIX TZ string (UTC+3, EST5EDT,M3.2.0,M11.1.0) or a fixed offset
// (SET TIME ZONE 5, SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE), as
// PostgreSQL's check_timezone reads the setting (LoadZone).
//
// A Zone is immutable and safe for concurrent use. The nil *Zone is UTC,
// the default: every method treats it so.
type Zone struct {
	name string // as SHOW TimeZone reports it
	loc  *time.Location
	// fixed is set for a zone with one offset, off seconds east of UTC,
	// and abbreviation abbrev: no lookup needed.
	fixed  bool
	off    int64
	abbrev string
}

// UTCZone is the zone named UTC (the nil *Zone behaves the same).
var UTCZone = &Zone{name: "UTC", loc: time.UTC, fixed: true, abbrev: "UTC"}

// tzStrLenMax is the longest zone setting PostgreSQL accepts (TZ_STRLEN_MAX).
const tzStrLenMax = 255

// maxPosixHours bounds the hours of a POSIX offset, as PostgreSQL's tzcode
// does (a week less an hour).
const maxPosixHours = 167

// LoadZone reads a TimeZone setting the way PostgreSQL 15 does:
// INTERVAL 'hh:mm' (east of UTC; no months or days), a number of hours
// east of UTC (SET TIME ZONE -7), a zone name of the IANA database in any
// case (its canonical spelling becomes the name), or a POSIX TZ string
// (hours west of UTC: UTC+3 is three hours behind; upper-cased). Anything
// else is 22023 invalid value for parameter "TimeZone".
func LoadZone(setting string) (*Zone, error) {
	bad := func(detail string) error { return badZone(setting, detail) }
	if len(setting) >= 8 && strings.EqualFold(setting[:8], "interval") {
		return intervalZone(setting)
	}
	if hours, ok := zoneHours(setting); ok {
		// SQL's sign convention: hours east of UTC.
		z, ok := offsetZone(int64(hours * 3600))
		if !ok {
			return nil, bad("")
		}
		return z, nil
	}
	z, ok := tzset(setting)
	if !ok {
		return nil, bad("")
	}
	return z, nil
}

// tzset is PostgreSQL's pg_tzset: a zone of the IANA database named in
// any case (after an optional ':', as tzload reads it), else a POSIX TZ
// string (upper-cased).
func tzset(name string) (*Zone, bool) {
	if name == "" || len(name) > tzStrLenMax {
		return nil, false
	}
	if canon, ok := tzNameIndex()[strings.ToLower(strings.TrimPrefix(name, ":"))]; ok {
		if loc := loadZone(canon); loc != nil {
			return newZone(canon, loc), true
		}
	}
	upper := strings.ToUpper(name)
	if upper[0] == ':' {
		return nil, false
	}
	p, ok := parsePosixTZ(upper)
	if !ok {
		return nil, false
	}
	z, err := p.zone(upper)
	return z, err == nil
}

// NamedZone is a time zone an expression names: AT TIME ZONE 'x',
// timezone('x', ts), date_trunc(unit, ts, 'x'). PostgreSQL looks the name
// up as a time zone abbreviation first (EST: a fixed offset; MSK: the
// offset Europe/Moscow used under that name), then as a zone (pg_tzset).
type NamedZone struct {
	zone *Zone     // a zone name, or a fixed abbreviation's offset
	dyn  inputZone // a dynamic abbreviation
}

var namedZones sync.Map // name -> NamedZone; names are few

const maxNamedZones = 1024

var namedZoneCount atomic.Int64

// LookupNamedZone finds the zone an expression names; 22023 time zone
// "x" not recognized when there is none.
func LookupNamedZone(name string) (NamedZone, error) {
	if v, ok := namedZones.Load(name); ok {
		return v.(NamedZone), nil
	}
	var n NamedZone
	lower := strings.ToLower(name)
	if off, ok := tzFixedAbbrevs[lower]; ok {
		n.zone, _ = offsetZone(int64(off))
	} else if zn, ok := tzDynamicAbbrevs[lower]; ok && loadZone(zn) != nil {
		n.dyn = inputZone{loc: loadZone(zn), abbrev: strings.ToUpper(lower)}
	} else if z, ok := tzset(name); ok {
		n.zone = z
	} else {
		return n, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	if namedZoneCount.Add(1) <= maxNamedZones {
		namedZones.Store(name, n)
	}
	return n, nil
}

// Local is the wall clock of the finite instant ts in the zone
// (timestamptz AT TIME ZONE: DetermineTimeZoneAbbrevOffsetTS for a dynamic
// abbreviation).
func (n NamedZone) Local(ts Timestamp) Timestamp {
	if n.dyn.loc == nil {
		return n.zone.Local(ts)
	}
	secs := floorDiv(int64(ts), MicrosPerSecond)
	off, ok := abbrevOffset(n.dyn.loc, n.dyn.abbrev, secs)
	if !ok {
		_, o := time.Unix(secs, 0).In(n.dyn.loc).Zone()
		off = int64(o)
	}
	return ts + Timestamp(off*MicrosPerSecond)
}

// FromLocal is the instant of the finite local time local in the zone
// (timestamp AT TIME ZONE).
func (n NamedZone) FromLocal(local Timestamp) Timestamp {
	if n.dyn.loc == nil {
		return n.zone.FromLocal(local)
	}
	return local - Timestamp(n.dyn.offsetAt(floorDiv(int64(local), MicrosPerSecond))*MicrosPerSecond)
}

// Zone is the zone whose calendar date_trunc(unit, ts, 'x') truncates in:
// a dynamic abbreviation's zone itself.
func (n NamedZone) Zone() *Zone {
	if n.dyn.loc != nil {
		canon := tzDynamicAbbrevs[strings.ToLower(n.dyn.abbrev)]
		return newZone(canon, n.dyn.loc)
	}
	return n.zone
}

// badZone is the error of a TimeZone setting LoadZone cannot read.
func badZone(setting, detail string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", setting)
	e.Detail = detail
	return e
}

// zoneHours reads a setting that is a number (strtod's whole input) as
// hours.
func zoneHours(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	if t == "" || !(isDigit(t[0]) || t[0] == '-' || t[0] == '+' || t[0] == '.') {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// intervalZone reads INTERVAL 'value' (SET TIME ZONE INTERVAL ...): a
// fixed zone that far east of UTC. Errors show the interval as it
// prints, as PostgreSQL's flattened setting does.
func intervalZone(setting string) (*Zone, error) {
	rest := strings.TrimLeft(setting[8:], " \t\n\r\v\f")
	if !strings.HasPrefix(rest, "'") || !strings.HasSuffix(rest, "'") || len(rest) < 2 ||
		strings.Contains(rest[1:len(rest)-1], "'") {
		return nil, badZone(setting, "")
	}
	iv, err := ParseInterval(rest[1 : len(rest)-1])
	if err != nil {
		return nil, err
	}
	shown := "INTERVAL '" + FormatInterval(iv) + "'"
	bad := func(detail string) error { return badZone(shown, detail) }
	switch {
	case iv.Months != 0:
		return nil, bad("Cannot specify months in time zone interval.")
	case iv.Days != 0:
		return nil, bad("Cannot specify days in time zone interval.")
	}
	z, ok := offsetZone(iv.Micros / MicrosPerSecond)
	if !ok {
		return nil, bad("")
	}
	return z, nil
}

// offsetZone is PostgreSQL's pg_tzset_offset: the fixed zone east seconds
// east of UTC, named as a POSIX string (<+05:30>-05:30).
func offsetZone(east int64) (*Zone, bool) {
	abs := east
	if abs < 0 {
		abs = -abs
	}
	if abs/3600 > maxPosixHours {
		return nil, false
	}
	off := fmt.Sprintf("%02d", abs/3600)
	if abs%3600 != 0 {
		off += fmt.Sprintf(":%02d", abs%3600/60)
		if abs%60 != 0 {
			off += fmt.Sprintf(":%02d", abs%60)
		}
	}
	abbrev, name := "+"+off, "<+"+off+">-"+off
	if east < 0 {
		abbrev, name = "-"+off, "<-"+off+">+"+off
	}
	return fixedZone(name, abbrev, east), true
}

func fixedZone(name, abbrev string, east int64) *Zone {
	return &Zone{name: name, loc: time.FixedZone(abbrev, int(east)), fixed: true, off: east, abbrev: abbrev}
}

// newZone wraps a location; one without transitions is fixed.
func newZone(name string, loc *time.Location) *Zone {
	z := &Zone{name: name, loc: loc}
	t := time.Unix(0, 0).In(loc)
	start, end := t.ZoneBounds()
	if start.IsZero() && end.IsZero() {
		abbrev, off := t.Zone()
		z.fixed, z.off, z.abbrev = true, int64(off), abbrev
	}
	return z
}

// Name is the setting as SHOW TimeZone and current_setting report it.
func (z *Zone) Name() string {
	if z == nil {
		return "UTC"
	}
	return z.name
}

// IsUTC reports whether the zone is UTC's offset at every instant (the
// nil Zone, UTC, Etc/UTC, GMT ...).
func (z *Zone) IsUTC() bool { return z == nil || z.fixed && z.off == 0 }

// Offset is the zone's offset east of UTC, in seconds, at the finite
// instant ts.
func (z *Zone) Offset(ts Timestamp) int64 {
	if z == nil {
		return 0
	}
	if z.fixed {
		return z.off
	}
	_, off := time.Unix(floorDiv(int64(ts), MicrosPerSecond), 0).In(z.loc).Zone()
	return int64(off)
}

// Abbrev is the zone's abbreviation at the finite instant ts (EST, CEST,
// +05), as to_char's TZ shows it.
func (z *Zone) Abbrev(ts Timestamp) string {
	if z == nil {
		return "UTC"
	}
	if z.fixed {
		return z.abbrev
	}
	name, _ := time.Unix(floorDiv(int64(ts), MicrosPerSecond), 0).In(z.loc).Zone()
	return name
}

// Local is the local time of the finite instant ts: its wall clock in the
// zone, as a timestamp without time zone.
func (z *Zone) Local(ts Timestamp) Timestamp {
	return ts + Timestamp(z.Offset(ts)*MicrosPerSecond)
}

// LocalOffset is the offset, in seconds east of UTC, of the local time
// local (a timestamp without time zone) in the zone, by PostgreSQL's rule
// for a wall clock a transition skips (the offset before it) or repeats
// (the offset after it): DetermineTimeZoneOffset.
func (z *Zone) LocalOffset(local Timestamp) int64 {
	if z == nil {
		return 0
	}
	if z.fixed {
		return z.off
	}
	off, _ := localOffset(z.loc, floorDiv(int64(local), MicrosPerSecond))
	return off
}

// FromLocal is the instant of the finite local time local in the zone
// (see LocalOffset).
func (z *Zone) FromLocal(local Timestamp) Timestamp {
	return local - Timestamp(z.LocalOffset(local)*MicrosPerSecond)
}

// posixTZ is a parsed POSIX TZ string: std offset [dst [offset] [,rule,rule]].
type posixTZ struct {
	std, dst       string
	stdOff, dstOff int64 // seconds west of UTC, as written
	hasDST         bool
	rules          string // ",start,end" as written, or PostgreSQL's default
}

// parsePosixTZ reads a POSIX TZ string as PostgreSQL's tzparse does (an
// empty std name allowed; a DST zone without rules takes the US rules of
// TZDEFRULESTRING).
func parsePosixTZ(s string) (posixTZ, bool) {
	var p posixTZ
	var ok bool
	if p.std, s, ok = posixName(s); !ok || s == "" {
		return p, false
	}
	if p.stdOff, s, ok = posixOffset(s, true); !ok {
		return p, false
	}
	if s == "" {
		return p, true
	}
	p.hasDST = true
	if p.dst, s, ok = posixName(s); !ok || p.dst == "" {
		return p, false
	}
	p.dstOff = p.stdOff - 3600
	if s != "" && s[0] != ',' && s[0] != ';' {
		if p.dstOff, s, ok = posixOffset(s, true); !ok {
			return p, false
		}
	}
	if s == "" {
		p.rules = ",M3.2.0,M11.1.0"
		return p, true
	}
	rules := "," + s[1:]
	s = s[1:]
	if s, ok = posixRule(s); !ok || s == "" || s[0] != ',' {
		return p, false
	}
	if s, ok = posixRule(s[1:]); !ok || s != "" {
		return p, false
	}
	p.rules = rules
	return p, true
}

// posixName reads a zone abbreviation: <...> or a run of characters
// other than digits, ',', '-' and '+'.
func posixName(s string) (name, rest string, ok bool) {
	if strings.HasPrefix(s, "<") {
		i := strings.IndexByte(s, '>')
		if i < 0 {
			return "", s, false
		}
		return s[1:i], s[i+1:], true
	}
	i := 0
	for i < len(s) && !isDigit(s[i]) && s[i] != ',' && s[i] != '-' && s[i] != '+' {
		i++
	}
	return s[:i], s[i:], true
}

// posixOffset reads [+-]hh[:mm[:ss]] (hours at most 167).
func posixOffset(s string, signed bool) (int64, string, bool) {
	neg := false
	if signed && s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var secs int64
	for k, limit := 0, int64(maxPosixHours); k < 3; k++ {
		v, n := int64(0), 0
		for n < len(s) && isDigit(s[n]) && v <= limit {
			v = v*10 + int64(s[n]-'0')
			n++
		}
		if n == 0 || v > limit {
			return 0, s, false
		}
		secs = secs*60 + v
		s = s[n:]
		limit = 59
		if k == 1 {
			limit = 60
		}
		if k == 2 || s == "" || s[0] != ':' {
			for ; k < 2; k++ {
				secs *= 60
			}
			break
		}
		s = s[1:]
	}
	if neg {
		secs = -secs
	}
	return secs, s, true
}

// posixRule reads one DST rule: Jn, n or Mm.w.d, with an optional /time.
func posixRule(s string) (string, bool) {
	num := func(lo, hi int64) bool {
		v, n := int64(0), 0
		for n < len(s) && isDigit(s[n]) && v <= hi {
			v = v*10 + int64(s[n]-'0')
			n++
		}
		s = s[n:]
		return n > 0 && v >= lo && v <= hi
	}
	switch {
	case strings.HasPrefix(s, "J"):
		s = s[1:]
		if !num(1, 365) {
			return s, false
		}
	case strings.HasPrefix(s, "M"):
		s = s[1:]
		if !num(1, 12) || !strings.HasPrefix(s, ".") {
			return s, false
		}
		s = s[1:]
		if !num(1, 5) || !strings.HasPrefix(s, ".") {
			return s, false
		}
		s = s[1:]
		if !num(0, 6) {
			return s, false
		}
	default:
		if !num(0, 365) {
			return s, false
		}
	}
	if strings.HasPrefix(s, "/") {
		var ok bool
		if _, s, ok = posixOffset(s[1:], true); !ok {
			return s, false
		}
	}
	return s, true
}

// zone builds the Zone of a parsed POSIX string named name: a fixed zone,
// or one whose transitions follow the rules (a location built from a
// TZif image with no transitions of its own and the rules as its footer,
// which the time package extends to every year).
func (p posixTZ) zone(name string) (*Zone, error) {
	if !p.hasDST {
		return fixedZone(name, p.std, -p.stdOff), nil
	}
	footer := fmt.Sprintf("<%s>%s<%s>%s%s", p.std, posixOffsetText(p.stdOff), p.dst, posixOffsetText(p.dstOff), p.rules)
	loc, err := time.LoadLocationFromTZData(name, tzifImage(p.std, -p.stdOff, footer))
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", name)
	}
	return &Zone{name: name, loc: loc}, nil
}

func posixOffsetText(west int64) string {
	sign := ""
	if west < 0 {
		sign, west = "-", -west
	}
	return fmt.Sprintf("%s%d:%02d:%02d", sign, west/3600, west%3600/60, west%60)
}

// tzifImage is a version 2 TZif file with one zone type (abbrev, east
// seconds east of UTC), no transitions and the POSIX footer.
func tzifImage(abbrev string, east int64, footer string) []byte {
	block := func(b []byte) []byte {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		for _, n := range []int{0, 0, 0, 0, 1, len(abbrev) + 1} { // isut, isstd, leap, time, type, char
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(east)))
		b = append(b, 0, 0) // not DST, abbreviation index 0
		b = append(b, abbrev...)
		return append(b, 0)
	}
	b := block(nil)
	b = block(b)
	return append(append(append(b, '\n'), footer...), '\n')
}
