package write

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// BenchmarkKeySorter stages and merges the keys of a load in primary-key
// order (bigint keys spread over 256 vnodes, as a COPY of a table's rows
// in pk order gives), spilling runs as a COPY does.
func BenchmarkKeySorter(b *testing.B) {
	const rows = 1 << 20
	val := make([]byte, 20)
	for b.Loop() {
		dir := &tempDir{}
		k := newKeySorter(dir)
		key := make([]byte, 0, 32)
		for i := int64(1); i <= rows; i++ {
			var pk [8]byte
			binary.BigEndian.PutUint64(pk[:], uint64(i)^1<<63)
			vnode := uint16(crc32.Checksum(pk[:], crc32.MakeTable(crc32.Castagnoli)) % 256)
			key = append(binary.BigEndian.AppendUint16(append(key[:0], 't', 0, 0, 0, 9), vnode), pk[:]...)
			if err := k.add(key, val, i); err != nil {
				b.Fatal(err)
			}
		}
		if err := k.finish(); err != nil {
			b.Fatal(err)
		}
		m := k.merge()
		n := 0
		for m.next() {
			n++
		}
		if n != rows || m.err() != nil {
			b.Fatal(n, m.err())
		}
		k.close()
		dir.remove()
	}
}
