package storage

import (
	"bytes"
	"cmp"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// arrayElemTypes are the element types the array key tests cover.
var arrayElemTypes = []types.Type{
	types.TInt32, types.TInt64, types.TText, types.TNumeric, types.TFloat64, types.TBool,
	types.TDate, types.TTimestamp, types.TTimestampTZ, types.TInterval, types.TBytea, types.TJSONB,
}

// genArrayElem returns a value of elem, drawn from few values so that
// arrays tie and share prefixes; nil (a NULL element) one time in six.
func genArrayElem(s source, elem types.Type) types.Datum {
	if s.intn(6) == 0 {
		return nil
	}
	switch elem.ID {
	case types.IDInt32, types.IDInt64:
		return []int64{math.MinInt32, -10, -1, 0, 1, 2, 9, 10, math.MaxInt32}[s.intn(9)]
	case types.IDText:
		return []string{"", "a", "A", "a b", "ab", "b", "NULL", "x,y", `q"`, "\x00", "é"}[s.intn(11)]
	case types.IDBytea:
		return []string{"", "\x00", "\x00\x00", "\x01", "\xff"}[s.intn(5)]
	case types.IDNumeric:
		d, _, _ := apd.NewFromString([]string{"-Infinity", "-1.5", "-0.001", "0", "0.00", "1", "1.0", "1.50", "1.5", "10",
			"99999999999999999999.5", "Infinity", "NaN"}[s.intn(13)])
		return d
	case types.IDFloat64:
		return []float64{math.Inf(-1), -1.5, math.Copysign(0, -1), 0, 1e-300, 2, math.Inf(1), math.NaN()}[s.intn(8)]
	case types.IDBool:
		return s.intn(2) == 1
	case types.IDDate:
		return types.Date(s.intn(5) - 2)
	case types.IDTimestamp, types.IDTimestampTZ:
		return types.Timestamp(int64(s.intn(5)-2) * 1e6)
	case types.IDInterval:
		return []types.Interval{{Months: 1}, {Days: 30}, {Days: -1}, {Micros: 5}, {}}[s.intn(5)]
	case types.IDJSONB:
		return []string{`null`, `"a"`, `1`, `1.0`, `2`, `true`, `[1]`, `{"a": 1}`}[s.intn(8)]
	}
	panic("no generator for " + elem.String())
}

// genArray returns the canonical text of an array of elem, or nil (a
// NULL array) one time in twelve; a quarter of the arrays are empty, and
// one in five of the others has two dimensions (1 or 2 by 1 or 2).
func genArray(s source, elem types.Type) types.Datum {
	if s.intn(12) == 0 {
		return nil
	}
	a := types.ArrayValue{}
	switch {
	case s.intn(4) == 0:
	case s.intn(5) == 0:
		a.Dims = []int{1 + s.intn(2), 1 + s.intn(2)}
	default:
		a.Dims = []int{1 + s.intn(4)}
	}
	n := 0
	if len(a.Dims) > 0 {
		n = 1
		for _, d := range a.Dims {
			n *= d
		}
	}
	a.Elems = make([]types.Datum, n)
	for i := range a.Elems {
		a.Elems[i] = genArrayElem(s, elem)
	}
	return types.FormatArrayValue(a, elem)
}

// pgArrayCompare is PostgreSQL's array order (array_cmp), written out:
// element by element, a NULL element after every value, a prefix before
// the longer array, then fewer dimensions first, then shorter ones. NULL
// arrays come first, as in AppendKey.
func pgArrayCompare(t *testing.T, typ types.Type, a, b types.Datum) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	}
	xa, errX := types.ParseArrayValue(a.(string), typ.ElemType())
	ya, errY := types.ParseArrayValue(b.(string), typ.ElemType())
	x, y := xa.Elems, ya.Elems
	if errX != nil || errY != nil {
		t.Fatalf("parse %q / %q: %v / %v", a, b, errX, errY)
	}
	for i := 0; i < len(x) && i < len(y); i++ {
		switch {
		case x[i] == nil && y[i] == nil:
		case x[i] == nil:
			return 1
		case y[i] == nil:
			return -1
		default:
			if c := expr.Compare(x[i], y[i], typ.ElemType()); c != 0 {
				return c
			}
		}
	}
	if c := cmp.Compare(len(x), len(y)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(xa.Dims), len(ya.Dims)); c != 0 {
		return c
	}
	for i := range xa.Dims {
		if c := cmp.Compare(xa.Dims[i], ya.Dims[i]); c != 0 {
			return c
		}
	}
	return 0
}

// TestArrayKeyOrder: for random arrays (NULL elements, empty arrays,
// ties, shared prefixes), bytes.Compare of the keys agrees with
// PostgreSQL's array order and with the batch comparator (expr.Compare),
// keys decode to an equal array and are prefix-free, and the executors'
// key (AppendDatumKeyOf) and the unboxed column key (AppendKeyAt) are the
// stored key.
func TestArrayKeyOrder(t *testing.T) {
	for _, elem := range arrayElemTypes {
		typ := types.ArrayOf(elem.ID)
		t.Run(typ.String(), func(t *testing.T) {
			rng := newRNG(uint64(elem.ID) + 100)
			vals := make([]types.Datum, 200)
			keys := make([][]byte, len(vals))
			for i := range vals {
				vals[i] = genArray(rng, elem)
				keys[i] = mustKey(t, typ, vals[i])
				got, rest, err := DecodeKey(append(keys[i], 0xAB), typ)
				if err != nil || !bytes.Equal(rest, []byte{0xAB}) {
					t.Fatalf("DecodeKey of %v (%x): %v, left %x", vals[i], keys[i], err, rest)
				}
				if pgArrayCompare(t, typ, vals[i], got) != 0 {
					t.Fatalf("DecodeKey of %v gave %v", vals[i], got)
				}
				if vals[i] != nil {
					if dk := AppendDatumKeyOf(nil, typ, vals[i]); !bytes.Equal(dk, keys[i]) {
						t.Fatalf("%v: AppendDatumKeyOf %x, AppendKey %x", vals[i], dk, keys[i])
					}
				}
			}
			tail := func(i int) []byte { return mustKey(t, types.TText, []string{"", "a", "b"}[i%3]) }
			for i := range vals {
				for j := range vals {
					want := pgArrayCompare(t, typ, vals[i], vals[j])
					if got := bytes.Compare(keys[i], keys[j]); got != want {
						t.Fatalf("%v vs %v: keys say %d, PostgreSQL %d\n%x\n%x", vals[i], vals[j], got, want, keys[i], keys[j])
					}
					if vals[i] != nil && vals[j] != nil {
						if got := expr.Compare(vals[i], vals[j], typ); got != want {
							t.Fatalf("%v vs %v: expr.Compare says %d, PostgreSQL %d", vals[i], vals[j], got, want)
						}
					}
					// Prefix-free: a following column orders only ties.
					want = cmp.Or(want, cmp.Compare(i%3, j%3))
					if got := bytes.Compare(append(bytes.Clone(keys[i]), tail(i)...), append(bytes.Clone(keys[j]), tail(j)...)); got != want {
						t.Fatalf("(%v,%d) vs (%v,%d): keys say %d, want %d", vals[i], i%3, vals[j], j%3, got, want)
					}
				}
			}
			b := chunk.NewBuilder([]types.Type{typ})
			for _, v := range vals {
				b.Append(chunk.Insert, []types.Datum{v})
			}
			c := b.Build()
			for i := range vals {
				k, err := AppendKeyAt(nil, typ, c, 0, i)
				if err != nil || !bytes.Equal(k, keys[i]) {
					t.Fatalf("AppendKeyAt of %v: %x, %v; AppendKey %x", vals[i], k, err, keys[i])
				}
			}
		})
	}
}

// TestArrayKeyPostgresOrder: arrays in the order PostgreSQL 15 sorts them
// (ORDER BY of each list, checked against it), and arrays it finds equal.
func TestArrayKeyPostgresOrder(t *testing.T) {
	ascending := []struct {
		elem types.Type
		vals []string
	}{
		{types.TInt32, []string{"{}", "{-5}", "{1}", "{1,2}", "{{1,2}}", "{{1},{2}}", "{1,2,NULL}", "{1,NULL}", "{2}", "{10}", "{NULL}", "{NULL,1}", "{NULL,NULL}"}},
		{types.TText, []string{`{}`, `{""}`, `{"",a}`, `{A}`, `{a}`, `{a,NULL}`, `{"a b"}`, `{ab}`, `{b}`, `{NULL}`}},
		{types.TNumeric, []string{"{}", "{-Infinity}", "{-1.5}", "{0}", "{1.5,1}", "{1.5,NULL}", "{2}", "{10}", "{Infinity}", "{NaN}", "{NULL}"}},
		{types.TFloat64, []string{"{}", "{-Infinity}", "{0}", "{1e-300}", "{Infinity}", "{NaN}", "{NaN,1}", "{NULL}"}},
	}
	parse := func(s string, typ types.Type) types.Datum {
		d, err := types.Parse(s, typ)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range ascending {
		typ := types.ArrayOf(c.elem.ID)
		prev := mustKey(t, typ, nil)
		for _, s := range c.vals {
			k := mustKey(t, typ, parse(s, typ))
			if bytes.Compare(prev, k) >= 0 {
				t.Errorf("%s: %s should sort after the one before: %x vs %x", typ, s, prev, k)
			}
			prev = k
		}
	}
	equal := [][3]string{
		{"numeric[]", "{1.5}", "{1.50}"},
		{"numeric[]", "{NaN,0}", "{NaN,0.000}"},
		{"float8[]", "{-0}", "{0}"},
		{"interval[]", "{\"1 mon\"}", "{\"30 days\"}"},
	}
	for _, e := range equal {
		typ := map[string]types.Type{"numeric[]": types.ArrayOf(types.IDNumeric), "float8[]": types.ArrayOf(types.IDFloat64),
			"interval[]": types.ArrayOf(types.IDInterval)}[e[0]]
		a, b := mustKey(t, typ, parse(e[1], typ)), mustKey(t, typ, parse(e[2], typ))
		if !bytes.Equal(a, b) {
			t.Errorf("%s %s and %s should key equal: %x vs %x", e[0], e[1], e[2], a, b)
		}
	}
}

func TestArrayKeyRejectsGarbage(t *testing.T) {
	typ := types.ArrayOf(types.IDInt64)
	for _, b := range [][]byte{
		{keyPresent},                    // no end
		{keyPresent, keyPresent, 1, 2},  // short element
		{keyPresent, 0x07, arrayEnd},    // bad element marker
		{keyPresent, arrayNullElem},     // no end after a NULL
		{keyPresent, keyNull, arrayEnd}, // keyNull is the end marker: junk after it is the caller's
	} {
		if _, rest, err := DecodeKey(b, typ); err == nil && len(rest) == 0 {
			t.Errorf("DecodeKey(%x) succeeded", b)
		}
	}
	if _, err := AppendKey(nil, typ, "{1,"); err == nil {
		t.Error("AppendKey of a malformed array succeeded")
	}
}
