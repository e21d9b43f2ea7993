package types

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// A uuid Datum is its 16 raw bytes as a Go string, so uuids compare,
// key and hash as strings do: byte-wise, which is Postgres's uuid order
// (uuid_cmp is a memcmp). Only Parse and Format see the text form.

// ParseUUID reads a uuid as Postgres's uuid_in does: 32 hex digits in
// either case, optionally in braces, with a hyphen allowed after any
// group of four digits (a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,
// {a0eebc999c0b4ef8bb6d6bb9bd380a11}, A0EEBC99-9C0B4EF8-...). Anything
// else is 22P02.
func ParseUUID(s string) (string, error) {
	src := s
	braces := len(src) > 0 && src[0] == '{'
	if braces {
		src = src[1:]
	}
	var out [16]byte
	for i := 0; i < 16; i++ {
		if len(src) < 2 {
			return "", uuidSyntaxError(s)
		}
		hi, ok1 := unhex(src[0])
		lo, ok2 := unhex(src[1])
		if !ok1 || !ok2 {
			return "", uuidSyntaxError(s)
		}
		out[i] = hi<<4 | lo
		src = src[2:]
		if i%2 == 1 && i < 15 && len(src) > 0 && src[0] == '-' {
			src = src[1:]
		}
	}
	if braces {
		if len(src) == 0 || src[0] != '}' {
			return "", uuidSyntaxError(s)
		}
		src = src[1:]
	}
	if src != "" {
		return "", uuidSyntaxError(s)
	}
	return string(out[:]), nil
}

func uuidSyntaxError(s string) error {
	return pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type uuid: %q", s)
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// FormatUUID writes a uuid (its 16 bytes) as Postgres's uuid_out does:
// lower-case hex in groups of 8-4-4-4-12.
func FormatUUID(b string) string {
	if len(b) != 16 {
		return hex.EncodeToString([]byte(b)) // not a uuid Datum; never stored
	}
	var out [36]byte
	j := 0
	for i := 0; i < 16; i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		hex.Encode(out[j:j+2], []byte{b[i]})
		j += 2
	}
	return string(out[:])
}

// RandomUUID returns a version 4 (random) uuid, as gen_random_uuid does.
func RandomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return string(b[:])
}
