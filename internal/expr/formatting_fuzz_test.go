package expr

import (
	"errors"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Fuzz targets for the template readers: whatever the template and the
// input, to_char, to_number, to_timestamp, to_date and the SQL regular
// expressions return a value or a *pgerr.Error, never panic. Without
// -fuzz only the seeds run (go test -fuzz FuzzNumberTemplate explores).

func fuzzCheck(t *testing.T, what string, err error) {
	var pe *pgerr.Error
	if err != nil && (!errors.As(err, &pe) || len(pe.Code) != 5) {
		t.Fatalf("%s: %v is not a SQLSTATE error", what, err)
	}
}

func FuzzNumberTemplate(f *testing.F) {
	for _, s := range []struct{ format, input string }{
		{"9999.99", "1,234.5"}, {"FM0999.990S", "-12.5"}, {"9G999D99PR", "<1,234.56>"}, {"RN", "12"},
		{"9.99EEEE", "1e5"}, {"99V999", "12345"}, {"SG9MI9PL", "+-1"}, {"L9th", "$5th"}, {`"a\"b"9`, "ab9"},
		{"FM.00", ".5"}, {"é9,9.9", "é1,2.3"}, {"", ""}, {"999999999999999999999999.9999", "1"},
	} {
		f.Add(s.format, s.input, int64(-1234), 12.345)
	}
	f.Fuzz(func(t *testing.T, format, input string, n int64, x float64) {
		if len(format) > 200 {
			return
		}
		values := []types.Datum{n, n, x, float64(float32(x)), apd.New(n, -3)}
		for i, sig := range toCharNumSigs {
			_, err := sig.fn([]types.Datum{values[i], format})
			fuzzCheck(t, "to_char", err)
		}
		_, err := toNumber([]types.Datum{input, format})
		fuzzCheck(t, "to_number", err)
	})
}

func FuzzDateTemplate(f *testing.F) {
	for _, s := range []struct{ format, input string }{
		{"YYYY-MM-DD HH24:MI:SS.US", "2020-01-15 10:30:45.123"}, {"FXYYYY MM", "2020  01"}, {"IYYY-IW-ID", "2020-03-4"},
		{"Y,YYY DDD", "2,020 366"}, {"J SSSS", "2459000 3661"}, {"HH12 AM TZH:TZM", "10 pm -03:30"}, {"CC YY BC", "5 15 BC"},
		{"Day DD Month RM", "Wednesday 15 January XII"}, {"FMDDth FF3", "1st 5"}, {`"x"YYYY\"`, "x2020\""},
		{"TZ OF", "UTC +3"}, {"", ""}, {"MS", "  "}, {"é", "é"},
	} {
		f.Add(s.format, s.input)
	}
	f.Fuzz(func(t *testing.T, format, input string) {
		if len(format) > 200 || len(input) > 200 {
			return
		}
		_, err := toTimestampText([]types.Datum{input, format})
		fuzzCheck(t, "to_timestamp", err)
		_, err = toDate([]types.Datum{input, format})
		fuzzCheck(t, "to_date", err)
		_, err = toCharTimestamp(true)([]types.Datum{types.Timestamp(0), format})
		fuzzCheck(t, "to_char", err)
	})
}

func FuzzSimilarPattern(f *testing.F) {
	for _, s := range []struct{ s, pattern, escape string }{
		{"abc", "a%", "\\"}, {"foobar", `%#"o_b#"%`, "#"}, {"x", "[]a%]", ""}, {"ab", "(a|b)+", "!"},
		{"a", "[[:alpha:]%", "é"}, {"", `#"#"#"`, "#"}, {"a", `\`, "\\"},
	} {
		f.Add(s.s, s.pattern, s.escape)
	}
	f.Fuzz(func(t *testing.T, s, pattern, escape string) {
		if len(pattern) > 100 || len(s) > 100 {
			return
		}
		_, err := similarRegex(pattern, &escape)
		fuzzCheck(t, "similar_to_escape", err)
		_, err = similarSubstring([]types.Datum{s, pattern, escape})
		fuzzCheck(t, "substring similar", err)
	})
}
