package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// tableWrite is one write, as staged and as handed out.
type tableWrite struct {
	key, val []byte
	del      bool
}

// collectSorted returns what sorted hands out.
func collectSorted(t *testing.T, w *tableWrites) []tableWrite {
	t.Helper()
	var got []tableWrite
	err := w.sorted(func(key, val []byte, del bool) error {
		got = append(got, tableWrite{bytes.Clone(key), bytes.Clone(val), del})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// modelSorted is the latest write of each key, in key order.
func modelSorted(writes []tableWrite) []tableWrite {
	latest := map[string]tableWrite{}
	for _, w := range writes {
		latest[string(w.key)] = w
	}
	var out []tableWrite
	for _, w := range latest {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b tableWrite) int { return bytes.Compare(a.key, b.key) })
	return out
}

func tableKey(prefix []byte, vnode uint16, pk uint64) []byte {
	k := binary.BigEndian.AppendUint16(bytes.Clone(prefix), vnode)
	return binary.BigEndian.AppendUint64(k, pk)
}

// TestTableWritesSorted: over several epochs of one set (reset between),
// sorted hands out the latest write of each key in key order, whether a
// vnode's keys came ascending (a row id stream), repeated, out of order,
// deleted, of different lengths, or (mixed) under another prefix; batch
// order keeps a key's writes in the order made.
func TestTableWritesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	prefix := []byte{0x01, 0, 0, 0, 9}
	w := new(tableWrites)
	for epoch, shape := range []string{"ascending", "random", "ascending", "mixed", "long", "few", "random"} {
		t.Run(fmt.Sprint(epoch, shape), func(t *testing.T) {
			var writes []tableWrite
			n := 20000
			if shape == "few" {
				n = 3
			}
			next := map[uint16]uint64{}
			for i := range n {
				vnode := uint16(rng.IntN(256))
				var pk uint64
				switch shape {
				case "ascending", "few":
					next[vnode] += uint64(1 + rng.IntN(3))
					pk = next[vnode]
				default:
					pk = uint64(rng.IntN(n / 4)) // repeats and disorder
				}
				key := tableKey(prefix, vnode, pk)
				switch shape {
				case "mixed":
					if rng.IntN(10) == 0 {
						key[4] = byte(rng.IntN(3) + 8) // another table's prefix
					}
				case "long":
					key = append(key, bytes.Repeat([]byte{byte(i)}, rng.IntN(300))...)
				}
				wr := tableWrite{key: key, val: fmt.Appendf(nil, "%d.%d", epoch, i)}
				if rng.IntN(5) == 0 {
					wr.val, wr.del = nil, true
				}
				if shape == "long" && !wr.del {
					wr.val = bytes.Repeat(wr.val, rng.IntN(100)+1)
				}
				w.put(wr.key, wr.val, wr.del)
				writes = append(writes, wr)
			}
			if w.n != n {
				t.Fatalf("%d writes staged, want %d", w.n, n)
			}
			got, want := collectSorted(t, w), modelSorted(writes)
			if len(got) != len(want) {
				t.Fatalf("sorted gave %d writes, want %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i].key, want[i].key) || !bytes.Equal(got[i].val, want[i].val) || got[i].del != want[i].del {
					t.Fatalf("write %d: %x = %q (del %v), want %x = %q (del %v)",
						i, got[i].key, got[i].val, got[i].del, want[i].key, want[i].val, want[i].del)
				}
			}
			// Batch order: a key's writes in the order made.
			var order []tableWrite
			for b := range w.buckets {
				if err := w.each(b, func(key, val []byte, del bool) error {
					order = append(order, tableWrite{bytes.Clone(key), bytes.Clone(val), del})
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if len(order) != n {
				t.Fatalf("each gave %d writes, want %d", len(order), n)
			}
			if last := modelSorted(order); !slices.EqualFunc(last, want, func(a, b tableWrite) bool {
				return bytes.Equal(a.key, b.key) && bytes.Equal(a.val, b.val) && a.del == b.del
			}) {
				t.Fatal("the batch order does not keep each key's latest write last")
			}
			w.reset()
			if w.n != 0 || w.size != 0 || w.mixed || len(collectSorted(t, w)) != 0 {
				t.Fatal("a write survived reset")
			}
			if w.kept > tableWritesKeep {
				t.Fatalf("reset kept %d bytes, want at most %d", w.kept, tableWritesKeep)
			}
		})
	}
}
