package types

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// parseCases are text inputs and what Postgres 15 shows for
// 'input'::type (checked against a real server, session zone UTC).
var parseCases = []struct {
	in   string
	typ  Type
	want string
}{
	{"t", TBool, "t"},
	{"TRUE", TBool, "t"},
	{" yes ", TBool, "t"},
	{"of", TBool, "f"},
	{"o", TBool, "ERROR 22P02 invalid input syntax for type boolean: \"o\""},
	{"2", TBool, "ERROR 22P02 invalid input syntax for type boolean: \"2\""},
	{"32767", TInt16, "32767"},
	{"32768", TInt16, "ERROR 22003 value \"32768\" is out of range for type smallint"},
	{" -12 ", TInt32, "-12"},
	{"abc", TInt32, "ERROR 22P02 invalid input syntax for type integer: \"abc\""},
	{"2147483648", TInt32, "ERROR 22003 value \"2147483648\" is out of range for type integer"},
	{"1.5", TInt32, "ERROR 22P02 invalid input syntax for type integer: \"1.5\""},
	{"+7", TInt32, "7"},
	{"--7", TInt32, "ERROR 22P02 invalid input syntax for type integer: \"--7\""},
	{"9223372036854775807", TInt64, "9223372036854775807"},
	{"9223372036854775808", TInt64, "ERROR 22003 value \"9223372036854775808\" is out of range for type bigint"},
	{"1e6", TFloat32, "1e+06"},
	{"0.1", TFloat32, "0.1"},
	{"3.4e38", TFloat32, "3.4e+38"},
	{"1e39", TFloat32, "ERROR 22003 \"1e39\" is out of range for type real"},
	{"1e-46", TFloat32, "ERROR 22003 \"1e-46\" is out of range for type real"},
	{"0.1", TFloat64, "0.1"},
	{"1e15", TFloat64, "1e+15"},
	{"123456789012345678", TFloat64, "1.2345678901234568e+17"},
	{"1e-5", TFloat64, "1e-05"},
	{"-inf", TFloat64, "-Infinity"},
	{"nan", TFloat64, "NaN"},
	{"1e400", TFloat64, "ERROR 22003 \"1e400\" is out of range for type double precision"},
	{"1e-400", TFloat64, "ERROR 22003 \"1e-400\" is out of range for type double precision"},
	{"  2.5e+3  ", TFloat64, "2500"},
	{"4.9e-324", TFloat64, "5e-324"},
	{"1.50", TNumeric, "1.50"},
	{"1e3", TNumeric, "1000"},
	{"-0.000", TNumeric, "0.000"},
	{"1.5e-3", TNumeric, "0.0015"},
	{"NaN", TNumeric, "NaN"},
	{"-Infinity", TNumeric, "-Infinity"},
	{"inf", TNumeric, "Infinity"},
	{"abc", TNumeric, "ERROR 22P02 invalid input syntax for type numeric: \"abc\""},
	{".5", TNumeric, "0.5"},
	{"5.", TNumeric, "5"},
	{"123.456", Type{ID: IDNumeric, Precision: 5, Scale: 2}, "123.46"},
	{"999.995", Type{ID: IDNumeric, Precision: 5, Scale: 2}, "ERROR 22003 numeric field overflow"},
	{"-999.994", Type{ID: IDNumeric, Precision: 5, Scale: 2}, "-999.99"},
	{"0.9996", Type{ID: IDNumeric, Precision: 3, Scale: 3}, "ERROR 22003 numeric field overflow"},
	{"12345", Type{ID: IDNumeric, Precision: 4}, "ERROR 22003 numeric field overflow"},
	{"2024-01-02", TDate, "2024-01-02"},
	{"2024-02-30", TDate, "ERROR 22008 date/time field value out of range: \"2024-02-30\""},
	{"2024-13-01", TDate, "ERROR 22008 date/time field value out of range: \"2024-13-01\""},
	{"0001-01-01 BC", TDate, "0001-01-01 BC"},
	{"4714-11-24 BC", TDate, "4714-11-24 BC"},
	{"4714-11-23 BC", TDate, "ERROR 22008 date out of range: \"4714-11-23 BC\""},
	{"2024-01-02 10:11:12", TDate, "2024-01-02"},
	{"20240102", TDate, "2024-01-02"},
	{"infinity", TDate, "infinity"},
	{"abc", TDate, "ERROR 22007 invalid input syntax for type date: \"abc\""},
	{"2024-01-02 03:04:05", TTimestamp, "2024-01-02 03:04:05"},
	{"2024-01-02T03:04:05.500", TTimestamp, "2024-01-02 03:04:05.5"},
	{"2024-01-02 03:04:05.1234567", TTimestamp, "2024-01-02 03:04:05.123457"},
	{"2024-01-02 03:04:05+02", TTimestamp, "2024-01-02 03:04:05"},
	{"2024-01-02", TTimestamp, "2024-01-02 00:00:00"},
	{"2024-01-02 24:00:00", TTimestamp, "2024-01-03 00:00:00"},
	{"2024-01-02 25:00:00", TTimestamp, "ERROR 22008 date/time field value out of range: \"2024-01-02 25:00:00\""},
	{"2024-01-02 03:04", TTimestamp, "2024-01-02 03:04:00"},
	{"1999-12-31 23:59:59.999999 BC", TTimestamp, "1999-12-31 23:59:59.999999 BC"},
	{"-infinity", TTimestamp, "-infinity"},
	{"2024-01-02 03:04:05+02", TTimestampTZ, "2024-01-02 01:04:05+00"},
	{"2024-01-02 03:04:05+05:30", TTimestampTZ, "2024-01-01 21:34:05+00"},
	{"2024-01-02T03:04:05Z", TTimestampTZ, "2024-01-02 03:04:05+00"},
	{"2024-01-02 03:04:05-0130", TTimestampTZ, "2024-01-02 04:34:05+00"},
	{"2024-01-02 03:04:05 UTC", TTimestampTZ, "2024-01-02 03:04:05+00"},
	{"0001-01-01 00:00:00+00 BC", TTimestampTZ, "0001-01-01 00:00:00+00 BC"},
	{"1 day", TInterval, "1 day"},
	{"2 hours 30 minutes", TInterval, "02:30:00"},
	{"1 year 2 months", TInterval, "1 year 2 mons"},
	{"01:02:03", TInterval, "01:02:03"},
	{"1 day 02:03:04", TInterval, "1 day 02:03:04"},
	{"-1 day", TInterval, "-1 days"},
	{"P1DT2H", TInterval, "1 day 02:00:00"},
	{"P1Y2M3DT4H5M6.5S", TInterval, "1 year 2 mons 3 days 04:05:06.5"},
	{"1.5 days", TInterval, "1 day 12:00:00"},
	{"0.5 weeks", TInterval, "3 days 12:00:00"},
	{"10", TInterval, "00:00:10"},
	{"1:30", TInterval, "01:30:00"},
	{"-1 day 02:00:00", TInterval, "-1 days +02:00:00"},
	{"1 week ago", TInterval, "-7 days"},
	{"@ 3 mins", TInterval, "00:03:00"},
	{"1 decade", TInterval, "10 years"},
	{"1.25 years", TInterval, "1 year 3 mons"},
	{"100 microseconds", TInterval, "00:00:00.0001"},
	{"3 days -4 hours", TInterval, "3 days -04:00:00"},
	{"banana", TInterval, "ERROR 22007 invalid input syntax for type interval: \"banana\""},
	{"1 fortnight", TInterval, "ERROR 22007 invalid input syntax for type interval: \"1 fortnight\""},
	{"12:60", TInterval, "ERROR 22007 invalid input syntax for type interval: \"12:60\""}, // Postgres: 22015 interval field value out of range
	{"2 days 1 minute ago", TInterval, "-2 days -00:01:00"},
	{"1 mon -00:00:01", TInterval, "1 mon -00:00:01"},
	{"-00:00:00.5", TInterval, "-00:00:00.5"},
	{"abcd", Type{ID: IDVarchar, Width: 3}, "ERROR 22001 value too long for type character varying(3)"}, // Parse is input for storing: no truncation, unlike a cast
	{"abc   ", Type{ID: IDVarchar, Width: 3}, "abc"},
	{"ab", Type{ID: IDVarchar, Width: 3}, "ab"},
}

func TestParseFormat(t *testing.T) {
	for _, c := range parseCases {
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
