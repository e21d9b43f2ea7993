package jsonb

import (
	"bytes"
	"strings"
	"sync"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// dataCorrupted is PostgreSQL's data_corrupted SQLSTATE, the error of
// DecodeSortKey.
const dataCorrupted = "XX001"

// Tags of the sort key's tokens, in typeRank order. They are part of the
// stored format (see AppendSortKey): never change them.
const (
	keyNull   = 0x00
	keyString = 0x01
	keyNumber = 0x02
	keyBool   = 0x03
	keyArray  = 0x10
	keyObject = 0x11
)

// The byte after an array's count: 0x00 marks the top-level raw scalar
// pseudo-array, 0x01 a real array.
const (
	keyRawScalar = 0x00
	keyRealArray = 0x01
)

// Classes of a number's key, the byte after keyNumber.
const (
	numNegative = 0x00
	numZero     = 0x01
	numPositive = 0x02
)

// numExpBias biases a number's decimal exponent (an int32) into an
// unsigned 4-byte big-endian field that orders as the exponents do.
const numExpBias = 0x80000000

// AppendSortKey appends v's sort key to dst and returns the extended
// slice. bytes.Compare of two keys is Compare of their values, and equal
// values (1 and 1.0, 1.50 and 1.5) have identical keys, so a key also
// serves for hashing, grouping, joining and deduplicating. DecodeSortKey
// reads a key back.
//
// The key is a stored, persistent format: it is the storage key of jsonb
// columns (storage.AppendKey), which state tables and primary keys hold.
// It must never change; a change would need a new format version and a
// rewrite of every stored key. TestSortKeyFormat pins it.
//
// A key is self-delimiting: no key is a proper prefix of another, so
// DecodeSortKey finds where a key ends without a length. Two different
// keys therefore differ at a byte both have, and a key followed by other
// bytes (the memcomparable keys of a row's next columns) orders by the
// key first and by the bytes that follow only between equal keys.
//
// The format. A key is the token of the top-level value, where a scalar
// is first wrapped, as PostgreSQL does, in a one-element raw scalar
// pseudo-array. A token is a tag byte, whose order is the order of the
// kinds (null < string < number < boolean < array < object), and the
// kind's content:
//
//	null        00
//	string      01 S
//	number      02 N
//	boolean     03 00 (false) or 03 01 (true)
//	array       10 C 01 token*C            (elements in order)
//	object      11 C (S token)*C           (key then value; pairs in jsonb's key order)
//	raw scalar  10 00000001 00 token       (top level only; token is a scalar's)
//
// C, the number of elements or pairs, is 4 bytes big-endian (jsonb holds
// fewer than 2^28), so that a container with more members sorts after
// one with fewer, as in Compare. The raw scalar's 00 after its count of 1
// sorts it after [] (count 0) and before every non-empty array (count 1
// then 01, or a greater count), where PostgreSQL sorts it. An object's
// pairs come in the order Compare compares them, jsonb's stored key
// order (shorter keys first, then bytewise).
//
// S, a string or an object key, is the string's bytes with each 00 byte
// written 00 FF, then the terminator 00 01. Inside S a 00 is always
// followed by FF or 01, so S ends at the first 00 01, and S's order is
// the strings' bytewise order ("ab" < "ab\x00" < "abc").
//
// N, a number, is a class byte then, for a non-zero number, its magnitude
// written as 0.d1d2…dk × 10^E with d1 ≠ 0 and dk ≠ 0 (so trailing zeros
// and the display scale do not count: 1, 1.0 and 1.00 have one key):
//
//	zero      01
//	positive  02 E d1…dk 00
//	negative  00 ^(E d1…dk 00)             (every byte complemented)
//
// E is the 4-byte big-endian uint32(int32(E)) XOR 0x80000000, and d1…dk
// are ASCII digits ('0' to '9'). A greater E, then a greater digit string
// (a prefix sorting first, its 00 terminator being below any digit), is a
// greater magnitude; complementing reverses that for negative numbers,
// whose terminator is FF.
//
// For example (hexadecimal):
//
//	null         10 00000001 00 00
//	"a"          10 00000001 00 01 61 0001
//	1.50         10 00000001 00 02 02 80000001 3135 00
//	-1.5         10 00000001 00 02 00 7ffffffe ceca ff
//	0            10 00000001 00 02 01
//	[]           10 00000000 01
//	[true]       10 00000001 01 03 01
//	{"a": null}  11 00000001 61 0001 00
func (v Value) AppendSortKey(dst []byte) []byte {
	if v.IsScalar() {
		dst = append(dst, keyArray, 0, 0, 0, 1, keyRawScalar)
	}
	return appendValueKey(dst, v)
}

func appendCount(dst []byte, n int) []byte {
	return append(dst, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendValueKey(dst []byte, v Value) []byte {
	switch v.kind {
	case Null:
		return append(dst, keyNull)
	case Bool:
		if v.b {
			return append(dst, keyBool, 1)
		}
		return append(dst, keyBool, 0)
	case String:
		return appendStringKey(append(dst, keyString), v.s)
	case Number:
		return appendNumberKey(append(dst, keyNumber), v.s)
	case Array:
		dst = appendCount(append(dst, keyArray), len(v.c.vals))
		dst = append(dst, keyRealArray)
		for _, e := range v.c.vals {
			dst = appendValueKey(dst, e)
		}
		return dst
	}
	dst = appendCount(append(dst, keyObject), len(v.c.keys))
	for i, k := range v.c.keys {
		dst = appendStringKey(dst, k)
		dst = appendValueKey(dst, v.c.vals[i])
	}
	return dst
}

// appendStringKey appends S, s escaped (00 as 00 FF) and terminated
// (00 01).
func appendStringKey(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, 0xff)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, 0, 1)
}

// appendNumberKey appends N for the number whose canonical text is s.
func appendNumberKey(dst []byte, s string) []byte {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	ip, fp := splitPoint(s)
	var e int
	var digits string
	if ip != "0" {
		e = len(ip)
		digits = strings.TrimRight(ip+fp, "0")
	} else {
		t := strings.TrimLeft(fp, "0")
		if t == "" {
			return append(dst, numZero)
		}
		e = -(len(fp) - len(t))
		digits = strings.TrimRight(t, "0")
	}
	start := len(dst)
	dst = append(dst, numPositive)
	u := uint32(int32(e)) ^ numExpBias
	dst = append(dst, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	dst = append(dst, digits...)
	dst = append(dst, 0)
	if neg {
		for i := start + 1; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
		dst[start] = numNegative
	}
	return dst
}

// DecodeSortKey decodes the sort key (see AppendSortKey) at the start of
// buf and returns its value and the bytes after it. Numbers come back in
// their shortest form, the value's canonical text without trailing zeros
// (the key does not keep the display scale): 1.0 decodes as 1, 1.50 as
// 1.5, 1e20 as 100000000000000000000, 1.5e-7 as 0.00000015.
//
// It accepts exactly the keys AppendSortKey writes, so a decoded value
// re-encodes to the bytes it was decoded from, except that it refuses,
// as Parse does, nesting deeper than MaxDepth, strings longer than
// jsonb's limit and numbers numeric cannot hold (more than 131072 digits
// before the decimal point or 16383 after it): the keys of the values
// Parse returns all decode, and what decodes prints as text Parse reads
// back (unless a string holds a NUL byte, which only FromString makes).
// Any other input, truncated or not a key, is an error with SQLSTATE
// XX001 (data_corrupted); DecodeSortKey never panics, and allocates in
// proportion to what it decodes, not to the counts it reads.
func DecodeSortKey(buf []byte) (v Value, rest []byte, err error) {
	d := keyDecoderPool.Get().(*keyDecoder)
	d.buf, d.pos, d.depth = buf, 0, 0
	v, err = d.top()
	end := d.pos
	// The arenas now belong to the Values; the stacks (left full by an
	// error) are kept, emptied, unless a huge key grew them.
	clear(d.vals)
	clear(d.keys)
	if cap(d.vals) > maxPooledStack || cap(d.keys) > maxPooledStack {
		d.vals, d.keys = nil, nil
	}
	*d = keyDecoder{vals: d.vals[:0], keys: d.keys[:0]}
	keyDecoderPool.Put(d)
	if err != nil {
		return Value{}, nil, err
	}
	return v, buf[end:], nil
}

// keyDecoder reads a sort key from buf[pos:].
type keyDecoder struct {
	buf   []byte
	pos   int
	depth int
	// Stacks of the elements and keys of the open containers: a
	// container's slices are cut from the arenas once it is complete, at
	// their size, so that the counts read are never trusted for
	// allocating.
	vals []Value
	keys []string
	// Arenas, as Parse's (allocated in chunks rather than per container).
	valArena []Value
	keyArena []string
	conArena []container
}

var keyDecoderPool = sync.Pool{New: func() any { return new(keyDecoder) }}

// maxPooledStack is the largest stack a pooled keyDecoder keeps.
const maxPooledStack = 1 << 16

// arenaCut appends items to *arena, in a new chunk when the current one
// is full, and returns them there.
func arenaCut[T any](arena *[]T, items []T) []T {
	n := len(items)
	if n == 0 {
		return nil
	}
	a := *arena
	if cap(a)-len(a) < n {
		a = make([]T, 0, max(min(2*cap(a), maxChunk), 8, n))
	}
	l := len(a)
	a = append(a, items...)
	*arena = a
	return a[l : l+n : l+n]
}

// newContainer returns a container of the top len(d.keys)-kbase keys and
// len(d.vals)-vbase values of the stacks, popping them.
func (d *keyDecoder) newContainer(kbase, vbase int) *container {
	keys := arenaCut(&d.keyArena, d.keys[kbase:])
	vals := arenaCut(&d.valArena, d.vals[vbase:])
	clear(d.keys[kbase:])
	clear(d.vals[vbase:])
	d.keys, d.vals = d.keys[:kbase], d.vals[:vbase]
	if len(d.conArena) == cap(d.conArena) {
		d.conArena = make([]container, 0, max(min(2*cap(d.conArena), maxChunk), 4))
	}
	d.conArena = append(d.conArena, container{keys: keys, vals: vals})
	return &d.conArena[len(d.conArena)-1]
}

func (d *keyDecoder) fail(what string) error {
	return pgerr.New(dataCorrupted, "invalid jsonb sort key: %s at byte %d", what, d.pos)
}

func (d *keyDecoder) truncated() error {
	return pgerr.New(dataCorrupted, "invalid jsonb sort key: truncated after %d bytes", len(d.buf))
}

// readByte reads one byte.
func (d *keyDecoder) readByte() (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, d.truncated()
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

// count reads C and checks that the rest of buf can hold that many
// tokens of at least minSize bytes each.
func (d *keyDecoder) count(minSize int) (int, error) {
	if len(d.buf)-d.pos < 4 {
		return 0, d.truncated()
	}
	b := d.buf[d.pos : d.pos+4]
	n := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	d.pos += 4
	if n*uint64(minSize) > uint64(len(d.buf)-d.pos) {
		return 0, d.truncated()
	}
	return int(n), nil
}

// top reads the top-level token: an array, an object or a raw scalar.
func (d *keyDecoder) top() (Value, error) {
	tag, err := d.readByte()
	if err != nil {
		return Value{}, err
	}
	switch tag {
	case keyArray:
		n, err := d.count(1)
		if err != nil {
			return Value{}, err
		}
		flag, err := d.readByte()
		if err != nil {
			return Value{}, err
		}
		switch flag {
		case keyRealArray:
			return d.array(n)
		case keyRawScalar:
			if n != 1 {
				d.pos -= 5
				return Value{}, d.fail("raw scalar pseudo-array with a count other than 1")
			}
			if d.pos < len(d.buf) && d.buf[d.pos] >= keyArray {
				return Value{}, d.fail("raw scalar pseudo-array holding a container")
			}
			return d.value()
		}
		d.pos--
		return Value{}, d.fail("bad array flag")
	case keyObject:
		n, err := d.count(3)
		if err != nil {
			return Value{}, err
		}
		return d.object(n)
	}
	d.pos--
	return Value{}, d.fail("bad top-level tag")
}

// value reads a token.
func (d *keyDecoder) value() (Value, error) {
	tag, err := d.readByte()
	if err != nil {
		return Value{}, err
	}
	switch tag {
	case keyNull:
		return Value{}, nil
	case keyBool:
		b, err := d.readByte()
		if err != nil {
			return Value{}, err
		}
		if b > 1 {
			d.pos--
			return Value{}, d.fail("bad boolean")
		}
		return FromBool(b == 1), nil
	case keyString:
		s, err := d.readString()
		if err != nil {
			return Value{}, err
		}
		return FromString(s), nil
	case keyNumber:
		return d.number()
	case keyArray:
		n, err := d.count(1)
		if err != nil {
			return Value{}, err
		}
		flag, err := d.readByte()
		if err != nil {
			return Value{}, err
		}
		if flag != keyRealArray {
			d.pos--
			return Value{}, d.fail("bad array flag")
		}
		return d.array(n)
	case keyObject:
		n, err := d.count(3)
		if err != nil {
			return Value{}, err
		}
		return d.object(n)
	}
	d.pos--
	return Value{}, d.fail("bad tag")
}

func (d *keyDecoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.fail("nesting deeper than MaxDepth")
	}
	return nil
}

// array reads an array's n elements.
func (d *keyDecoder) array(n int) (Value, error) {
	if err := d.enter(); err != nil {
		return Value{}, err
	}
	base := len(d.vals)
	for range n {
		v, err := d.value()
		if err != nil {
			return Value{}, err
		}
		d.vals = append(d.vals, v)
	}
	d.depth--
	return Value{kind: Array, c: d.newContainer(len(d.keys), base)}, nil
}

// object reads an object's n pairs, whose keys must be in jsonb's order.
func (d *keyDecoder) object(n int) (Value, error) {
	if err := d.enter(); err != nil {
		return Value{}, err
	}
	kbase, vbase := len(d.keys), len(d.vals)
	for i := range n {
		start := d.pos
		k, err := d.readString()
		if err != nil {
			return Value{}, err
		}
		if i > 0 && compareKeys(d.keys[len(d.keys)-1], k) >= 0 {
			d.pos = start
			return Value{}, d.fail("object keys out of order")
		}
		d.keys = append(d.keys, k)
		v, err := d.value()
		if err != nil {
			return Value{}, err
		}
		d.vals = append(d.vals, v)
	}
	d.depth--
	return Value{kind: Object, c: d.newContainer(kbase, vbase)}, nil
}

// readString reads S.
func (d *keyDecoder) readString() (string, error) {
	rest := d.buf[d.pos:]
	var b []byte // the unescaped string, once there is an escape
	for {
		i := bytes.IndexByte(rest, 0)
		if i < 0 || i+1 >= len(rest) {
			return "", d.truncated()
		}
		switch rest[i+1] {
		case 1:
			var s string
			if b == nil {
				s = string(rest[:i])
			} else {
				s = string(append(b, rest[:i]...))
			}
			d.pos = len(d.buf) - len(rest) + i + 2
			if len(s) > maxStringLen {
				return "", d.fail("string longer than jsonb's limit")
			}
			return s, nil
		case 0xff:
			b = append(b, rest[:i+1]...)
			rest = rest[i+2:]
		default:
			d.pos = len(d.buf) - len(rest) + i
			return "", d.fail("bad string escape")
		}
	}
}

// number reads N and returns the number in its shortest text.
func (d *keyDecoder) number() (Value, error) {
	class, err := d.readByte()
	if err != nil {
		return Value{}, err
	}
	var flip byte
	switch class {
	case numZero:
		return Value{kind: Number, s: "0"}, nil
	case numNegative:
		flip = 0xff
	case numPositive:
	default:
		d.pos--
		return Value{}, d.fail("bad number class")
	}
	if len(d.buf)-d.pos < 4 {
		return Value{}, d.truncated()
	}
	b := d.buf[d.pos : d.pos+4]
	u := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) ^ uint32(flip)*0x01010101
	e := int64(int32(u ^ numExpBias))
	// 0.d1…dk × 10^E has max(E, 0) digits before the point and
	// max(k-E, 0) after it.
	if e > maxIntDigits || e < -maxDScale {
		return Value{}, d.fail("number out of numeric's range")
	}
	d.pos += 4
	start := d.pos
	end := bytes.IndexByte(d.buf[start:], flip)
	if end < 0 {
		return Value{}, d.truncated()
	}
	end += start
	k := int64(end - start)
	if k == 0 {
		return Value{}, d.fail("number without digits")
	}
	if k-e > maxDScale {
		return Value{}, d.fail("number out of numeric's range")
	}
	digits := make([]byte, k)
	for i, c := range d.buf[start:end] {
		c ^= flip
		if c < '0' || c > '9' {
			d.pos = start + i
			return Value{}, d.fail("bad digit")
		}
		digits[i] = c
	}
	if digits[0] == '0' || digits[k-1] == '0' {
		return Value{}, d.fail("number digits with a leading or trailing zero")
	}
	d.pos = end + 1

	var t strings.Builder
	n := int(k) + 3
	if e > k {
		n += int(e - k)
	} else if e < 0 {
		n += int(-e)
	}
	t.Grow(n)
	if flip != 0 {
		t.WriteByte('-')
	}
	switch {
	case e >= k: // an integer: the digits then zeros
		t.Write(digits)
		for i := k; i < e; i++ {
			t.WriteByte('0')
		}
	case e > 0:
		t.Write(digits[:e])
		t.WriteByte('.')
		t.Write(digits[e:])
	default: // below 1
		t.WriteString("0.")
		for i := e; i < 0; i++ {
			t.WriteByte('0')
		}
		t.Write(digits)
	}
	return Value{kind: Number, s: t.String()}, nil
}
