package storage

import (
	"bytes"
	"cmp"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// TestKeyOrderMatchesReference checks, per type, that bytes.Compare of the
// encodings agrees with the reference SQL comparison on random pairs, and
// that decoding gives back an equal value and consumes exactly the key.
func TestKeyOrderMatchesReference(t *testing.T) {
	for _, typ := range allTypes {
		t.Run(typ.String(), func(t *testing.T) {
			rng := newRNG(uint64(typ.ID))
			vals := make([]types.Datum, 400)
			keys := make([][]byte, len(vals))
			for i := range vals {
				vals[i] = genDatum(rng, typ)
				keys[i] = mustKey(t, typ, vals[i])
				checkKeyRoundTrip(t, typ, vals[i], keys[i])
			}
			for i := range vals {
				for j := range vals {
					want := compareDatum(typ, vals[i], vals[j])
					if got := bytes.Compare(keys[i], keys[j]); got != want {
						t.Fatalf("compare(%v, %v): keys say %d, reference %d\n%x\n%x",
							show(vals[i]), show(vals[j]), got, want, keys[i], keys[j])
					}
				}
			}
		})
	}
}

func checkKeyRoundTrip(t *testing.T, typ types.Type, d types.Datum, key []byte) {
	t.Helper()
	got, rest, err := DecodeKey(append(key, 0xAB), typ)
	if err != nil {
		t.Fatalf("DecodeKey(%x) of %v: %v", key, show(d), err)
	}
	if !bytes.Equal(rest, []byte{0xAB}) {
		t.Fatalf("DecodeKey(%x) left %x, want only the trailing byte", key, rest)
	}
	if compareDatum(typ, d, got) != 0 {
		t.Fatalf("DecodeKey: got %v, want %v", show(got), show(d))
	}
}

// TestKeyTuplesArePrefixFree concatenates two columns and checks the
// lexicographic tuple order, which fails if one encoding can be a prefix
// of another.
func TestKeyTuplesArePrefixFree(t *testing.T) {
	rng := newRNG(7)
	for _, typ := range allTypes {
		type tuple struct {
			a, b types.Datum
			key  []byte
		}
		ts := make([]tuple, 300)
		for i := range ts {
			a, b := genDatum(rng, typ), genDatum(rng, types.TText)
			ts[i] = tuple{a, b, append(mustKey(t, typ, a), mustKey(t, types.TText, b)...)}
		}
		for _, x := range ts {
			for _, y := range ts {
				want := cmp.Or(compareDatum(typ, x.a, y.a), compareDatum(types.TText, x.b, y.b))
				if got := bytes.Compare(x.key, y.key); got != want {
					t.Fatalf("%s: (%v,%q) vs (%v,%q): keys %d, want %d", typ, show(x.a), x.b, show(y.a), y.b, got, want)
				}
			}
		}
	}
}

func TestKeyEdgeCases(t *testing.T) {
	dec := func(s string) *apd.Decimal {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	equal := []struct {
		typ  types.Type
		a, b types.Datum
	}{
		{types.TNumeric, dec("1.0"), dec("1.00")},
		{types.TNumeric, dec("1"), dec("1.000")},
		{types.TNumeric, dec("-0"), dec("0.00")},
		{types.TNumeric, dec("1E+2"), dec("100")},
		{types.TNumeric, dec("NaN"), dec("sNaN")},
		{types.TFloat64, math.Copysign(0, -1), 0.0},
		{types.TFloat64, math.NaN(), math.Float64frombits(0x7ff8000000000001)},
		// Postgres compares intervals by span: 30-day months, 24-hour days.
		{types.TInterval, types.Interval{Months: 1}, types.Interval{Days: 30}},
		{types.TInterval, types.Interval{Days: 30}, types.Interval{Micros: 720 * types.MicrosPerHour}},
		{types.TInterval, types.Interval{Months: 1, Days: -30}, types.Interval{}},
		{types.TInterval, types.Interval{Months: -12}, types.Interval{Days: -359, Micros: -types.MicrosPerDay}},
		// jsonb compares numbers by value, at any depth.
		{types.TJSONB, "1", "1.0"},
		{types.TJSONB, `{"a": [2.50, {"b": -0}]}`, `{"a": [2.5, {"b": 0}]}`},
	}
	for _, c := range equal {
		if ka, kb := mustKey(t, c.typ, c.a), mustKey(t, c.typ, c.b); !bytes.Equal(ka, kb) {
			t.Errorf("%v and %v should encode equal: %x vs %x", show(c.a), show(c.b), ka, kb)
		}
	}
	ascending := []struct {
		typ  types.Type
		vals []types.Datum
	}{
		{types.TNumeric, []types.Datum{nil, dec("-Infinity"), dec("-100"), dec("-99.5"), dec("-1"), dec("-0.5"),
			dec("-0.05"), dec("0"), dec("0.001"), dec("0.5"), dec("0.501"), dec("1"), dec("9.99"), dec("10"),
			dec("1e100"), dec("Infinity"), dec("NaN")}},
		{types.TFloat64, []types.Datum{nil, math.Inf(-1), -1.5, 0.0, 1e-300, 2.5, math.Inf(1), math.NaN()}},
		{types.TText, []types.Datum{nil, "", "\x00", "\x00\x00", "\x00\x01", "\x01", "a", "a\x00", "a\x00b", "ab", "b", "\xff"}},
		// bytea: memcmp, then length.
		{types.TBytea, []types.Datum{nil, "", "\x00", "\x00\x00", "\x00\xff", "\x01", "\x7f\xff", "\x80", "\xff", "\xff\x00"}},
		{types.TInt64, []types.Datum{nil, int64(math.MinInt64), int64(-1), int64(0), int64(1), int64(math.MaxInt64)}},
		// PostgreSQL's jsonb order: null < strings < numbers < booleans <
		// arrays (a top-level scalar is a one-element array after []) <
		// objects; shorter arrays and objects first.
		{types.TJSONB, []types.Datum{nil, `[]`, `null`, `"a"`, `"b"`, `-1.5`, `0`, `2`, `false`, `true`, `[1]`, `[1, 2]`,
			`{}`, `{"a": 1}`, `{"b": 0}`, `{"a": 1, "b": 2}`}},
		{types.TInterval, []types.Datum{
			types.Interval{Micros: -1},
			types.Interval{Days: 29, Micros: 23 * 3600e6},
			types.Interval{Months: 1}, // = '30 days', see the equal cases
			types.Interval{Months: 1, Micros: 1},
			types.Interval{Days: 30, Micros: 2},
			types.Interval{Months: math.MaxInt32},
		}},
	}
	for _, c := range ascending {
		for i := 1; i < len(c.vals); i++ {
			a, b := mustKey(t, c.typ, c.vals[i-1]), mustKey(t, c.typ, c.vals[i])
			if bytes.Compare(a, b) >= 0 {
				t.Errorf("%s: %v should sort before %v: %x vs %x", c.typ, show(c.vals[i-1]), show(c.vals[i]), a, b)
			}
		}
	}
}

// TestDatumKeyIsTheKey: AppendDatumKeyOf, the key of the executors' hash
// tables, is byte for byte the key AppendKey stores, and so is
// AppendDatumKey but for bpchar (keyed without its trailing blanks).
func TestDatumKeyIsTheKey(t *testing.T) {
	rng := newRNG(5)
	for _, typ := range allTypes {
		for range 200 {
			d := genDatum(rng, typ)
			want := mustKey(t, typ, d)
			if got := AppendDatumKeyOf(nil, typ, d); !bytes.Equal(got, want) {
				t.Fatalf("%s %v: AppendDatumKeyOf %x, AppendKey %x", typ, show(d), got, want)
			}
			if got := AppendDatumKey(nil, d); !bytes.Equal(got, want) && typ.ID != types.IDBpchar {
				t.Fatalf("%s %v: AppendDatumKey %x, AppendKey %x", typ, show(d), got, want)
			}
		}
	}
	if k := AppendDatumKey(nil, []int{1}); k[0] != keyOther {
		t.Errorf("key of a Datum of no SQL type: %x", k)
	}
	// A jsonb string is not its key: AppendDatumKeyOf is, and decodes to
	// the value with its numbers canonical.
	for _, j := range []string{`1.0`, `{"k": [1.50, "x", null]}`} {
		got, want := AppendDatumKeyOf(nil, types.TJSONB, j), mustKey(t, types.TJSONB, j)
		if !bytes.Equal(got, want) {
			t.Errorf("jsonb %s: AppendDatumKeyOf %x, AppendKey %x", j, got, want)
		}
		back, rest, err := DecodeKey(want, types.TJSONB)
		if err != nil || len(rest) != 0 {
			t.Fatalf("jsonb %s: decode: %v, %d bytes left", j, err, len(rest))
		}
		if again := mustKey(t, types.TJSONB, back); !bytes.Equal(again, want) {
			t.Errorf("jsonb %s decodes as %v, whose key differs", j, back)
		}
	}
	if got := AppendDatumKeyOf(nil, types.TText, "1.0"); !bytes.Equal(got, AppendDatumKey(nil, "1.0")) {
		t.Errorf("AppendDatumKeyOf of text differs from AppendDatumKey")
	}
}

func TestKeyRejectsWrongDatum(t *testing.T) {
	cases := []struct {
		typ types.Type
		d   types.Datum
	}{
		{types.TInt32, int(1)},
		{types.TInt64, "1"},
		{types.TFloat64, float32(1)},
		{types.TNumeric, (*apd.Decimal)(nil)},
		{types.TDate, int64(1)},
		{types.TTimestamp, types.Date(1)},
		{types.TInterval, &types.Interval{}},
		{types.TUnknown, int64(1)},
	}
	for _, c := range cases {
		if _, err := AppendKey(nil, c.typ, c.d); err == nil {
			t.Errorf("AppendKey(%s, %T) succeeded", c.typ, c.d)
		}
	}
}

// TestUnknownStoredAsText: an untyped string literal that reaches state
// (SELECT 'x' AS c ... GROUP BY c) is stored as text.
func TestUnknownStoredAsText(t *testing.T) {
	k1, err := AppendKey(nil, types.TUnknown, "x")
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := AppendKey(nil, types.TText, "x")
	if string(k1) != string(k2) {
		t.Errorf("unknown key %x, text key %x", k1, k2)
	}
	enc, err := EncodeRow(nil, []types.Type{types.TUnknown}, []types.Datum{"x"})
	if err != nil {
		t.Fatal(err)
	}
	row, err := DecodeRow(enc, []types.Type{types.TUnknown}, nil)
	if err != nil || row[0] != "x" {
		t.Fatalf("round trip: %v, %v", row, err)
	}
}

func TestDecodeKeyRejectsGarbage(t *testing.T) {
	cases := []struct {
		typ types.Type
		b   []byte
	}{
		{types.TInt64, nil},
		{types.TInt64, []byte{keyPresent, 1, 2}},
		{types.TBool, []byte{keyPresent, 7}},
		{types.TText, []byte{keyPresent, 'a', 0}},
		{types.TText, []byte{keyPresent, 'a', 0, 5}},
		{types.TNumeric, []byte{keyPresent, numPos, 0x81, 1, 0}}, // leading zero digit pair
		{types.TNumeric, []byte{keyPresent, numPos, 0x81, 1, 200, 0}},
		{types.TNumeric, []byte{keyPresent, 0x77}},
		{types.TInterval, []byte{keyPresent, 1, 2, 3}},
		{types.TInterval, append([]byte{keyPresent, 0x80, 0, 0, 0, 0, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 8)...)}, // time past a day
		{types.TInterval, append([]byte{keyPresent, 0xff}, make([]byte, 15)...)},                                   // no interval is this long
		{types.TDate, []byte{0x02}},
	}
	for _, c := range cases {
		if _, _, err := DecodeKey(c.b, c.typ); err == nil {
			t.Errorf("DecodeKey(%x, %s) succeeded", c.b, c.typ)
		}
	}
}

func TestOrderedVarint(t *testing.T) {
	vals := []int64{math.MinInt64, -1 << 40, -65537, -65536, -257, -256, -255, -2, -1, 0, 1, 255, 256, 65535, 65536, 1 << 40, math.MaxInt64}
	var prev []byte
	for _, v := range vals {
		enc := appendOrderedVarint(nil, v)
		if prev != nil && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("varint(%d)=%x does not sort after %x", v, enc, prev)
		}
		got, rest, err := decodeOrderedVarint(enc, 0)
		if err != nil || got != v || len(rest) != 0 {
			t.Errorf("decode(varint(%d)) = %d, %x, %v", v, got, rest, err)
		}
		prev = enc
	}
}

func show(d types.Datum) any {
	if dec, ok := d.(*apd.Decimal); ok {
		return dec.String()
	}
	return d
}

// TestAppendIntKey: the unboxed integer encoding equals AppendKey's for
// every integer type.
func TestAppendIntKey(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 255, 256, -32768, 32767, math.MinInt32, math.MaxInt32, math.MinInt64, math.MaxInt64} {
		for _, typ := range []types.Type{types.TInt16, types.TInt32, types.TInt64} {
			want, err := AppendKey(nil, typ, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendIntKey(nil, v); !bytes.Equal(got, want) {
				t.Fatalf("appendIntKey(%d) = %x, AppendKey(%v) = %x", v, got, typ, want)
			}
		}
	}
}
