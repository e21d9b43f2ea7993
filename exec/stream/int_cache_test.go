package stream

import "testing"

// TestIntCache: keys in the dense range, negative and large ones (the
// hashed table), collisions there (the later key wins, the earlier one
// misses rather than answering with a wrong group) and clear.
func TestIntCache(t *testing.T) {
	var c intCache[*localGroup]
	if _, ok := c.get(5); ok {
		t.Fatal("an empty cache answered")
	}
	groups := map[int64]*localGroup{}
	keys := []int64{0, 1, intCacheSlots - 1, intCacheSlots, -1, -intCacheSlots, 1 << 40, -1 << 62}
	for _, k := range keys {
		groups[k] = &localGroup{rows: k}
		c.put(k, groups[k])
	}
	for _, k := range keys {
		if g, ok := c.get(k); !ok || g != groups[k] {
			t.Fatalf("get(%d) = %v, %v; want its group", k, g, ok)
		}
	}
	if _, ok := c.get(2); ok {
		t.Fatal("get(2) answered a key never put")
	}
	// Fill the hashed table with keys outside the dense range: some
	// collide with 1<<40; whichever holds its slot, no key gets another's
	// group.
	for k := int64(intCacheSlots); k < 3*intCacheSlots; k++ {
		c.put(k*7919, &localGroup{rows: k * 7919})
	}
	for k := int64(intCacheSlots); k < 3*intCacheSlots; k++ {
		if g, ok := c.get(k * 7919); ok && g.rows != k*7919 {
			t.Fatalf("get(%d) answered the group of %d", k*7919, g.rows)
		}
	}
	if g, ok := c.get(1 << 40); ok && g != groups[1<<40] {
		t.Fatal("get(1<<40) answered another key's group")
	}
	c.clear()
	for _, k := range keys {
		if _, ok := c.get(k); ok {
			t.Fatalf("get(%d) answered after clear", k)
		}
	}
}
