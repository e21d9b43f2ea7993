package types

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zone names must not depend on the system's zoneinfo
)

// Time zones in date/time input, as PostgreSQL 15 reads them: a
// full zone name (America/New_York, case-insensitive), one of its default
// abbreviations (EST, CEST, MSK), or a POSIX-style std offset (UTC+3, EST5:
// hours west of UTC). A zone name's offset is the one in effect at the
// local time the input names, by PostgreSQL's rule for a time a
// transition skips or repeats (DetermineTimeZoneOffset): the offset before
// a spring-forward gap, the one after a fall-back overlap.

// inputZone is the time zone of a date/time literal.
type inputZone struct {
	loc    *time.Location // a zone name or a dynamic abbreviation's zone
	abbrev string         // a dynamic abbreviation, upper-cased
}

var tzNameIndex = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(tzNames) {
		m[strings.ToLower(n)] = n
	}
	return m
})

var tzLocations sync.Map // canonical name -> *time.Location

// loadZone returns the zone named name (any case), or nil.
func loadZone(name string) *time.Location {
	canon, ok := tzNameIndex()[strings.ToLower(name)]
	if !ok {
		return nil
	}
	if l, ok := tzLocations.Load(canon); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(canon)
	if err != nil {
		return nil
	}
	tzLocations.Store(canon, l)
	return l
}

// posixZoneOffset reads a POSIX TZ of a standard time only, NAME[+-]h[h]
// [:mm[:ss]] (the name letters, the offset hours west of UTC, at most
// 167), and returns its offset in seconds east of UTC.
func posixZoneOffset(s string) (int64, bool) {
	i := 0
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	if i == 0 || i == len(s) {
		return 0, false
	}
	neg := false
	switch s[i] {
	case '-':
		neg = true
		i++
	case '+':
		i++
	}
	var secs int64
	for k, limit := 0, int64(167); k < 3; k++ {
		start, v := i, int64(0)
		for i < len(s) && isDigit(s[i]) && i-start < 3 {
			v = v*10 + int64(s[i]-'0')
			i++
		}
		if i == start || v > limit {
			return 0, false
		}
		secs = secs*60 + v
		if k < 2 {
			limit = 59
		}
		if i == len(s) {
			for ; k < 2; k++ {
				secs *= 60
			}
			break
		}
		if s[i] != ':' || k == 2 {
			return 0, false
		}
		i++
	}
	if i != len(s) {
		return 0, false
	}
	if neg {
		return secs, true
	}
	return -secs, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// offsetAt is the zone's offset east of UTC, in seconds, for the local
// time local (seconds from 1970-01-01 00:00 as if it were UTC).
func (z inputZone) offsetAt(local int64) int64 {
	off, utc := localOffset(z.loc, local)
	if z.abbrev == "" {
		return off
	}
	if aoff, ok := abbrevOffset(z.loc, z.abbrev, utc); ok {
		return aoff
	}
	return off
}

// localOffset is PostgreSQL's DetermineTimeZoneOffset: the offset of loc
// for local time local, and the UTC time it names. It finds the first
// transition after local - 1 day; if local names a time on either side
// of it with both offsets, that side's offset; if local falls in the
// gap a transition skips, the offset before it; if local is repeated
// by a transition, the offset after it.
func localOffset(loc *time.Location, local int64) (off, utc int64) {
	prev := time.Unix(local-secsPerDay, 0).In(loc)
	_, o := prev.Zone()
	before := int64(o)
	_, end := prev.ZoneBounds()
	after := before
	for !end.IsZero() && end.Unix() <= local+secsPerDay {
		_, o := end.In(loc).Zone()
		if after = int64(o); after != before {
			break
		}
		_, end = end.In(loc).ZoneBounds() // a change of name only
	}
	if after == before {
		return before, local - before
	}
	boundary := end.Unix()
	beforeTime, afterTime := local-before, local-after
	switch {
	case beforeTime < boundary && afterTime < boundary:
		return before, beforeTime
	case beforeTime >= boundary && afterTime >= boundary:
		return after, afterTime
	case beforeTime > afterTime:
		return before, beforeTime
	}
	return after, afterTime
}

const secsPerDay = 86400

// abbrevOffset is the meaning of abbreviation abbrev in loc at UTC time
// utc: its offset in the latest period at or before utc that used it,
// else in the earliest after (PostgreSQL's pg_interpret_timezone_abbrev);
// false if loc's periods near utc never use it.
func abbrevOffset(loc *time.Location, abbrev string, utc int64) (int64, bool) {
	t := time.Unix(utc, 0).In(loc)
	for k := 0; k < 1000; k++ {
		name, off := t.Zone()
		if strings.EqualFold(name, abbrev) {
			return int64(off), true
		}
		start, _ := t.ZoneBounds()
		if start.IsZero() {
			break
		}
		t = start.Add(-time.Second).In(loc)
	}
	t = time.Unix(utc, 0).In(loc)
	for k := 0; k < 1000; k++ {
		_, end := t.ZoneBounds()
		if end.IsZero() {
			break
		}
		t = end.In(loc)
		if name, off := t.Zone(); strings.EqualFold(name, abbrev) {
			return int64(off), true
		}
	}
	return 0, false
}
