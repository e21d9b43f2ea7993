package types

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// The settings and results below are PostgreSQL 15.18's (SHOW TimeZone
// after SET TIME ZONE, and timestamptz output in that zone).

func TestLoadZone(t *testing.T) {
	for _, c := range []struct {
		setting, name string
		utc, at       string // an instant, and how it prints in the zone
	}{
		{"UTC", "UTC", "2020-01-01 00:00:00+00", "2020-01-01 00:00:00+00"},
		{"america/new_york", "America/New_York", "2020-01-01 00:00:00+00", "2019-12-31 19:00:00-05"},
		{"America/New_York", "America/New_York", "2020-07-01 00:00:00+00", "2020-06-30 20:00:00-04"},
		{"America/New_York", "America/New_York", "1850-01-01 00:00:00+00", "1849-12-31 19:03:58-04:56:02"},
		{"Asia/Kolkata", "Asia/Kolkata", "2020-01-01 00:00:00+00", "2020-01-01 05:30:00+05:30"},
		{"5", "<+05>-05", "2020-01-01 00:00:00+00", "2020-01-01 05:00:00+05"},
		{"-3.5", "<-03:30>+03:30", "2020-01-01 00:00:00+00", "2019-12-31 20:30:00-03:30"},
		{"INTERVAL '+05:30'", "<+05:30>-05:30", "2020-01-01 00:00:00+00", "2020-01-01 05:30:00+05:30"},
		{"interval '-08:00:05'", "<-08:00:05>+08:00:05", "2020-01-01 00:00:00+00", "2019-12-31 15:59:55-08:00:05"},
		{"UTC+3", "UTC+3", "2020-01-01 00:00:00+00", "2019-12-31 21:00:00-03"},
		{"+05:30", "+05:30", "2020-01-01 00:00:00+00", "2019-12-31 18:30:00-05:30"},
		{"<+0530>-5:30", "<+0530>-5:30", "2020-01-01 00:00:00+00", "2020-01-01 05:30:00+05:30"},
		{"EST", "EST", "2020-07-01 00:00:00+00", "2020-06-30 19:00:00-05"},
		{"pst8pdt", "PST8PDT", "2020-07-01 00:00:00+00", "2020-06-30 17:00:00-07"},
		{"abc5def", "ABC5DEF", "2020-07-01 00:00:00+00", "2020-06-30 20:00:00-04"},
		{"abc5def", "ABC5DEF", "2020-01-01 00:00:00+00", "2019-12-31 19:00:00-05"},
		{"CET-1CEST,M3.5.0,M10.5.0/3", "CET-1CEST,M3.5.0,M10.5.0/3", "2020-07-01 00:00:00+00", "2020-07-01 02:00:00+02"},
		{"Etc/GMT+5", "Etc/GMT+5", "2020-07-01 00:00:00+00", "2020-06-30 19:00:00-05"},
		{"zulu", "Zulu", "2020-07-01 00:00:00+00", "2020-07-01 00:00:00+00"},
		{":America/New_York", "America/New_York", "2020-01-01 00:00:00+00", "2019-12-31 19:00:00-05"},
	} {
		z, err := LoadZone(c.setting)
		if err != nil {
			t.Errorf("LoadZone(%q): %v", c.setting, err)
			continue
		}
		if z.Name() != c.name {
			t.Errorf("LoadZone(%q).Name() = %q, want %q", c.setting, z.Name(), c.name)
		}
		ts, err := ParseTimestamp(c.utc, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatTimestampTZ(ts, z); got != c.at {
			t.Errorf("%s in %s = %s, want %s", c.utc, c.setting, got, c.at)
		}
		back, err := ParseTimestampIn(c.at, z)
		if err != nil || back != ts {
			t.Errorf("ParseTimestampIn(%q, %s) = %v, %v; want %v", c.at, c.setting, back, err, ts)
		}
	}
}

func TestLoadZoneErrors(t *testing.T) {
	for _, c := range []struct{ setting, msg, detail string }{
		{"nowhere", `invalid value for parameter "TimeZone": "nowhere"`, ""},
		{"PST", `invalid value for parameter "TimeZone": "PST"`, ""},
		{"Z", `invalid value for parameter "TimeZone": "Z"`, ""},
		{"200", `invalid value for parameter "TimeZone": "200"`, ""},
		{":abc5", `invalid value for parameter "TimeZone": ":abc5"`, ""},
		{"", `invalid value for parameter "TimeZone": ""`, ""},
		{"INTERVAL '1 day'", `invalid value for parameter "TimeZone": "INTERVAL '1 day'"`, "Cannot specify days in time zone interval."},
		{"INTERVAL '1 month'", `invalid value for parameter "TimeZone": "INTERVAL '1 mon'"`, "Cannot specify months in time zone interval."},
	} {
		_, err := LoadZone(c.setting)
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != pgerr.InvalidParameterValue || pe.Message != c.msg || pe.Detail != c.detail {
			t.Errorf("LoadZone(%q) = %v, want 22023 %s (%s)", c.setting, err, c.msg, c.detail)
		}
	}
}

// TestZoneLocalTimes reads local times a transition skips or repeats as
// PostgreSQL does: the offset before a gap, the one after an overlap.
func TestZoneLocalTimes(t *testing.T) {
	ny, err := LoadZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"2020-03-08 01:59:59", "2020-03-08 01:59:59-05"},
		{"2020-03-08 02:00", "2020-03-08 03:00:00-04"},
		{"2020-03-08 02:30", "2020-03-08 03:30:00-04"},
		{"2020-11-01 00:59:59", "2020-11-01 00:59:59-04"},
		{"2020-11-01 01:30", "2020-11-01 01:30:00-05"},
		{"2020-11-01 02:00", "2020-11-01 02:00:00-05"},
		{"2020-07-01 00:00+02", "2020-06-30 18:00:00-04"},
		{"2020-07-01 00:00 Europe/Paris", "2020-06-30 18:00:00-04"},
		{"infinity", "infinity"},
	} {
		ts, err := ParseTimestampIn(c[0], ny)
		if err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		if got := FormatTimestampTZ(ts, ny); got != c[1] {
			t.Errorf("%s = %s, want %s", c[0], got, c[1])
		}
	}
}

func TestZoneArrays(t *testing.T) {
	ny, _ := LoadZone("America/New_York")
	tstzArr := Type{ID: IDArray, Elem: IDTimestampTZ}
	d, err := ParseIn(`{"2020-01-01 00:00",NULL,"2020-07-01 00:00+00"}`, tstzArr, ny)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"2020-01-01 05:00:00+00",NULL,"2020-07-01 00:00:00+00"}`; d != want {
		t.Errorf("stored %v, want %s (UTC text)", d, want)
	}
	if got, want := FormatIn(d, tstzArr, ny), `{"2020-01-01 00:00:00-05",NULL,"2020-06-30 20:00:00-04"}`; got != want {
		t.Errorf("FormatIn = %s, want %s", got, want)
	}
}

func TestNamedZone(t *testing.T) {
	ts, _ := ParseTimestamp("2020-07-01 12:00+00", true)
	for _, c := range [][2]string{
		{"Asia/Tokyo", "2020-07-01 21:00:00"},
		{"EST", "2020-07-01 07:00:00"},
		{"CET", "2020-07-01 13:00:00"}, // the abbreviation: +01 all year
		{"MSK", "2020-07-01 15:00:00"},
		{"+05", "2020-07-01 07:00:00"}, // POSIX: five hours west
		{"UTC+5", "2020-07-01 07:00:00"},
	} {
		nz, err := LookupNamedZone(c[0])
		if err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		if got := FormatTimestamp(nz.Local(ts), false); got != c[1] {
			t.Errorf("AT TIME ZONE %s = %s, want %s", c[0], got, c[1])
		}
		if back := nz.FromLocal(nz.Local(ts)); back != ts {
			t.Errorf("%s: FromLocal(Local(ts)) = %v, want %v", c[0], back, ts)
		}
	}
	if _, err := LookupNamedZone("Mars/Olympus"); err == nil || err.Error() != `time zone "Mars/Olympus" not recognized` {
		t.Errorf("unknown zone: %v", err)
	}
}

func TestFormatOffset(t *testing.T) {
	for _, c := range []struct {
		east int64
		xsd  bool
		want string
	}{
		{0, false, "+00"}, {-18000, false, "-05"}, {19800, false, "+05:30"}, {-17762, false, "-04:56:02"},
		{0, true, "+00:00"}, {-18000, true, "-05:00"},
	} {
		if got := FormatOffset(c.east, c.xsd); got != c.want {
			t.Errorf("FormatOffset(%d, %v) = %s, want %s", c.east, c.xsd, got, c.want)
		}
	}
}
