package storage

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestUvarintMatchesBinary: the decoder's inline uvarint gives what
// binary.Uvarint gives, value and length, for values of every width, at
// the end of a buffer and not, and for short or overlong (corrupt) input.
func TestUvarintMatchesBinary(t *testing.T) {
	var inputs [][]byte
	vals := []uint64{0, 1, 127, 128, 255, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<35 + 3, math.MaxInt64, math.MaxUint64}
	for _, v := range vals {
		enc := binary.AppendUvarint(nil, v)
		inputs = append(inputs, enc, append(enc, 0x05, 0x80, 0x01), enc[:len(enc)-1])
	}
	inputs = append(inputs, nil, []byte{0x80}, []byte{0x80, 0x80, 0x80, 0x80},
		[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // 11 bytes: overflow
		[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})       // past 64 bits
	for _, in := range inputs {
		wv, wn := binary.Uvarint(in)
		if v, n := uvarint(in); v != wv || n != wn {
			t.Errorf("uvarint(% x) = %d, %d; binary.Uvarint: %d, %d", in, v, n, wv, wn)
		}
	}
}
