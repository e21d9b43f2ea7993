package storage

import (
	"bytes"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestKeyOrderOfUUIDTimeBpchar: for uuid, time, timetz and character(n), key
// order is the batch comparator's (expr.Compare) and PostgreSQL's: the
// literals below are in PostgreSQL 15's ORDER BY order, and values that
// compare equal ('a'::char(3) and 'a  ', uuids spelled differently)
// share a key, so they group, join and hash to one vnode together.
func TestKeyOrderOfUUIDTimeBpchar(t *testing.T) {
	char3 := types.Type{ID: types.IDBpchar, Width: 3}
	for _, c := range []struct {
		typ  types.Type
		lits [][]string // ascending; the literals of one inner slice are equal
	}{
		{types.TUUID, [][]string{
			{"00000000-0000-0000-0000-000000000000", "{00000000000000000000000000000000}"},
			{"00000000-0000-0000-0000-000000000001"},
			{"000000ff-0000-0000-0000-000000000000"},
			{"7fffffff-ffff-ffff-ffff-ffffffffffff", "7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"},
			{"80000000-0000-0000-0000-000000000000"},
			{"ffffffff-ffff-ffff-ffff-ffffffffffff"},
		}},
		{types.TTime, [][]string{
			{"00:00", "allballs", "00:00:00.0000001"},
			{"00:00:00.000001"},
			{"11:59:59.999999", "11:59:59.9999994"},
			{"12:00", "12:00 PM", "120000"},
			{"23:59:59.999999"},
			{"24:00", "23:59:60"},
		}},
		{types.TTimeTZ, [][]string{
			{"00:00+15:59"},
			{"12:00+02", "12:00:00+02:00"},
			{"11:00+01"},
			{"10:00+00", "10:00Z", "10:00 UTC"},
			{"23:59:59-14"},
			{"24:00-15:59"},
		}},
		{types.TInet, [][]string{
			{"0.0.0.0/0"},
			{"9.255.255.255"},
			{"10.0.0.0/8", "10/8"},
			{"10.0.0.1/8"},
			{"10.0.0.0/16"},
			{"10.0.0.1", "10.0.0.1/32"},
			{"192.168.0.0/16"},
			{"255.255.255.255"},
			{"::/0"},
			{"::1"},
			{"::ffff:1.2.3.4", "::FFFF:1.2.3.4"},
			{"2001:db8::/32"},
			{"2001:db8::1"},
		}},
		{char3, [][]string{
			{"", " ", "   "},
			{"\x01"},
			{"a", "a ", "a  "},
			{"a\x01"},
			{"a a"},
			{"ab", "ab "},
			{"b"},
		}},
		{types.TBpchar, [][]string{
			{"", "  "},
			{"a", "a    "},
			{"a b"},
			{"ab", "ab "},
		}},
	} {
		var prevKey []byte
		var prev types.Datum
		for i, group := range c.lits {
			var groupKey []byte
			for _, lit := range group {
				d, err := types.Parse(lit, c.typ)
				if err != nil {
					t.Fatalf("%s %q: %v", c.typ, lit, err)
				}
				k := mustKey(t, c.typ, d)
				checkKeyRoundTrip(t, c.typ, d, k)
				if groupKey != nil && !bytes.Equal(k, groupKey) {
					t.Errorf("%s %q: key %x, want the key %x of its equal %q", c.typ, lit, k, groupKey, group[0])
				}
				if h := AppendDatumKeyOf(nil, c.typ, d); !bytes.Equal(h, k) {
					t.Errorf("%s %q: hash key %x, stored key %x", c.typ, lit, h, k)
				}
				groupKey = k
				if i > 0 {
					if bytes.Compare(prevKey, k) >= 0 || expr.Compare(prev, d, c.typ) >= 0 {
						t.Errorf("%s: %q should sort after %q (keys %x, %x; Compare %d)", c.typ, lit, c.lits[i-1][0], k, prevKey, expr.Compare(prev, d, c.typ))
					}
				}
			}
			d0, _ := types.Parse(group[0], c.typ)
			for _, lit := range group[1:] {
				d, _ := types.Parse(lit, c.typ)
				if expr.Compare(d0, d, c.typ) != 0 {
					t.Errorf("%s: Compare(%q, %q) != 0", c.typ, group[0], lit)
				}
			}
			prevKey, prev = groupKey, d0
		}
	}
}

// TestKeyOrderMatchesCompareRandom: on random uuid, time and bpchar
// values, the key order, the batch comparator and the reference order
// (compareDatum, PostgreSQL's) agree.
func TestKeyOrderMatchesCompareRandom(t *testing.T) {
	rng := newRNG(21)
	for _, typ := range []types.Type{types.TUUID, types.TTime, types.TTimeTZ, {ID: types.IDBpchar, Width: 3}, types.TBpchar, types.TInet, types.TCidr} {
		for range 2000 {
			a, b := genDatum(rng, typ), genDatum(rng, typ)
			if a == nil || b == nil {
				continue
			}
			keys := bytes.Compare(mustKey(t, typ, a), mustKey(t, typ, b))
			if ref, got := compareDatum(typ, a, b), expr.Compare(a, b, typ); keys != ref || got != ref {
				t.Fatalf("%s: %v vs %v: keys %d, expr.Compare %d, reference %d", typ, show(a), show(b), keys, got, ref)
			}
		}
	}
}
