package stream

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// appendGroupKey appends to b an encoding of the datums that is equal for
// two rows exactly when they belong to the same group: NULLs group together,
// numerics equal in value (1.0, 1.00) and floats 0 and -0 (and every NaN)
// encode the same. It keys the in-memory maps of the aggregation.
func appendGroupKey(b []byte, ds []types.Datum) []byte {
	for _, d := range ds {
		b = appendGroupDatum(b, d)
	}
	return b
}

func appendGroupDatum(b []byte, d types.Datum) []byte {
	switch v := d.(type) {
	case nil:
		return append(b, 0)
	case bool:
		if v {
			return append(b, 1, 1)
		}
		return append(b, 1, 0)
	case int64:
		return binary.BigEndian.AppendUint64(append(b, 2), uint64(v))
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 3), canonicalFloatBits(v))
	case *apd.Decimal:
		return appendKeyString(append(b, 4), canonicalDecimal(v))
	case string:
		return appendKeyString(append(b, 5), v)
	case types.Date:
		return binary.BigEndian.AppendUint32(append(b, 6), uint32(v))
	case types.Timestamp:
		return binary.BigEndian.AppendUint64(append(b, 7), uint64(v))
	case types.Interval:
		b = binary.BigEndian.AppendUint32(append(b, 8), uint32(v.Months))
		b = binary.BigEndian.AppendUint32(b, uint32(v.Days))
		return binary.BigEndian.AppendUint64(b, uint64(v.Micros))
	}
	panic("stream: unsupported datum in group key")
}

func appendKeyString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func canonicalFloatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

func canonicalDecimal(d *apd.Decimal) string {
	if d.Form == apd.Finite && d.IsZero() {
		return "0"
	}
	var r apd.Decimal
	r.Reduce(d)
	return r.String()
}

// datumsIdentical reports whether two rows would be output identically:
// the test for "this aggregate result did not change". Unlike SQL equality
// it tells 1.0 from 1.00, and NULL is identical to NULL.
func datumsIdentical(a, b []types.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !datumIdentical(a[i], b[i]) {
			return false
		}
	}
	return true
}

func datumIdentical(a, b types.Datum) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *apd.Decimal:
		y, ok := b.(*apd.Decimal)
		return ok && x.String() == y.String()
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) || ok && math.IsNaN(x) && math.IsNaN(y)
	}
	return a == b
}
