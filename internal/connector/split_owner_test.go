package connector

import "testing"

// TestSplitOwner: for every number of actors, each split has exactly one
// owner, actor p mod n, so readers agree on a new split without talking;
// counter ids (below zero) are no actor's split; and every counter slot
// has exactly one owner, its own writer's when that actor exists.
func TestSplitOwner(t *testing.T) {
	for n := 0; n <= 9; n++ {
		actors := max(n, 1)
		for p := int32(-3); p < 40; p++ {
			owners := 0
			for a := range actors {
				if (SplitOwner{Actor: a, Actors: n}).Owns(p) {
					owners++
					if p >= 0 && n > 1 && int(p)%n != a {
						t.Fatalf("n=%d: split %d owned by actor %d", n, p, a)
					}
				}
			}
			if want := map[bool]int{true: 1, false: 0}[p >= 0]; owners != want {
				t.Fatalf("n=%d: split %d has %d owners, want %d", n, p, owners, want)
			}
		}
		for k := range 70 {
			owners := 0
			for a := range actors {
				o := SplitOwner{Actor: a, Actors: n}
				if o.OwnsSlot(k) {
					owners++
				}
				if k < actors && o.Slot() == k && !o.OwnsSlot(k) {
					t.Fatalf("n=%d: actor %d does not own its own slot", n, a)
				}
			}
			if owners != 1 {
				t.Fatalf("n=%d: slot %d has %d owners", n, k, owners)
			}
		}
	}
	// A split's owner changes with the number of actors by the same rule.
	if !(SplitOwner{Actor: 1, Actors: 3}).Owns(4) || (SplitOwner{Actor: 0, Actors: 4}).Owns(5) {
		t.Fatal("p mod n")
	}
}
