package stream

import "testing"

// TestCoordinatorLiveEndsOnce: the end function Live returns may be
// called more than once and counts once.
func TestCoordinatorLiveEndsOnce(t *testing.T) {
	c := &Coordinator{slots: newCPUSlots()}
	end := c.Live()
	if n := c.slots.live.Load(); n != 1 {
		t.Fatalf("live count %d in flight", n)
	}
	end()
	end()
	if n := c.slots.live.Load(); n != 0 {
		t.Fatalf("live count %d", n)
	}
}
