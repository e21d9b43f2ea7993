package storage

import (
	"fmt"
	"hash/crc32"

	"github.com/streamdb/streamdb/internal/types"
)

// Vnodes: a row's vnode is CRC-32C (Castagnoli, hash/crc32) of the
// concatenated memcomparable encodings (AppendKey) of its DistKey columns,
// mod NumVnodes. Both the CRC-32C polynomial and the key encoding are part
// of the on-disk format: changing either moves rows between vnodes and
// breaks existing stores. Because the hash is over the key encoding, values
// that compare equal land on one vnode whatever their representation
// (numeric 1.0 and 1.00, float -0 and 0), and integer columns of different
// widths (all encoded as 8 bytes) agree; float and integer columns do not,
// so exchanges must cast join keys to one type first.

// NumVnodes is the number of virtual nodes rows are hashed to.
const NumVnodes = 256

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// VnodeOfKey returns the vnode of an encoded distribution key.
func VnodeOfKey(encoded []byte) uint16 {
	return uint16(crc32.Checksum(encoded, castagnoli) % NumVnodes)
}

// VnodeOf returns the vnode of the distribution key datums (of types ts).
// An empty key maps to vnode 0. Exchanges use it to route rows the same
// way state tables store them.
func VnodeOf(ts []types.Type, datums []types.Datum) (uint16, error) {
	if len(ts) != len(datums) {
		return 0, fmt.Errorf("%w: %d dist key datums for %d types", ErrBadLayout, len(datums), len(ts))
	}
	if len(ts) == 0 {
		return 0, nil
	}
	var scratch [64]byte
	buf := scratch[:0]
	for i, t := range ts {
		var err error
		if buf, err = AppendKey(buf, t, datums[i]); err != nil {
			return 0, err
		}
	}
	return VnodeOfKey(buf), nil
}
