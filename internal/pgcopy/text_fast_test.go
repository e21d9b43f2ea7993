package pgcopy

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestDecodeIntFast: the integer fast path (plainInt) gives what
// types.ParseIn gives, value or error (SQLSTATE and message), for
// every integer type, on the forms it reads and those it leaves to
// ParseIn; so does DecodeInt, text and binary, where it reads a field.
func TestDecodeIntFast(t *testing.T) {
	inputs := []string{"0", "-0", "7", "-7", "007", "-007", "32767", "32768", "-32768", "-32769",
		"2147483647", "2147483648", "-2147483648", "-2147483649",
		"123456789012345678", "-123456789012345678", "999999999999999999",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"99999999999999999999", " 12", "12 ", "+5", "--5", "-", "", "1_000", "1e3", "0x10", "١٢", "12a", "a12"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := rng.Int64() >> rng.IntN(64)
		if rng.IntN(2) == 0 {
			n = -n
		}
		inputs = append(inputs, fmt.Sprint(n))
	}
	for _, ty := range []types.Type{types.TInt16, types.TInt32, types.TInt64} {
		dec := NewDecoder(Text, []types.Type{ty})
		for _, in := range inputs {
			got, gotErr := dec.Decode(0, []byte(in))
			want, wantErr := types.ParseIn(in, ty, nil)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || pgerr.Code(gotErr) != pgerr.Code(wantErr) {
				t.Errorf("%s %q: got %v, %v; ParseIn %v, %v", ty, in, got, gotErr, want, wantErr)
			}
			// DecodeInt reads a value ParseIn reads, the same, or leaves
			// the field to Decode.
			if n, ok := dec.DecodeInt(0, []byte(in)); ok && (wantErr != nil || want != n) {
				t.Errorf("%s %q: DecodeInt %d; ParseIn %v, %v", ty, in, n, want, wantErr)
			}
		}
	}
}

// TestSplitPlain: a record without backslashes splits the same way
// through splitPlain as through the escape-aware splitEscaped: the same
// field count and, when it is the column count, the same fields and
// NULLs, for delimiters and null strings of either format.
func TestSplitPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "1", "\t", ",", "|", "", "NULL", "é", " "}
	for _, delim := range []byte{'\t', ',', '|'} {
		for _, null := range []string{`\N`, "", "NULL"} {
			cols := []string{"a", "b", "c"}
			opts := Options{Delimiter: delim, Null: null}
			plain := newTextReader(bufio.NewReader(bytes.NewReader(nil)), opts, cols)
			escaped := newTextReader(bufio.NewReader(bytes.NewReader(nil)), opts, cols)
			for range 3000 {
				var line []byte
				for n := rng.IntN(12); n > 0; n-- {
					line = append(line, alphabet[rng.IntN(len(alphabet))]...)
				}
				n := plain.splitPlain(line)
				m, err := escaped.splitEscaped(line)
				if err != nil || n != m {
					t.Fatalf("%q (delimiter %q, null %q): splitPlain %d fields, splitEscaped %d, %v", line, delim, null, n, m, err)
				}
				if n != len(cols) {
					continue
				}
				same := slices.EqualFunc(plain.fields, escaped.fields, func(a, b []byte) bool {
					return (a == nil) == (b == nil) && bytes.Equal(a, b)
				})
				if !same {
					t.Fatalf("%q (delimiter %q, null %q): splitPlain %q, splitEscaped %q", line, delim, null, plain.fields, escaped.fields)
				}
			}
		}
	}
}

// TestCheckUTF8Words: the eight-bytes-at-a-time ASCII scan finds a bad
// sequence wherever it lies, and passes good text with multibyte
// characters anywhere.
func TestCheckUTF8Words(t *testing.T) {
	for pos := 0; pos < 20; pos++ {
		good := append(bytes.Repeat([]byte("x"), pos), "é12345678"...)
		if err := checkUTF8(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
		bad := append(bytes.Repeat([]byte("x"), pos), "\xff12345678"...)
		if pgerr.Code(checkUTF8(bad)) != pgerr.CharacterNotInRepertoire {
			t.Errorf("%q: no error", bad)
		}
		cut := append(bytes.Repeat([]byte("x"), pos), "\xc3"...)
		if pgerr.Code(checkUTF8(cut)) != pgerr.CharacterNotInRepertoire {
			t.Errorf("%q: no error", cut)
		}
	}
}

// TestDecodeIntBinary: DecodeInt reads binary integers of their type's
// size as Decode does, and leaves other sizes to Decode's error.
func TestDecodeIntBinary(t *testing.T) {
	for _, c := range []struct {
		ty    types.Type
		field []byte
		want  int64
		ok    bool
	}{
		{types.TInt16, []byte{0xff, 0xfe}, -2, true},
		{types.TInt32, []byte{0, 0, 1, 0}, 256, true},
		{types.TInt64, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, -1 << 63, true},
		{types.TInt32, []byte{0, 1}, 0, false},
		{types.TText, []byte{0, 0, 0, 1}, 0, false},
	} {
		dec := NewDecoder(Binary, []types.Type{c.ty})
		n, ok := dec.DecodeInt(0, c.field)
		if ok != c.ok || n != c.want {
			t.Errorf("%s %x: DecodeInt %d, %v; want %d, %v", c.ty, c.field, n, ok, c.want, c.ok)
		}
		if d, err := dec.Decode(0, c.field); ok && (err != nil || d != n) {
			t.Errorf("%s %x: Decode %v, %v; DecodeInt %d", c.ty, c.field, d, err, n)
		}
	}
}
