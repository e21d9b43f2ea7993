package chunk

import (
	"math"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestIntervalRoundTrip: every interval survives a chunk, however long its
// time part ('3000000 hours' overflowed nanoseconds).
func TestIntervalRoundTrip(t *testing.T) {
	vals := []types.Interval{
		{Micros: 3000000 * types.MicrosPerHour},
		{Months: math.MaxInt32, Days: math.MinInt32, Micros: math.MaxInt64},
		{Micros: math.MinInt64},
		{Months: -1, Days: 2, Micros: -3},
	}
	rows := make([][]types.Datum, len(vals))
	for i, v := range vals {
		rows[i] = []types.Datum{v}
	}
	c := FromRows([]types.Type{types.TInterval}, Insert, rows)
	defer c.Release()
	for i, v := range vals {
		if got := c.Row(i, nil)[0]; got != v {
			t.Errorf("row %d: %+v came back as %+v", i, v, got)
		}
	}
}
