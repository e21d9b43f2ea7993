package types

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestUUIDText: uuid_in's forms read as one value, which uuid_out writes
// lower-case and hyphenated; anything else is 22P02.
func TestUUIDText(t *testing.T) {
	const want = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	for _, s := range []string{want, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11", "{a0eebc999c0b4ef8bb6d6bb9bd380a11}", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11"} {
		d, err := Parse(s, TUUID)
		if err != nil || Format(d, TUUID) != want || len(d.(string)) != 16 {
			t.Errorf("%q: %q, %v", s, Format(d, TUUID), err)
		}
	}
	for _, s := range []string{"", "a0eebc99", want + "0", want[:35], "{" + want, want + "}", " " + want, want + " ",
		"a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11", "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc999-c0b-4ef8-bb6d-6bb9bd380a11",
		"g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1-", "{{a0eebc999c0b4ef8bb6d6bb9bd380a11}}"} {
		if _, err := Parse(s, TUUID); pgerr.Code(err) != pgerr.InvalidTextRep {
			t.Errorf("%q: %v, want 22P02", s, err)
		}
	}
	r := RandomUUID()
	if f := FormatUUID(r); f[14] != '4' || !strings.ContainsRune("89ab", rune(f[19])) || r == RandomUUID() {
		t.Errorf("RandomUUID %s: not a fresh version 4 uuid", f)
	}
}

// FuzzUUID: any 16 bytes round-trip through the text form; no input
// makes Parse panic, and what parses prints as a canonical form that
// parses back to it.
func FuzzUUID(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}")
	f.Add(bytes.Repeat([]byte{0xff}, 16), "A0EEBC999C0B4EF8BB6D6BB9BD380A1")
	f.Fuzz(func(t *testing.T, b []byte, s string) {
		if len(b) >= 16 {
			u := string(b[:16])
			if got := roundTrip(t, u, TUUID); got != u {
				t.Fatalf("%x -> %s -> %x", u, FormatUUID(u), got)
			}
		}
		if d, err := Parse(s, TUUID); err == nil {
			f := Format(d, TUUID)
			if len(f) != 36 || strings.ToLower(f) != f || roundTrip(t, d, TUUID) != d {
				t.Fatalf("%q -> %q", s, f)
			}
		}
	})
}

// TestTimeText: time_in's forms, rounding, 24:00:00 and the errors.
func TestTimeText(t *testing.T) {
	for _, c := range []struct {
		in   string
		typ  Type
		want string
	}{
		{"12:34", TTime, "12:34:00"}, {"24:00", TTime, "24:00:00"}, {"allballs", TTime, "00:00:00"},
		{"04:05 PM", TTime, "16:05:00"}, {"12:00 am", TTime, "00:00:00"}, {"12:30 PM", TTime, "12:30:00"},
		{"040506", TTime, "04:05:06"}, {"0405", TTime, "04:05:00"}, {"T12:34", TTime, "12:34:00"},
		{"2003-04-12 04:05:06", TTime, "04:05:06"}, {"04:05:06.789-8", TTime, "04:05:06.789"},
		{"04:05:06 PST", TTime, "04:05:06"}, {"23:59:60", TTime, "24:00:00"}, {" 12:00 ", TTime, "12:00:00"},
		{"12:34:56.7891235", TTime, "12:34:56.789124"}, {"12:34:56.789", Type{ID: IDTime, Precision: 1}, "12:34:57"},
		{"12:34:56.749", Type{ID: IDTime, Precision: 2}, "12:34:56.7"}, {"23:59:59.95", Type{ID: IDTime, Precision: 2}, "24:00:00"},
		{"00:00:00.000001", TTime, "00:00:00.000001"}, {"13:00:00.5", Type{ID: IDTime, Precision: 7}, "13:00:00.5"},
	} {
		d, err := Parse(c.in, c.typ)
		if err != nil || Format(d, c.typ) != c.want {
			t.Errorf("%q::%s = %q, %v; want %q", c.in, c.typ, Format(d, c.typ), err, c.want)
		}
	}
	for _, c := range []struct{ in, code string }{
		{"24:00:01", pgerr.DatetimeFieldOverflow}, {"25:00", pgerr.DatetimeFieldOverflow}, {"12:60", pgerr.DatetimeFieldOverflow},
		{"13:00 pm", pgerr.DatetimeFieldOverflow}, {"noon", pgerr.InvalidDatetimeFormat}, {"", pgerr.InvalidDatetimeFormat},
		{"12", pgerr.InvalidDatetimeFormat}, {"12:34 xyz/abc", pgerr.InvalidParameterValue},
	} {
		if _, err := Parse(c.in, TTime); pgerr.Code(err) != c.code {
			t.Errorf("%q: %v, want %s", c.in, err, c.code)
		}
	}
}

// FuzzTime: every time of day round-trips through its text at full
// precision; rounding never leaves 0 .. 24:00:00.
func FuzzTime(f *testing.F) {
	f.Add(int64(0), uint8(6))
	f.Add(int64(MicrosPerDay), uint8(0))
	f.Add(int64(MicrosPerDay-1), uint8(3))
	f.Fuzz(func(t *testing.T, micros int64, p uint8) {
		if micros < 0 || micros > MicrosPerDay {
			return
		}
		if got := roundTrip(t, micros, TTime); got != micros {
			t.Fatalf("%d (%s) -> %v", micros, FormatTime(micros), got)
		}
		typ := Type{ID: IDTime, Precision: int(p%7) + 1}
		r := RoundTime(micros, typ)
		if r < 0 || r > MicrosPerDay || r-micros >= 500_000 || micros-r > 500_000 || roundTrip(t, r, typ) != r {
			t.Fatalf("time(%d) of %s: %s", p%7, FormatTime(micros), FormatTime(r))
		}
	})
}

// TestBpchar: padding, 22001 unless the excess is blanks, explicit
// truncation, character counts, and the value without trailing blanks.
func TestBpchar(t *testing.T) {
	c3 := Type{ID: IDBpchar, Width: 3}
	for _, c := range []struct {
		in       string
		typ      Type
		explicit bool
		want     string
		code     string
	}{
		{"a", c3, false, "a  ", ""}, {"", c3, false, "   ", ""}, {"abc", c3, false, "abc", ""},
		{"abc   ", c3, false, "abc", ""}, {"abcd", c3, false, "", pgerr.StringDataTooLong},
		{"abcd", c3, true, "abc", ""}, {"ééé ", c3, false, "ééé", ""}, {"é", c3, false, "é  ", ""},
		{"a  ", TBpchar, false, "a  ", ""}, {"ab c ", Type{ID: IDBpchar, Width: 1}, true, "a", ""},
	} {
		got, err := CheckBpchar(c.in, c.typ, c.explicit)
		if got != c.want || (err == nil) != (c.code == "") || err != nil && pgerr.Code(err) != c.code {
			t.Errorf("CheckBpchar(%q, %s, %v) = %q, %v", c.in, c.typ, c.explicit, got, err)
		}
	}
	if n := BpcharLength("é b  "); n != 3 {
		t.Errorf("BpcharLength = %d", n)
	}
}

// FuzzBpchar: a character(n) value is n characters, padding only adds
// blanks, and it reads back as itself.
func FuzzBpchar(f *testing.F) {
	f.Add("ab ", uint8(3))
	f.Add("ééé", uint8(1))
	f.Fuzz(func(t *testing.T, s string, w uint8) {
		if !utf8.ValidString(s) {
			return
		}
		typ := Type{ID: IDBpchar, Width: int(w%8) + 1}
		v, err := CheckBpchar(s, typ, true)
		if err != nil || utf8.RuneCountInString(v) != typ.Width {
			t.Fatalf("%q::%s = %q, %v", s, typ, v, err)
		}
		if strict, err := CheckBpchar(s, typ, false); err == nil && BpcharTrim(strict) != BpcharTrim(s) {
			t.Fatalf("%q::%s changed its value to %q", s, typ, strict)
		}
		if roundTrip(t, v, typ) != v {
			t.Fatalf("%q does not read back", v)
		}
	})
}

// TestTimeTZText: timetz_in's forms and timetz_out's offsets; the zone
// of a value without one is the session's (UTC here, or z).
func TestTimeTZText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"12:34:56+02", "12:34:56+02"}, {"12:34:56.789-08:00", "12:34:56.789-08"}, {"04:05:06 PST", "04:05:06-08"},
		{"12:00", "12:00:00+00"}, {"24:00+00", "24:00:00+00"}, {"2003-04-12 04:05:06 America/New_York", "04:05:06-04"},
		{"2003-01-12 04:05:06 America/New_York", "04:05:06-05"}, {"12:34+05:30", "12:34:00+05:30"},
		{"12:34+05:30:15", "12:34:00+05:30:15"}, {"00:00-15:59", "00:00:00-15:59"}, {"04:05 pm +01", "16:05:00+01"},
	} {
		d, err := Parse(c.in, TTimeTZ)
		if err != nil || Format(d, TTimeTZ) != c.want {
			t.Errorf("%q::timetz = %q, %v; want %q", c.in, Format(d, TTimeTZ), err, c.want)
		}
	}
	z, err := LoadZone("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := ParseIn("12:00", TTimeTZ, z); err != nil || Format(d, TTimeTZ) != "12:00:00+05:30" {
		t.Errorf("12:00 in Asia/Kolkata: %v, %v", d, err)
	}
	for _, s := range []string{"x", "25:00+01", "12:00+xyz"} {
		if _, err := Parse(s, TTimeTZ); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	for _, c := range []struct {
		s   string
		typ Type
	}{{"12:00+16", TTimeTZ}, {"12:00+15:60", TTimeTZ}, {"12:00+16", TTime}, {"2020-01-01 12:00+16", TTimestampTZ}} {
		if _, err := Parse(c.s, c.typ); pgerr.Code(err) != pgerr.InvalidTimeZoneDisplacement {
			t.Errorf("%q::%s: %v, want 22009", c.s, c.typ, err)
		}
	}
}

// FuzzTimeTZ: packing keeps both parts, its integer order is
// timetz_cmp's, and every value round-trips through its text.
func FuzzTimeTZ(f *testing.F) {
	f.Add(int64(0), int32(0), int64(MicrosPerDay), int32(-57599))
	f.Add(int64(43200e6), int32(-7200), int64(36000e6), int32(0))
	f.Fuzz(func(t *testing.T, m1 int64, z1 int32, m2 int64, z2 int32) {
		if !TimeTZValid(m1, z1) || !TimeTZValid(m2, z2) {
			return
		}
		a, b := PackTimeTZ(m1, z1), PackTimeTZ(m2, z2)
		if gm, gz := SplitTimeTZ(a); gm != m1 || gz != z1 {
			t.Fatalf("(%d, %d) -> %d -> (%d, %d)", m1, z1, a, gm, gz)
		}
		want := compareInts(m1+int64(z1)*MicrosPerSecond, m2+int64(z2)*MicrosPerSecond)
		if want == 0 {
			want = compareInts(int64(z1), int64(z2))
		}
		if got := compareInts(a, b); got != want {
			t.Fatalf("order of (%d, %d) and (%d, %d): %d, want %d", m1, z1, m2, z2, got, want)
		}
		if roundTrip(t, a, TTimeTZ) != a {
			t.Fatalf("%s does not read back", FormatTimeTZ(a))
		}
	})
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestInetText: inet_in's and cidr_in's forms, their output, and the
// errors.
func TestInetText(t *testing.T) {
	for _, c := range []struct {
		in   string
		typ  Type
		want string
	}{
		{"192.168.1.5", TInet, "192.168.1.5"}, {"192.168.1.5/24", TInet, "192.168.1.5/24"}, {"10/8", TInet, "10.0.0.0/8"},
		{"::ffff:1.2.3.4", TInet, "::ffff:1.2.3.4"}, {"::1.2.3.4", TInet, "::1.2.3.4"}, {"::1", TInet, "::1"},
		{"2001:0DB8:0:0:1:0:0:1", TInet, "2001:db8::1:0:0:1"}, {"10.1", TCidr, "10.1.0.0/16"}, {"128", TCidr, "128.0.0.0/16"},
		{"224", TCidr, "224.0.0.0/4"}, {"192.168.1", TCidr, "192.168.1.0/24"}, {"10.1.2.3", TCidr, "10.1.2.3/32"},
		{"2001:db8::/32", TCidr, "2001:db8::/32"}, {"0.0.0.0/0", TCidr, "0.0.0.0/0"},
	} {
		d, err := Parse(c.in, c.typ)
		if err != nil || Format(d, c.typ) != c.want {
			t.Errorf("%q::%s = %q, %v; want %q", c.in, c.typ, Format(d, c.typ), err, c.want)
		}
	}
	for _, c := range []struct {
		in  string
		typ Type
	}{{"10", TInet}, {"192.168.1.5/24", TCidr}, {"10.1.2.3/33", TInet}, {"1.2.3.256", TInet}, {" 10.1.2.3", TInet},
		{"fe80::1%eth0", TInet}, {"10.1.2.3/", TInet}, {"10.1.2.3/+8", TInet}, {"1..2.3", TCidr}, {"::1/129", TInet}, {"", TInet}} {
		if _, err := Parse(c.in, c.typ); pgerr.Code(err) != pgerr.InvalidTextRep {
			t.Errorf("%q::%s: %v, want 22P02", c.in, c.typ, err)
		}
	}
}

// FuzzInet: what parses prints as text that parses back to the same
// value; a cidr never has host bits; text(inet) (with the netmask) reads
// back too.
func FuzzInet(f *testing.F) {
	for _, s := range []string{"10/8", "192.168.1.5/24", "::ffff:1.2.3.4", "2001:db8::/32", "224", "1.2.3.4/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []Type{TInet, TCidr} {
			d, err := Parse(s, typ)
			if err != nil {
				continue
			}
			v := d.(string)
			if roundTrip(t, v, typ) != v {
				t.Fatalf("%q::%s = %s does not read back", s, typ, Format(v, typ))
			}
			if back, err := ParseInet(FormatInet(v, true), false); err != nil || back != v {
				t.Fatalf("text(%s) = %s does not read back", Format(v, typ), FormatInet(v, true))
			}
			if n := SplitInet(v); typ.ID == IDCidr && n.Network() != n.Addr {
				t.Fatalf("cidr %s has host bits", Format(v, typ))
			}
		}
	})
}
