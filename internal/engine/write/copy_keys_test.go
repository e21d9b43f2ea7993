package write

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
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

// TestKeySorterParts: the key ranges parts cuts (at most n, none empty)
// hold, merged each on its own goroutine and put end to end, the keys of
// the whole merge in the same order, spilled runs and the memory run
// alike; equal keys never straddle two ranges.
func TestKeySorterParts(t *testing.T) {
	defer func(n int) { copyKeyRunBytes = n }(copyKeyRunBytes)
	copyKeyRunBytes = 64 << 10
	rng := rand.New(rand.NewPCG(9, 10))
	dir := &tempDir{}
	defer dir.remove()
	k := newKeySorter(dir)
	defer k.close()
	for line := int64(1); line <= 30000; line++ {
		// Vnodes 0..255 as the table layout writes them, skewed, and
		// small pks so that keys repeat.
		vnode := min(rng.IntN(300), 255)
		key := []byte{'t', 0, 0, 0, 9, 0, byte(vnode), byte(rng.IntN(4)), byte(rng.IntN(200))}
		if err := k.add(key, []byte{byte(line)}, line); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.finish(); err != nil {
		t.Fatal(err)
	}
	if len(k.runs) < 2 {
		t.Fatalf("%d runs spilled, want several", len(k.runs))
	}
	type ent struct {
		key  string
		line int64
	}
	drain := func(m keyCursor) ([]ent, error) {
		var out []ent
		for m.next() {
			out = append(out, ent{string(m.key()), m.line()})
		}
		return out, m.err()
	}
	want, err := drain(k.merge())
	if err != nil || len(want) != 30000 {
		t.Fatalf("merge: %d keys, %v", len(want), err)
	}
	for n := 1; n <= 5; n++ {
		bounds := k.parts(n)
		if len(bounds) < 2 || len(bounds)-1 > n || bounds[0] != 0 || bounds[len(bounds)-1] != keyBuckets {
			t.Fatalf("parts(%d) = %v", n, bounds)
		}
		got := make([][]ent, len(bounds)-1)
		errs := make([]error, len(got))
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() { got[i], errs[i] = drain(k.mergeRange(bounds[i], bounds[i+1])) })
		}
		wg.Wait()
		var all []ent
		for i, g := range got {
			if errs[i] != nil || len(g) == 0 {
				t.Fatalf("parts(%d): range %d of %v: %d keys, %v", n, i, bounds, len(g), errs[i])
			}
			if i > 0 && all[len(all)-1].key == g[0].key {
				t.Fatalf("parts(%d): key %x in two ranges", n, g[0].key)
			}
			all = append(all, g...)
		}
		if !slices.Equal(all, want) {
			t.Fatalf("parts(%d) %v: the ranges' keys differ from the merge's", n, bounds)
		}
		if n == 2 && len(bounds) != 3 {
			t.Fatalf("parts(2) = %v: want two ranges", bounds)
		}
	}
}
