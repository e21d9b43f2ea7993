package write

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeySorterOrder: whatever the keys (short, long, prefixes of each
// other, zero bytes, many in one vnode), spilled or not, the merge
// returns them in key then line order with their values.
func TestKeySorterOrder(t *testing.T) {
	defer func(n int) { copyKeyRunBytes = n }(copyKeyRunBytes)
	for _, runBytes := range []int{1 << 30, 64 << 10} {
		copyKeyRunBytes = runBytes
		rng := rand.New(rand.NewPCG(7, uint64(runBytes)))
		type ent struct {
			key, val []byte
			line     int64
		}
		var want []ent
		dir := &tempDir{}
		k := newKeySorter(dir)
		for line := int64(1); line <= 20000; line++ {
			key := []byte{'t', 0, 0, 0, 9}
			key = append(key, byte(rng.IntN(3)), byte(rng.IntN(3)))
			for n := rng.IntN(24); n > 0; n-- {
				key = append(key, byte(rng.IntN(3)))
			}
			val := []byte{byte(line), byte(line >> 8)}
			want = append(want, ent{key, val, line})
			if err := k.add(key, val, line); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.finish(); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(want, func(a, b ent) int {
			if c := bytes.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.line, b.line)
		})
		m := k.merge()
		for i, w := range want {
			if !m.next() {
				t.Fatalf("run bytes %d: merge ended after %d of %d keys: %v", runBytes, i, len(want), m.err())
			}
			if !bytes.Equal(m.key(), w.key) || m.line() != w.line || !bytes.Equal(m.value(), w.val) {
				t.Fatalf("run bytes %d: key %d is %x line %d value %x, want %x line %d value %x",
					runBytes, i, m.key(), m.line(), m.value(), w.key, w.line, w.val)
			}
		}
		if m.next() {
			t.Fatalf("run bytes %d: merge returned more keys than added", runBytes)
		}
		if len(k.runs) == 0 && runBytes < 1<<20 {
			t.Fatalf("run bytes %d: nothing spilled", runBytes)
		}
		dir.remove()
	}
}
