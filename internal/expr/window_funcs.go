package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Time windows: tumble_start(ts, size) is the start of the size-long
// window, aligned to 1970-01-01 00:00, that holds ts. TUMBLE and HOP in
// FROM are built on it.

func init() {
	register(overloads(
		fn2(tTS, tIvl, tTS, tumbleStart),
		fn2(tTSTZ, tIvl, tTSTZ, tumbleStart),
	), "tumble_start")
}

func tumbleStart(a []types.Datum) (types.Datum, error) {
	size, err := WindowSize(a[1].(types.Interval))
	if err != nil {
		return nil, err
	}
	return types.Timestamp(WindowStart(int64(a[0].(types.Timestamp)), size)), nil
}

// WindowSize is a window's length in microseconds: it must be positive
// and have no months (a month has no fixed length).
func WindowSize(iv types.Interval) (int64, error) {
	if iv.Months != 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "a window size or slide cannot have months or years: %s", types.FormatInterval(iv))
	}
	us := int64(iv.Days)*86_400_000_000 + iv.Micros
	if us <= 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "a window size or slide must be positive: %s", types.FormatInterval(iv))
	}
	return us, nil
}

// WindowStart is the start of the size-long window holding ts (µs).
func WindowStart(ts, size int64) int64 {
	r := ts % size
	if r < 0 {
		r += size
	}
	return ts - r
}
