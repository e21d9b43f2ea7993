package storage

import (
	"encoding/binary"
	"math/bits"

	"github.com/streamdb/streamdb/internal/types"
)

// Interval keys follow Postgres's interval ordering: an interval's span is
// months*30 days + days*24h + micros, computed exactly in 128 bits. Postgres
// treats '1 mon' and '30 days' as equal; a key must tell them apart (both
// are distinct values we store), so ties on the span are broken by months,
// then days. The key is span (16 bytes, two's complement with the sign bit
// flipped) | months (4 bytes) | days (4 bytes), 24 bytes in all.
const (
	microsPerDay   = 24 * 60 * 60 * 1000 * 1000
	microsPerMonth = 30 * microsPerDay
)

// int128 is a two's complement 128-bit integer.
type int128 struct{ hi, lo uint64 }

func int128From(v int64) int128 { return int128{hi: uint64(v >> 63), lo: uint64(v)} }

func (a int128) add(b int128) int128 {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return int128{hi: a.hi + b.hi + carry, lo: lo}
}

func (a int128) neg() int128 {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return int128{hi: -a.hi - borrow, lo: lo}
}

// mulInt64 returns v*m for a non-negative m, exactly.
func mulInt64(v int64, m uint64) int128 {
	abs := uint64(v)
	if v < 0 {
		abs = -abs
	}
	hi, lo := bits.Mul64(abs, m)
	r := int128{hi: hi, lo: lo}
	if v < 0 {
		return r.neg()
	}
	return r
}

// intervalSpan is an interval's length in microseconds with 30-day months
// and 24-hour days, as Postgres's interval_cmp_value computes it.
func intervalSpan(v types.Interval) int128 {
	return mulInt64(int64(v.Months), microsPerMonth).
		add(mulInt64(int64(v.Days), microsPerDay)).
		add(int128From(v.Micros))
}

func appendIntervalKey(buf []byte, v types.Interval) []byte {
	span := intervalSpan(v)
	buf = binary.BigEndian.AppendUint64(buf, span.hi^signBit)
	buf = binary.BigEndian.AppendUint64(buf, span.lo)
	buf = binary.BigEndian.AppendUint32(buf, uint32(v.Months)^(1<<31))
	return binary.BigEndian.AppendUint32(buf, uint32(v.Days)^(1<<31))
}

func decodeIntervalKey(buf []byte) (types.Datum, []byte, error) {
	if len(buf) < 24 {
		return nil, nil, errCorrupt("interval key", "short")
	}
	span := int128{
		hi: binary.BigEndian.Uint64(buf) ^ signBit,
		lo: binary.BigEndian.Uint64(buf[8:]),
	}
	v := types.Interval{
		Months: int32(binary.BigEndian.Uint32(buf[16:]) ^ (1 << 31)),
		Days:   int32(binary.BigEndian.Uint32(buf[20:]) ^ (1 << 31)),
	}
	rest := span.add(intervalSpan(v).neg())
	if rest.hi != uint64(int64(rest.lo)>>63) {
		return nil, nil, errCorrupt("interval key", "micros out of range")
	}
	v.Micros = int64(rest.lo)
	return v, buf[24:], nil
}
