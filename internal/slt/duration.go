package slt

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// durationPart is one <number><unit> piece of a humantime-style duration.
var durationPart = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)([a-zµ]+)`)

// durationUnits maps the unit words of humantime (what sqllogictest-rs
// parses) to their length.
var durationUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "nsec": time.Nanosecond,
	"us": time.Microsecond, "µs": time.Microsecond, "usec": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond, "millis": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseDuration reads a duration such as 500ms, 1m30s or 2min.
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	var total time.Duration
	for rest := s; rest != ""; {
		m := durationPart.FindStringSubmatch(rest)
		unit, ok := durationUnits[safeIndex(m, 2)]
		if !ok {
			return 0, fmt.Errorf("invalid duration: %q", s)
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		total += time.Duration(n * float64(unit))
		rest = rest[len(m[0]):]
	}
	if s == "" {
		return 0, fmt.Errorf("invalid duration: %q", s)
	}
	return total, nil
}

func safeIndex(m []string, i int) string {
	if i < len(m) {
		return m[i]
	}
	return ""
}
