package expr

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// bytea: its operators and functions. A bytea Datum is a Go string of the
// raw bytes (see internal/types/bytea.go), so lengths and positions count
// bytes, comparisons are Go's string order (memcmp, then length) and
// casts to and from text go through its text forms (text -> bytea
// explicitly, bytea -> text in assignment: PostgreSQL's I/O conversion
// casts, which castLevel's category rules give). The overloads of names
// text has too (length, substr, position, btrim, md5 ...) are registered
// with text's in string_funcs*.go.

const tBytea = types.IDBytea

// The bytea overloads of functions text has too.
var (
	byteaLength    = fn1(tBytea, tInt4, func(a []types.Datum) (types.Datum, error) { return int64(len(a[0].(string))), nil })
	byteaSubstr2   = fn2(tBytea, tInt4, tBytea, byteaSubstr)
	byteaSubstr3   = fn3(tBytea, tInt4, tInt4, tBytea, byteaSubstr)
	byteaPosition  = fn2(tBytea, tBytea, tInt4, func(a []types.Datum) (types.Datum, error) { return bytePos(a[1], a[0]), nil })
	byteaMD5       = fn1(tBytea, tText, func(a []types.Datum) (types.Datum, error) { return md5Hex(a[0].(string)), nil })
	byteaTrimBoth  = fn2(tBytea, tBytea, tBytea, byteaTrim(true, true))
	byteaTrimLeft  = fn2(tBytea, tBytea, tBytea, byteaTrim(true, false))
	byteaTrimRight = fn2(tBytea, tBytea, tBytea, byteaTrim(false, true))
)

func init() {
	for _, op := range comparisons {
		addBinary(op, tBytea, tBytea, tBool, comparison(op, types.TBytea))
	}
	register(overloads(fn2(tBytea, tText, tText, encode)), "encode")
	register(overloads(fn2(tText, tText, tBytea, decode)), "decode")
	register(overloads(fn1(tBytea, tBytea, hashFn(func(b []byte) []byte { s := sha256.Sum224(b); return s[:] }))), "sha224")
	register(overloads(fn1(tBytea, tBytea, hashFn(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }))), "sha256")
	register(overloads(fn1(tBytea, tBytea, hashFn(func(b []byte) []byte { s := sha512.Sum384(b); return s[:] }))), "sha384")
	register(overloads(fn1(tBytea, tBytea, hashFn(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }))), "sha512")
	register(overloads(fn2(tBytea, tInt4, tInt4, getByte)), "get_byte")
	register(overloads(fn3(tBytea, tInt4, tInt4, tBytea, setByte)), "set_byte")
	register(overloads(fn2(tBytea, tInt8, tInt4, getBit)), "get_bit")
	register(overloads(fn3(tBytea, tInt8, tInt4, tBytea, setBit)), "set_bit")
	register(overloads(fn2(tText, tText, tBytea, convertTo)), "convert_to")
	register(overloads(fn2(tBytea, tText, tText, convertFrom)), "convert_from")
}

// byteaSubstr is substr(b, start [, count]) over bytes, with text's rules
// for a start before 1 and a negative count.
func byteaSubstr(a []types.Datum) (types.Datum, error) {
	s, start := a[0].(string), a[1].(int64)
	end := int64(len(s)) + 1
	if len(a) == 3 {
		n := a[2].(int64)
		if n < 0 {
			return nil, pgerr.New("22011", "negative substring length not allowed")
		}
		end = min(end, start+n)
	}
	start = max(start, 1)
	if start >= end {
		return "", nil
	}
	return s[start-1 : end-1], nil
}

// bytePos is the 1-based byte position of sub in s, 0 if absent.
func bytePos(s, sub types.Datum) int64 {
	return int64(strings.Index(s.(string), sub.(string)) + 1)
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// byteaTrim removes the bytes of the set a[1] from the ends of a[0].
func byteaTrim(left, right bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		s, set := a[0].(string), a[1].(string)
		in := func(c byte) bool { return strings.IndexByte(set, c) >= 0 }
		for left && len(s) > 0 && in(s[0]) {
			s = s[1:]
		}
		for right && len(s) > 0 && in(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
		return s, nil
	}
}

// byteaConcat builds b1 || b2 when one side is bytea and the other bytea
// or untyped; ok is false otherwise (text concatenation then applies,
// with the bytea side in its hex form).
func byteaConcat(l, r Expr) (Expr, bool, error) {
	lt, rt := l.Type().ID, r.Type().ID
	if !(lt == tBytea && (rt == tBytea || rt == types.IDUnknown) || rt == tBytea && lt == types.IDUnknown) {
		return nil, false, nil
	}
	cands := []sig{{params: []types.ID{tBytea, tBytea}, result: tBytea, fn: func(a []types.Datum) (types.Datum, error) {
		return a[0].(string) + a[1].(string), nil
	}}}
	e, err := newCall("||", styleInfix, cands, []Expr{l, r})
	return e, true, err
}

// encode is encode(b, format): hex, base64 or escape (in any case).
func encode(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	switch strings.ToLower(a[1].(string)) {
	case "hex":
		return string(types.AppendHex(make([]byte, 0, 2*len(s)), s)), nil
	case "base64":
		return types.EncodeBase64(s), nil
	case "escape":
		return types.EncodeEscape(s), nil
	}
	return nil, unknownEncoding(a[1].(string))
}

// decode is decode(s, format), encode's inverse.
func decode(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	var b []byte
	var err error
	switch strings.ToLower(a[1].(string)) {
	case "hex":
		b, err = types.DecodeHex(s)
	case "base64":
		b, err = types.DecodeBase64(s)
	case "escape":
		b, err = types.DecodeEscape(s)
	default:
		return nil, unknownEncoding(a[1].(string))
	}
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func unknownEncoding(name string) error {
	return pgerr.New(pgerr.InvalidParameterValue, `unrecognized encoding: "%s"`, name)
}

func hashFn(sum func([]byte) []byte) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return string(sum([]byte(a[0].(string)))), nil }
}

// byteIndex checks that n indexes one of size units (bytes or bits).
func byteIndex(n, size int64) error {
	if n < 0 || n >= size {
		return pgerr.New("2202E", "index %d out of valid range, 0..%d", n, size-1)
	}
	return nil
}

func getByte(a []types.Datum) (types.Datum, error) {
	s, n := a[0].(string), a[1].(int64)
	if err := byteIndex(n, int64(len(s))); err != nil {
		return nil, err
	}
	return int64(s[n]), nil
}

// setByte is set_byte(b, n, v): b with byte n set to v's low 8 bits.
func setByte(a []types.Datum) (types.Datum, error) {
	s, n := a[0].(string), a[1].(int64)
	if err := byteIndex(n, int64(len(s))); err != nil {
		return nil, err
	}
	b := []byte(s)
	b[n] = byte(a[2].(int64))
	return string(b), nil
}

// getBit is get_bit(b, n): bit n%8 (least significant first) of byte n/8.
func getBit(a []types.Datum) (types.Datum, error) {
	s, n := a[0].(string), a[1].(int64)
	if err := byteIndex(n, int64(len(s))*8); err != nil {
		return nil, err
	}
	return int64(s[n/8]>>(n%8)) & 1, nil
}

func setBit(a []types.Datum) (types.Datum, error) {
	s, n, v := a[0].(string), a[1].(int64), a[2].(int64)
	if err := byteIndex(n, int64(len(s))*8); err != nil {
		return nil, err
	}
	if v != 0 && v != 1 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "new bit must be 0 or 1")
	}
	b := []byte(s)
	b[n/8] = b[n/8]&^(1<<(n%8)) | byte(v)<<(n%8)
	return string(b), nil
}
