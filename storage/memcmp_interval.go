package storage

import (
	"encoding/binary"

	"github.com/streamdb/streamdb/internal/types"
)

// KeyFormat is the version of the key encoding that state is stored in.
// Version 1 keyed an interval by (months, days, microseconds); version 2
// keys it by its span, as below; version 3 keys an array by its elements
// (memcmp_array.go), where 1 and 2 keyed it by its text. A store records
// the version its state was written in (the engine checks it at open).
const KeyFormat = 3

// An interval key is its span (types.Interval.Span: 30-day months, 24-hour
// days) and nothing else, because PostgreSQL compares, hashes and groups
// intervals by their span: '1 mon', '30 days' and '720 hours' are one
// value, so they are one key (one group, one join key, one vnode; a
// table's row keeps the spelling). The key is whole days (8 bytes, sign
// bit flipped) | microseconds of the partial day (8 bytes), 16 bytes in
// all. A key decodes to the justify_interval form of its span.

func appendIntervalKey(buf []byte, v types.Interval) []byte {
	days, micros := v.Span()
	buf = binary.BigEndian.AppendUint64(buf, uint64(days)^signBit)
	return binary.BigEndian.AppendUint64(buf, uint64(micros))
}

func decodeIntervalKey(buf []byte) (types.Datum, []byte, error) {
	if len(buf) < 16 {
		return nil, nil, errCorrupt("interval key", "short")
	}
	days := int64(binary.BigEndian.Uint64(buf) ^ signBit)
	micros := binary.BigEndian.Uint64(buf[8:])
	if micros >= uint64(types.MicrosPerDay) {
		return nil, nil, errCorrupt("interval key", "time part of a day out of range")
	}
	v, ok := types.IntervalOfSpan(days, int64(micros))
	if !ok {
		return nil, nil, errCorrupt("interval key", "span out of range")
	}
	return v, buf[16:], nil
}
