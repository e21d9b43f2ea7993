package storage

import (
	"fmt"
	"hash/crc32"
	"math/bits"

	"github.com/streamdb/streamdb/internal/types"
)

// Vnodes: a row's vnode is CRC-32C (Castagnoli, hash/crc32) of the
// concatenated memcomparable encodings (AppendKey) of its DistKey columns,
// mod NumVnodes. Both the CRC-32C polynomial and the key encoding are part
// of the on-disk format: changing either moves rows between vnodes and
// breaks existing stores. Because the hash is over the key encoding, values
// that compare equal land on one vnode whatever their representation
// (numeric 1.0 and 1.00, float -0 and 0, interval '1 mon' and '30 days'),
// and integer columns of different widths (all encoded as 8 bytes) agree;
// float and integer columns do not, so exchanges must cast join keys to
// one type first.

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

// VnodeBitmap is a set of vnodes: the vnodes an actor owns. Ownership
// decides which rows an actor receives from an exchange and which state
// keys (every key starts with its vnode) it reads and writes, so a vnode's
// rows and state move between actors as a unit.
type VnodeBitmap [NumVnodes / 64]uint64

// AllVnodes returns the bitmap holding every vnode.
func AllVnodes() VnodeBitmap {
	var b VnodeBitmap
	for i := range b {
		b[i] = ^uint64(0)
	}
	return b
}

// Has reports whether vnode v is in the set.
func (b *VnodeBitmap) Has(v uint16) bool { return b[v/64]&(1<<(v%64)) != 0 }

// Set adds vnode v.
func (b *VnodeBitmap) Set(v uint16) { b[v/64] |= 1 << (v % 64) }

// Count returns the number of vnodes in the set.
func (b *VnodeBitmap) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// Vnodes returns the vnodes of the set in ascending order.
func (b *VnodeBitmap) Vnodes() []uint16 {
	out := make([]uint16, 0, b.Count())
	for v := uint16(0); v < NumVnodes; v++ {
		if b.Has(v) {
			out = append(out, v)
		}
	}
	return out
}

// SplitVnodes divides the vnodes among n owners in contiguous ranges of
// near-equal size (owner i gets vnodes [i*256/n, (i+1)*256/n)). n must be
// between 1 and NumVnodes.
func SplitVnodes(n int) []VnodeBitmap {
	out := make([]VnodeBitmap, n)
	for v := 0; v < NumVnodes; v++ {
		out[v*n/NumVnodes].Set(uint16(v))
	}
	return out
}

// SubsetOf reports whether every vnode of b is in o.
func (b *VnodeBitmap) SubsetOf(o *VnodeBitmap) bool {
	for i := range b {
		if b[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}
