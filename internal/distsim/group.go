package distsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// committedOffset is a partition's committed consumer offset and its
// metadata: the epoch of the barrier that committed it (Kafka keeps a
// metadata string with every committed offset).
type committedOffset struct {
	Offset int64
	Epoch  uint64
}

// Member is what a process sends with its offsets (Kafka's
// ConsumerGroupMetadata): its static instance id, which incarnation of
// it this is, and the generation whose assignment it works on.
type Member struct {
	Instance, Inc, Gen int
}

// Assignment is a member's share of a generation: source (input)
// partitions and aggregate (repartition, that is vnode range) partitions.
type Assignment struct {
	Src, Agg []int
}

// Group is the consumer group's coordinator: membership by generation
// (the classic eager protocol: a rebalance first collects every member's
// JoinGroup, then starts a generation with a new assignment; a member
// that did not join in time is expelled), and the group's committed
// offsets. Static membership: a new incarnation of an instance that
// joins replaces, and so fences, the old one at once.
type Group struct {
	b                  *Broker
	srcParts, aggParts int

	gen       int
	preparing bool
	members   map[int]int // instance -> incarnation, of generation gen
	joined    map[int]int // instance -> incarnation, for the next one
	newest    map[int]int // instance -> the newest incarnation that joined
	assign    map[int]Assignment

	offsets map[tp]committedOffset
	// history is every offset committed, in order (the checks read
	// epoch boundaries from it).
	history map[tp][]committedOffset
}

func newGroup(b *Broker, srcParts, aggParts int) *Group {
	return &Group{b: b, srcParts: srcParts, aggParts: aggParts, members: map[int]int{},
		joined: map[int]int{}, newest: map[int]int{}, assign: map[int]Assignment{}, offsets: map[tp]committedOffset{},
		history: map[tp][]committedOffset{}}
}

// Join is JoinGroup: it starts a rebalance if none is in progress and
// records the member for the next generation. It returns the incarnation
// of the instance that the join fenced (-1: none), or
// ErrFencedInstanceID if a newer incarnation of the instance has joined.
func (g *Group) Join(instance, inc int) (int, error) {
	if n, ok := g.newest[instance]; ok && n > inc {
		return -1, fmt.Errorf("%w: instance %d incarnation %d, newest %d", ErrFencedInstanceID, instance, inc, n)
	}
	g.newest[instance] = inc
	fenced := -1
	if old, ok := g.members[instance]; ok && old != inc {
		delete(g.members, instance)
		fenced = old
	}
	g.joined[instance] = inc
	g.preparing = true
	return fenced, nil
}

// Joined reports whether the incarnation has joined the rebalance in
// progress.
func (g *Group) Joined(instance, inc int) bool {
	i, ok := g.joined[instance]
	return g.preparing && ok && i == inc
}

// IsMember reports whether the incarnation is in the current generation.
func (g *Group) IsMember(instance, inc int) bool {
	i, ok := g.members[instance]
	return ok && i == inc
}

// AllJoined reports whether every member the group would wait for has
// joined (live lists the incarnations still running, by instance).
func (g *Group) AllJoined(live map[int]int) bool {
	for inst, inc := range live {
		if i, ok := g.joined[inst]; !ok || i != inc {
			return false
		}
	}
	return true
}

// Complete ends the rebalance (every member joined, or the rebalance
// timed out): the generation advances, the joined members are its
// members, and the partitions are assigned among them, by a random
// strategy (balanced over a shuffled order, or each partition to any
// member). It returns the members expelled (in the old generation, not
// joined).
func (g *Group) Complete(rng *rand.Rand) []Member {
	var expelled []Member
	for _, inst := range sortedKeys(g.members) {
		if i, ok := g.joined[inst]; !ok || i != g.members[inst] {
			expelled = append(expelled, Member{Instance: inst, Inc: g.members[inst], Gen: g.gen})
		}
	}
	g.gen++
	g.members, g.joined = g.joined, map[int]int{}
	g.preparing = false
	g.assign = map[int]Assignment{}
	insts := sortedKeys(g.members)
	if len(insts) == 0 {
		return expelled
	}
	rng.Shuffle(len(insts), func(i, j int) { insts[i], insts[j] = insts[j], insts[i] })
	balanced := rng.IntN(2) == 0
	pick := func(i int) int {
		if balanced {
			return insts[i%len(insts)]
		}
		return insts[rng.IntN(len(insts))]
	}
	for i := range g.srcParts {
		m := pick(i)
		a := g.assign[m]
		a.Src = append(a.Src, i)
		g.assign[m] = a
	}
	for i := range g.aggParts {
		m := pick(i + g.srcParts)
		a := g.assign[m]
		a.Agg = append(a.Agg, i)
		g.assign[m] = a
	}
	return expelled
}

// checkMember fails a member not in the current generation (KIP-447's
// fencing of zombies through the offsets they send). Under
// Faults.NoZombieFencing it accepts anyone.
func (g *Group) checkMember(m Member) error {
	if g.b.faults.NoZombieFencing {
		return nil
	}
	if m.Gen != g.gen || !g.IsMember(m.Instance, m.Inc) {
		return fmt.Errorf("%w: instance %d incarnation %d generation %d (group at %d)",
			ErrIllegalGeneration, m.Instance, m.Inc, m.Gen, g.gen)
	}
	return nil
}

// FetchOffset is OffsetFetch with require_stable: a partition whose
// offsets an open transaction holds answers UNSTABLE_OFFSET_COMMIT, and
// the consumer retries (under Faults.UnstableOffsetFetch it answers the
// offset committed so far).
func (g *Group) FetchOffset(t tp) (committedOffset, error) {
	if !g.b.faults.UnstableOffsetFetch && g.b.pendingOffsets(t) {
		return committedOffset{}, fmt.Errorf("%w: %s/%d", ErrUnstableOffsetCommit, t.topic, t.part)
	}
	return g.offsets[t], nil
}

// commit records a committed offset.
func (g *Group) commit(t tp, o committedOffset) {
	g.offsets[t] = o
	g.history[t] = append(g.history[t], o)
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedTPs[V any](m map[tp]V) []tp {
	ks := make([]tp, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b tp) int {
		if a.topic != b.topic {
			if a.topic < b.topic {
				return -1
			}
			return 1
		}
		return a.part - b.part
	})
	return ks
}
