package connector

// Column pruning of a nexmark source. A source stores nothing: its rows
// only flow to the views over it, and a view reads only some columns
// (Nexmark's q0 reads four of a bid's seven). The source actor tells the
// generator which columns its readers read (PruneColumns), and the
// generator then neither makes nor copies the others: mostly random
// text (a bid's channel, url and extra), the most costly part of an
// event. The source fills those columns with NULLs.
//
// Determinism holds whatever is read: every field of an event draws
// from one generator seeded by the event's number, in a fixed order, and
// a field not made still takes its draws (rng.skip), so the fields made
// are those of the full event. A field whose draws come last (extra) is
// simply not drawn. TestNexmarkPruneSameRows checks it.

// nexMask is a set of fields (bit nexmarkColumn).
type nexMask uint32

// nexAll is every field.
const nexAll = nexMask(1<<(nexURL+1) - 1)

func (m nexMask) has(c nexmarkColumn) bool { return m&(1<<c) != 0 }

// Lengths of the text fields that have one: the generator's extra pads
// an event to a size, which counts them whether they are made or not.
const (
	nexEmailLen = 7 + 1 + 5 + len(".com")
	nexCardLen  = 4*4 + 3 // four numbers of four digits, three spaces
	nexItemLen  = 20
	nexDescLen  = 100
)

// PruneColumns implements the stream package's ColumnPruner: AppendRow
// then fills only the columns j with read[j] (read: one per column of
// the generator; nil: every column) and appends nothing to the others.
func (g *nexmark) PruneColumns(read []bool) {
	if read == nil {
		g.read, g.want = nil, nexAll
		return
	}
	g.read, g.want = append(g.read[:0], read...), 0
	for j, c := range g.fill {
		if read[j] {
			g.want |= 1 << c
		}
	}
}

// skip advances r by n draws without making them.
func (r *rng) skip(n int) { r.s += uint64(n) * 0x9e3779b97f4a7c15 }

// letterDraws is how many draws appendStr takes for n letters.
func letterDraws(n int) int { return (n + 9) / 10 }

// lettersIf returns n random letters when made is set; else it only
// takes their draws from r and returns "".
func (a *strArena) lettersIf(r *rng, n int, made bool) string {
	if !made {
		r.skip(letterDraws(n))
		return ""
	}
	a.letters(r, n)
	return a.end()
}
