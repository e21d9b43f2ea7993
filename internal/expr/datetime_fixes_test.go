package expr

import "testing"

// datetimeFixCases are results PostgreSQL 15.18 gives (session zone
// UTC) for date_bin before its origin, to_char's TM prefix and one-prefix
// rule, and to_char of an interval's hour with HH and HH12 (and its
// day with DD).
var datetimeFixCases = []exprCase{
	// date_bin: a source on a bin boundary before the origin is its own
	// bin start; one between boundaries goes down to the one below.
	{fn("date_bin", ivl("15 minutes"), tstz("2000-12-31 23:45:00+00"), tstz("2001-01-01 00:00:00+00")), "2000-12-31 23:45:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("2000-12-31 23:46:00+00"), tstz("2001-01-01 00:00:00+00")), "2000-12-31 23:45:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("2000-12-31 23:44:59.999999+00"), tstz("2001-01-01 00:00:00+00")), "2000-12-31 23:30:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("2001-01-01 00:00:00+00"), tstz("2001-01-01 00:00:00+00")), "2001-01-01 00:00:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("2001-01-01 00:14:59+00"), tstz("2001-01-01 00:00:00+00")), "2001-01-01 00:00:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("1999-06-15 10:30:00+00"), tstz("2001-01-01 00:00:00+00")), "1999-06-15 10:30:00+00"},
	{fn("date_bin", ivl("15 minutes"), tstz("1999-06-15 10:31:00+00"), tstz("2001-01-01 00:00:00+00")), "1999-06-15 10:30:00+00"},
	{fn("date_bin", ivl("1 day"), ts("2000-12-30 00:00"), ts("2001-01-01 12:00")), "2000-12-29 12:00:00"},
	{fn("date_bin", ivl("1 day"), ts("2000-12-30 12:00"), ts("2001-01-01 12:00")), "2000-12-30 12:00:00"},
	{fn("date_bin", ivl("7 days"), ts("2000-12-25 12:00"), ts("2001-01-01 12:00")), "2000-12-25 12:00:00"},
	{fn("date_bin", ivl("1 microsecond"), ts("2000-12-31 23:44:59.999999"), ts("2001-01-01")), "2000-12-31 23:44:59.999999"},
	{fn("date_bin", ivl("2 microseconds"), ts("2000-12-31 23:44:59.999999"), ts("2001-01-01")), "2000-12-31 23:44:59.999998"},
	{fn("date_bin", ivl("90 seconds"), ts("2000-12-31 23:58:30"), ts("2001-01-01")), "2000-12-31 23:58:30"},
	{fn("date_bin", ivl("90 seconds"), ts("2000-12-31 23:58:29"), ts("2001-01-01")), "2000-12-31 23:57:00"},

	// to_char: TM names are not padded; one prefix (FM or TM) and one
	// suffix (TH, th or SP) at most.
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMMonth|TMDay|")), "May|Friday|"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("Month|Day|")), "May      |Friday   |"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("FMTMMonth")), "T05onth"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMFMMonth")), "F05onth"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMDy")), "Fri"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMmon")), "may"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMMONTH")), "MAY"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMmonth")), "may"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMDAY")), "FRIDAY"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("tmday")), "friday"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMDDth")), "03rd"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("DDTHSP")), "03RDSP"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("DDSP")), "03"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("DDsp")), "03sp"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("FMFMDD")), "FM03"},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMTMDay")), "TMFriday   "},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("TMRM")), "V   "},
	{fn("to_char", tstz("2024-05-03 00:05:06+00"), str("HH|HH12|HH24|AM")), "12|12|00|AM"},

	// to_char of an interval: HH and HH12 print hour % 12, or 12 for 0;
	// a negative hour takes 3 places with its sign.
	{fn("to_char", ivl("0"), str("HH HH12:MI|HH24|FMHH12|HHth")), "12 12:00|00|12|12th"},
	{fn("to_char", ivl("13 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "01 01:00|13|1|01st"},
	{fn("to_char", ivl("12 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "12 12:00|12|12|12th"},
	{fn("to_char", ivl("24 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "12 12:00|24|12|12th"},
	{fn("to_char", ivl("25 hours 5 min"), str("HH HH12:MI|HH24|FMHH12|HHth")), "01 01:05|25|1|01st"},
	{fn("to_char", ivl("-13 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "-01 -01:00|-13|-1|-01st"},
	{fn("to_char", ivl("-12 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "012 012:00|-12|12|012th"},
	{fn("to_char", ivl("-1 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "-01 -01:00|-01|-1|-01st"},
	{fn("to_char", ivl("3 days 1 hour"), str("HH HH12:MI|HH24|FMHH12|HHth")), "01 01:00|01|1|01st"},
	{fn("to_char", ivl("-30 minutes"), str("HH HH12:MI|HH24|FMHH12|HHth")), "12 12:-30|00|12|12th"},
	{fn("to_char", ivl("100 hours"), str("HH HH12:MI|HH24|FMHH12|HHth")), "04 04:00|100|4|04th"},
	{fn("to_char", ivl("1 day 00:00:00.5"), str("HH HH12:MI|HH24|FMHH12|HHth")), "12 12:00|00|12|12th"},
	// DD of an interval pads to 2 places, sign included.
	{fn("to_char", ivl("-3 days"), str("DD|DDth|FMDD")), "-3|-3rd|-3"},
	{fn("to_char", ivl("-12 days"), str("DD|DDth|FMDD")), "-12|-12th|-12"},
	{fn("to_char", ivl("-123 days"), str("DD|DDth|FMDD")), "-123|-123rd|-123"},
	{fn("to_char", ivl("5 days"), str("DD|DDth|FMDD")), "05|05th|5"},
	{fn("to_char", ivl("-13 hours -2 min -3 sec"), str("HH24th|MIth|SSth|DDth|FMHH24th")), "-13th|-02nd|-03rd|00th|-13th"},

	// timestamptz input with a zone name (see internal/types/timezone_test.go).
	{bin(tstz("2024-03-10 03:00:00+00"), "<", str("2024-03-10 02:30:00 America/New_York")), "t"},
	{bin(tstz("2024-03-10 07:30:00+00"), "=", str("2024-03-10 02:30:00 America/New_York")), "t"},
	{tstz("2024-01-01 12:00 Europe/Paris"), "2024-01-01 11:00:00+00"},
}

func TestDateTimeFixes(t *testing.T) { runCases(t, datetimeFixCases) }
