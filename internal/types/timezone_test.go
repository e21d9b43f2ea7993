package types

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// zoneInputCases are date/time literals with a time zone name,
// abbreviation or POSIX offset, and what PostgreSQL 15.18 shows for
// 'input'::type (session zone UTC).
var zoneInputCases = []struct {
	in   string
	typ  Type
	want string
}{
	// DST gap (spring forward): the offset before the transition.
	{"2024-03-10 02:30:00 America/New_York", TTimestampTZ, "2024-03-10 07:30:00+00"},
	{"2024-03-10 02:30:00.5 America/New_York", TTimestampTZ, "2024-03-10 07:30:00.5+00"},
	{"2024-03-10 01:59:59 America/New_York", TTimestampTZ, "2024-03-10 06:59:59+00"},
	{"2024-03-10 03:00:00 America/New_York", TTimestampTZ, "2024-03-10 07:00:00+00"},
	{"2024-03-31 02:30 Europe/Paris", TTimestampTZ, "2024-03-31 01:30:00+00"},
	// DST overlap (fall back): the offset after the transition.
	{"2024-11-03 01:30:00 America/New_York", TTimestampTZ, "2024-11-03 06:30:00+00"},
	{"2024-11-03 00:59:59 America/New_York", TTimestampTZ, "2024-11-03 04:59:59+00"},
	{"2024-11-03 02:00:00 America/New_York", TTimestampTZ, "2024-11-03 07:00:00+00"},
	{"2024-10-27 02:30 Europe/Paris", TTimestampTZ, "2024-10-27 01:30:00+00"},
	{"2024-01-01 12:00 Europe/Paris", TTimestampTZ, "2024-01-01 11:00:00+00"},
	{"2024-07-01 12:00 Europe/Paris", TTimestampTZ, "2024-07-01 10:00:00+00"},
	{"2024-07-01T12:00 Europe/Paris", TTimestampTZ, "2024-07-01 10:00:00+00"},
	{"2024-07-01 12:00Europe/Paris", TTimestampTZ, "2024-07-01 10:00:00+00"},
	{"2024-07-01 Europe/Paris", TTimestampTZ, "2024-06-30 22:00:00+00"},
	{"2024-07-01 24:00 Europe/Paris", TTimestampTZ, "2024-07-01 22:00:00+00"},
	{"2100-07-01 12:00 Europe/Paris", TTimestampTZ, "2100-07-01 10:00:00+00"},
	{"1900-01-01 12:00 Europe/Paris", TTimestampTZ, "1900-01-01 11:50:39+00"},
	{"1800-01-01 12:00 America/New_York", TTimestampTZ, "1800-01-01 16:56:02+00"},
	{"2024-07-01 12:00 Europe/Paris BC", TTimestampTZ, "2024-07-01 11:50:39+00 BC"},
	{"2024-01-01 12:00 america/new_york", TTimestampTZ, "2024-01-01 17:00:00+00"},
	{"2024-01-01 12:00 AMERICA/NEW_YORK", TTimestampTZ, "2024-01-01 17:00:00+00"},
	{"2024-07-01 12:00 Asia/Baghdad", TTimestampTZ, "2024-07-01 09:00:00+00"},
	{"2024-07-01 12:00 asia/baghdad AD", TTimestampTZ, "2024-07-01 09:00:00+00"},
	{"2024-07-01 12:00 Australia/Lord_Howe", TTimestampTZ, "2024-07-01 01:30:00+00"},
	{"2024-07-01 12:00 America/Port-au-Prince", TTimestampTZ, "2024-07-01 16:00:00+00"},
	{"2024-07-01 12:00 Etc/GMT+5", TTimestampTZ, "2024-07-01 17:00:00+00"},
	{"2024-07-01 12:00 EST5EDT", TTimestampTZ, "2024-07-01 16:00:00+00"},
	{"2024-07-01 12:00 japan", TTimestampTZ, "2024-07-01 03:00:00+00"},
	// Abbreviations: fixed, and dynamic (MSK follows Europe/Moscow).
	{"2024-07-01 12:00 EST", TTimestampTZ, "2024-07-01 17:00:00+00"},
	{"2024-07-01 12:00 PST", TTimestampTZ, "2024-07-01 20:00:00+00"},
	{"2024-07-01 12:00 pdt", TTimestampTZ, "2024-07-01 19:00:00+00"},
	{"2024-07-01 12:00 CET", TTimestampTZ, "2024-07-01 11:00:00+00"},
	{"2024-07-01 12:00 CEST", TTimestampTZ, "2024-07-01 10:00:00+00"},
	{"2024-07-01 12:00 IST", TTimestampTZ, "2024-07-01 10:00:00+00"},
	{"2024-07-01 12:00 UTC", TTimestampTZ, "2024-07-01 12:00:00+00"},
	{"2024-07-01 12:00 Z", TTimestampTZ, "2024-07-01 12:00:00+00"},
	{"2024-07-01 12:00 zulu", TTimestampTZ, "2024-07-01 12:00:00+00"},
	{"2024-07-01 12:00 MSK", TTimestampTZ, "2024-07-01 09:00:00+00"},
	{"2012-07-01 12:00 MSK", TTimestampTZ, "2012-07-01 08:00:00+00"},
	{"1995-07-01 12:00 MSK", TTimestampTZ, "1995-07-01 09:00:00+00"},
	{"2014-10-26 01:30 MSK", TTimestampTZ, "2014-10-25 22:30:00+00"},
	{"2024-01-01 12:00 LHDT", TTimestampTZ, "2024-01-01 01:00:00+00"},
	// POSIX offsets: hours west of UTC.
	{"2024-07-01 12:00 UTC+3", TTimestampTZ, "2024-07-01 15:00:00+00"},
	{"2024-07-01 12:00 gmt-3", TTimestampTZ, "2024-07-01 09:00:00+00"},
	{"2024-07-01 12:00 EST-3:30", TTimestampTZ, "2024-07-01 08:30:00+00"},
	{"2024-07-01 12:00 utc+3:30:15", TTimestampTZ, "2024-07-01 15:30:15+00"},
	{"2024-07-01 12:00 est5", TTimestampTZ, "2024-07-01 17:00:00+00"},
	{"2024-07-01 12:00 abcd+25", TTimestampTZ, "2024-07-02 13:00:00+00"},
	// Errors.
	{"2024-07-01 12:00 Foo/Bar", TTimestampTZ, "ERROR 22023 time zone \"foo/bar\" not recognized"},
	{"2024-07-01 12:00 Eastern", TTimestampTZ, "ERROR 22007 invalid input syntax for type timestamp with time zone: \"2024-07-01 12:00 Eastern\""},
	{"2024-07-01 12:00 Europe/Paris Europe/Paris", TTimestampTZ, "ERROR 22007 invalid input syntax for type timestamp with time zone: \"2024-07-01 12:00 Europe/Paris Europe/Paris\""},
	{"2024-07-01 12:00 EST PST", TTimestampTZ, "ERROR 22007 invalid input syntax for type timestamp with time zone: \"2024-07-01 12:00 EST PST\""},
	// Without time zone: the zone is read, then ignored.
	{"2024-03-10 02:30:00 America/New_York", TTimestamp, "2024-03-10 02:30:00"},
	{"2024-07-01 12:00 EST", TTimestamp, "2024-07-01 12:00:00"},
	{"2024-07-01 12:00 Eastern", TTimestamp, "ERROR 22007 invalid input syntax for type timestamp: \"2024-07-01 12:00 Eastern\""},
	{"2024-07-01 12:00 Foo/Bar", TTimestamp, "ERROR 22023 time zone \"foo/bar\" not recognized"},
	{"2024-07-01 12:00 Europe/Paris", TDate, "2024-07-01"},
	{"2024-07-01 12:00 Foo/Bar", TDate, "ERROR 22023 time zone \"foo/bar\" not recognized"},
}

func TestParseZone(t *testing.T) {
	for _, c := range zoneInputCases {
		var got string
		d, err := Parse(c.in, c.typ)
		if err != nil {
			got = fmt.Sprintf("ERROR %s %s", pgerr.Code(err), err)
		} else {
			got = Format(d, c.typ)
		}
		if got != c.want {
			t.Errorf("%q::%s = %s, want %s", c.in, c.typ, got, c.want)
		}
	}
}
