package types

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// byteaCases are inputs of 'input'::bytea and what PostgreSQL 15 shows
// (bytea_output = hex).
var byteaCases = []struct{ in, want string }{
	{`\x01ff`, `\x01ff`},
	{`\xAbCd`, `\xabcd`},
	{`\x`, `\x`},
	{``, `\x`},
	{`\x01 02` + "\n\t\r03", `\x010203`},
	{`abc\000`, `\x61626300`},
	{`a\\b`, `\x615c62`},
	{`\101\102\377`, `\x4142ff`},
	{`é`, `\xc3a9`},
	{`\x0`, `ERROR 22023 invalid hexadecimal data: odd number of digits`},
	{`\xg1`, `ERROR 22023 invalid hexadecimal digit: "g"`},
	{`\xé1`, `ERROR 22023 invalid hexadecimal digit: "é"`},
	{`\x 01 0 2`, `ERROR 22023 invalid hexadecimal digit: " "`},
	{`\X41`, `ERROR 22P02 invalid input syntax for type bytea`},
	{`a\b`, `ERROR 22P02 invalid input syntax for type bytea`},
	{`a\400`, `ERROR 22P02 invalid input syntax for type bytea`},
	{`a\`, `ERROR 22P02 invalid input syntax for type bytea`},
	{`\12`, `ERROR 22P02 invalid input syntax for type bytea`},
}

func TestByteaParseFormat(t *testing.T) {
	for _, c := range byteaCases {
		var got string
		d, err := Parse(c.in, TBytea)
		if err != nil {
			got = fmt.Sprintf("ERROR %s %s", pgerr.Code(err), err)
		} else {
			got = Format(d, TBytea)
		}
		if got != c.want {
			t.Errorf("%q::bytea = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestByteaEncodings checks encode and decode's forms against
// PostgreSQL 15's results.
func TestByteaEncodings(t *testing.T) {
	v := "\x00\x5c\x7f\x80\xff\x41"
	if got := EncodeEscape(v); got != `\000\\`+"\x7f"+`\200\377A` {
		t.Errorf("EncodeEscape = %q", got)
	}
	if got := EncodeBase64(strings.Repeat("a", 60)); got != strings.Repeat("YWFh", 19)+"\nYWFh" {
		t.Errorf("EncodeBase64 of 60 bytes = %q", got)
	}
	if got := EncodeBase64(strings.Repeat("a", 57)); got != strings.Repeat("YWFh", 19)+"\n" {
		t.Errorf("EncodeBase64 of 57 bytes = %q", got)
	}
	for _, c := range []struct {
		in   string
		dec  func(string) ([]byte, error)
		want string
	}{
		{"QUJD\n", DecodeBase64, `\x414243`},
		{"YQ==YQ==", DecodeBase64, `\x6161`},
		{"YQ=x", DecodeBase64, `\x61`},
		{"YQ", DecodeBase64, `ERROR 22023 invalid base64 end sequence`},
		{"=", DecodeBase64, `ERROR 22023 unexpected "=" while decoding base64 sequence`},
		{"@@", DecodeBase64, `ERROR 22023 invalid symbol "@" found while decoding base64 sequence`},
		{"é", DecodeBase64, `ERROR 22023 invalid symbol "é" found while decoding base64 sequence`},
		{" 41 42 ", DecodeHex, `\x4142`},
		{"4", DecodeHex, `ERROR 22023 invalid hexadecimal data: odd number of digits`},
		{`\141\\`, DecodeEscape, `\x615c`},
		{`a\`, DecodeEscape, `ERROR 22P02 invalid input syntax for type bytea`},
	} {
		var got string
		b, err := c.dec(c.in)
		if err != nil {
			got = fmt.Sprintf("ERROR %s %s", pgerr.Code(err), err)
		} else {
			got = FormatBytea(string(b))
		}
		if got != c.want {
			t.Errorf("decode of %q = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzByteaRoundTrip: every value reads back from its hex output, its
// escape form and its base64, and no input makes the decoders panic.
func FuzzByteaRoundTrip(f *testing.F) {
	for _, s := range []string{"", "\x00", "\xff\\", `\x41`, "abc\\000", "YQ=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := Parse(Format(s, TBytea), TBytea); err != nil || d != s {
			t.Fatalf("%q: hex round trip gives %q, %v", s, d, err)
		}
		if b, err := DecodeEscape(EncodeEscape(s)); err != nil || string(b) != s {
			t.Fatalf("%q: escape round trip gives %q, %v", s, b, err)
		}
		if b, err := DecodeBase64(EncodeBase64(s)); err != nil || string(b) != s {
			t.Fatalf("%q: base64 round trip gives %q, %v", s, b, err)
		}
		_, _ = ParseBytea(s)
		_, _ = DecodeBase64(s)
		_, _ = DecodeHex(s)
	})
}
