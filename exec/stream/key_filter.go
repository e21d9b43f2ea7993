package stream

// keyFilter is a Bloom filter of the join keys (their hashes, see
// epochWrites.hash) a join side's executor has written to its state
// table. While the table held nothing when the executor began (a new
// view's backfill), a key the filter rules out has no rows, committed or
// staged, and a lookup of it needs no read of the store: in a backfill
// about half the lookups are of keys the other side has not reached yet,
// each otherwise a search through every level of the LSM.
//
// Keys are never removed (a deleted key only costs a needless read). The
// filter grows as a series of levels, each four times the size of the
// last, begun when the last holds its capacity; a lookup checks each.
// Each key sets 4 bits within one 64-bit word of a level (a blocked
// Bloom filter: one cache line per level per lookup), about 16 bits per
// key.
type keyFilter struct {
	levels [][]uint64 // each a power of two of words
	n      int        // keys in the last level
	words  int        // in all levels
	// full: the filter reached keyFilterMaxWords and stopped taking keys;
	// it rules nothing out any more.
	full bool
	sink uint64
}

const (
	keyFilterMinWords = 1 << 10
	keyFilterBitsKey  = 16
	// keyFilterMaxWords bounds a filter's memory (32 MiB, about 16M
	// keys): past that, lookups go to the store as without a filter.
	keyFilterMaxWords = 4 << 20
)

func newKeyFilter() *keyFilter {
	return &keyFilter{levels: [][]uint64{make([]uint64, keyFilterMinWords)}, words: keyFilterMinWords}
}

// keyBits returns the word index source and the 4 bits of h.
func keyBits(h uint64) uint64 {
	// The slot of a headTable uses h's low bits and its tag the high 32:
	// take the bits within a word from bits 32-55, the word from the
	// low bits (they are independent of the bits' choice).
	return 1<<(h>>32&63) | 1<<(h>>38&63) | 1<<(h>>44&63) | 1<<(h>>50&63)
}

func (f *keyFilter) add(h uint64) {
	if f.full {
		return
	}
	last := f.levels[len(f.levels)-1]
	if f.n*keyFilterBitsKey >= len(last)*64 {
		if f.words+4*len(last) > keyFilterMaxWords {
			f.full, f.levels = true, nil
			return
		}
		last = make([]uint64, 4*len(last))
		f.levels, f.n = append(f.levels, last), 0
		f.words += len(last)
	}
	last[h&uint64(len(last)-1)] |= keyBits(h)
	f.n++
}

// mayContain reports whether h may have been added.
func (f *keyFilter) mayContain(h uint64) bool {
	if f.full {
		return true
	}
	bits := keyBits(h)
	for _, l := range f.levels {
		if l[h&uint64(len(l)-1)]&bits == bits {
			return true
		}
	}
	return false
}

// touchLast reads the words of hs in the last level, the one add writes,
// so that their cache misses overlap (see epochWrites.link): the earlier
// levels take no more keys.
func (f *keyFilter) touchLast(hs []uint64) {
	if f.full {
		return
	}
	l := f.levels[len(f.levels)-1]
	mask := uint64(len(l) - 1)
	var sum uint64
	for _, h := range hs {
		sum += l[h&mask]
	}
	f.sink = sum
}

// absent sets absent[i] to whether the filter rules hs[i] out (it was
// never added), for a batch of lookups: level by level, so that the
// cache misses of the batch's words in a level overlap and each word is
// read once (a lookup per key reads every level of a key in turn, each a
// miss the next waits for). absent has len(hs).
func (f *keyFilter) absent(hs []uint64, absent []bool) {
	if f.full {
		clear(absent)
		return
	}
	for i := range absent {
		absent[i] = true
	}
	for _, l := range f.levels {
		mask := uint64(len(l) - 1)
		for i, h := range hs {
			bits := keyBits(h)
			if l[h&mask]&bits == bits {
				absent[i] = false
			}
		}
	}
}
