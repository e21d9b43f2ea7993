package stream

import "testing"

// TestSplitOfRowID: the position a source backfill records (a row id)
// names the split and offset it was made of, and row ids sort by split,
// then offset, the order the backfill reads in.
func TestSplitOfRowID(t *testing.T) {
	prev := int64(-1)
	for _, c := range []struct {
		split  int32
		offset int64
	}{{0, 0}, {0, 1}, {0, 1 << 39}, {1, 0}, {3, 12345}, {1<<21 - 1, 1<<40 - 1}} {
		id := SplitRowID(c.split, c.offset)
		if p, o := splitOfRowID(id); p != c.split || o != c.offset {
			t.Fatalf("splitOfRowID(SplitRowID(%d, %d)) = %d, %d", c.split, c.offset, p, o)
		}
		if id <= prev {
			t.Fatalf("SplitRowID(%d, %d) = %d does not sort after %d", c.split, c.offset, id, prev)
		}
		prev = id
	}
}
