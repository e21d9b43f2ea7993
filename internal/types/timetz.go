package types

import (
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// A time with time zone (timetz) Datum is an int64 packing its time of
// day (microseconds since midnight, 0 .. 24:00:00) and its zone (seconds
// west of UTC, as Postgres keeps it, within ±15:59:59) so that integer
// order is timetz_cmp's order: by the instant (time + zone), then by the
// zone; two values are equal only when both parts are. The instant, in
// microseconds, takes the high bits and zone + 2^16 the low 17.
const tzZoneBits = 17

// maxZoneSecs is the largest zone offset Postgres accepts (15:59:59).
const maxZoneSecs = 15*3600 + 59*60 + 59

// PackTimeTZ is the Datum of the time of day micros in zone (seconds
// west of UTC).
func PackTimeTZ(micros int64, zone int32) int64 {
	utc := micros + int64(zone)*MicrosPerSecond
	return utc<<tzZoneBits | int64(zone+1<<16)
}

// SplitTimeTZ is PackTimeTZ's inverse.
func SplitTimeTZ(v int64) (micros int64, zone int32) {
	zone = int32(v&(1<<tzZoneBits-1)) - 1<<16
	return v>>tzZoneBits - int64(zone)*MicrosPerSecond, zone
}

// ParseTimeTZ reads a time with time zone as timetz_in does: time_in's
// forms with a zone, or without one in zone z (nil: UTC); a zone name
// takes its offset on the date given, else today's. The time is rounded
// to t's precision.
func ParseTimeTZ(s string, t Type, z *Zone) (int64, error) {
	dt, err := parseTimeOfDay(s, "time with time zone")
	if err != nil {
		return 0, err
	}
	micros := RoundTime(dt.micros, t)
	day := int64(0)
	if dt.month != 0 {
		day = DaysFromCivil(dt.year, dt.month, dt.day)
	} else {
		y, m, d := time.Now().UTC().Date()
		day = DaysFromCivil(y, int(m), d)
	}
	var east int64 // seconds
	switch {
	case dt.zone.loc != nil:
		east = dt.zone.offsetAt(day*secsPerDay + micros/MicrosPerSecond)
	case dt.hasZone:
		east = dt.offset / MicrosPerSecond
	default:
		east = z.LocalOffset(Timestamp(day*MicrosPerDay + micros))
	}
	if east > maxZoneSecs || east < -maxZoneSecs {
		return 0, pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: %q", s)
	}
	return PackTimeTZ(micros, int32(-east)), nil
}

// FormatTimeTZ writes a timetz as timetz_out does: the time, then the
// offset east of UTC as +HH, +HH:MM or +HH:MM:SS.
func FormatTimeTZ(v int64) string {
	micros, zone := SplitTimeTZ(v)
	return string(AppendZoneOffset(AppendTime(make([]byte, 0, 24), micros), -int64(zone)))
}

// AppendZoneOffset appends an offset of east seconds east of UTC as
// Postgres's EncodeTimezone writes it: +HH, +HH:MM or +HH:MM:SS.
func AppendZoneOffset(buf []byte, east int64) []byte {
	sign := byte('+')
	if east < 0 {
		sign, east = '-', -east
	}
	h, m, s := east/3600, east/60%60, east%60
	buf = append(buf, sign, byte('0'+h/10), byte('0'+h%10))
	if m != 0 || s != 0 {
		buf = append(buf, ':', byte('0'+m/10), byte('0'+m%10))
	}
	if s != 0 {
		buf = append(buf, ':', byte('0'+s/10), byte('0'+s%10))
	}
	return buf
}

// TimeTZValid reports whether the parts of a timetz are in range.
func TimeTZValid(micros int64, zone int32) bool {
	return micros >= 0 && micros <= MicrosPerDay && zone >= -maxZoneSecs && zone <= maxZoneSecs
}
