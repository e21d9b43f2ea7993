package batch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// appendKey appends an encoding of vals to buf such that two value lists
// encode alike exactly when they are equal as SQL values of the same
// types (NULLs encode alike, for grouping; joins skip NULL keys before).
func appendKey(buf []byte, vals []types.Datum) []byte {
	for _, v := range vals {
		buf = appendDatumKey(buf, v)
	}
	return buf
}

func appendDatumKey(buf []byte, v types.Datum) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, 0)
	case bool:
		if x {
			return append(buf, 1, 1)
		}
		return append(buf, 1, 0)
	case int64:
		return binary.BigEndian.AppendUint64(append(buf, 2), uint64(x))
	case float64:
		return binary.BigEndian.AppendUint64(append(buf, 3), floatBits(x))
	case *apd.Decimal:
		return appendString(append(buf, 4), decimalKey(x))
	case string:
		return appendString(append(buf, 5), x)
	case types.Date:
		return binary.BigEndian.AppendUint32(append(buf, 6), uint32(x))
	case types.Timestamp:
		return binary.BigEndian.AppendUint64(append(buf, 7), uint64(x))
	case types.Interval:
		return appendString(append(buf, 8), intervalKey(x))
	}
	return appendString(append(buf, 9), fmt.Sprint(v))
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// floatBits makes -0 equal 0 and every NaN equal, as Postgres does.
func floatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

// decimalKey is a canonical text of d: 1.0 and 1.00 are equal.
func decimalKey(d *apd.Decimal) string {
	var r apd.Decimal
	r.Reduce(d)
	if r.IsZero() {
		return "0"
	}
	return r.Text('E')
}

// intervalKey normalizes as Postgres compares intervals: a month is 30
// days and a day 24 hours.
func intervalKey(iv types.Interval) string {
	days := big.NewInt(int64(iv.Months)*30 + int64(iv.Days))
	total := days.Mul(days, big.NewInt(86400*1000000))
	return total.Add(total, big.NewInt(iv.Micros)).String()
}
