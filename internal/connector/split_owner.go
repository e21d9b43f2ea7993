package connector

// SplitOwner says which splits one actor of a source fragment of Actors
// actors reads: split p belongs to actor p mod Actors. The rule needs no
// coordination, so a split the topic gains later (a new Kafka partition)
// has an owner the moment any reader sees it, and every reader agrees
// which one. A rescale to another number of actors moves splits by the
// same rule; each split's committed offset is a row of the source's
// position table, which the new owner reads (see exec/stream.SplitSource).
//
// The zero SplitOwner (Actors 0) and any SplitOwner of one actor own
// every split.
type SplitOwner struct {
	Actor, Actors int
}

// Owns reports whether split p is the actor's. Negative ids are not
// splits (a position table keeps counters under them) and are nobody's.
func (o SplitOwner) Owns(p int32) bool {
	if p < 0 {
		return false
	}
	return o.Actors <= 1 || int(p)%o.Actors == o.Actor
}

// OwnsSlot reports whether the actor owns counter slot k (k >= 0): slots
// are numbered by the actor that wrote them, and after a rescale slot k
// belongs to actor k mod Actors, which folds it into its own slot.
func (o SplitOwner) OwnsSlot(k int) bool {
	return k >= 0 && (o.Actors <= 1 || k%o.Actors == o.Actor)
}

// Slot is the counter slot the actor writes.
func (o SplitOwner) Slot() int {
	if o.Actors <= 1 {
		return 0
	}
	return o.Actor
}
