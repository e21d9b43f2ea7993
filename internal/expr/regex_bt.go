package expr

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// A backtracking matcher for the patterns RE2 cannot run (back
// references, lookaround and word constraints) and for the submatches
// PostgreSQL picks where Perl's order (RE2's) would pick others.
//
// It follows PostgreSQL's rules for which match is found: the leftmost
// one; of those, the longest, or the shortest when the whole pattern is
// non-greedy (its first quantifier with a greediness attribute is); and
// then each part of the pattern, earlier parts first, matches as much or
// as little as its own greediness says. A node whose Perl-order search
// would not yield its ends in that order (an alternation of different
// lengths, a repetition of such a node...) has its matches collected and
// sorted before its continuation sees them (sorted). As in PostgreSQL a
// repetition's groups are cleared at each iteration, and a back
// reference to a group that did not match fails.
//
// As PostgreSQL does with its DFAs, the search uses a pattern RE2 can
// run that matches wherever the pattern may (pgRegex.approx): it skips
// to where that one matches, and bounds each match by the longest that
// one finds at the same start (bound).
//
// A search fails with 2201B after btStepLimit steps or btTimeLimit, so
// that a pattern that backtracks exponentially errs instead of hanging.

// btStepLimit and btTimeLimit are the work one search may do.
const (
	btStepLimit = 10_000_000
	btTimeLimit = time.Second
)

// errRegexTooComplex is the error of a search that ran out of steps.
func errRegexTooComplex() error {
	e := pgerr.New(InvalidRegex, "regular expression failed: regular expression is too complex")
	e.Detail = "The pattern needs too much backtracking on this input."
	return e
}

type btMatcher struct {
	syn      *reSyntax
	s        string
	caps     []int
	steps    int
	deadline time.Time
	err      error
	exists   bool // only whether there is a match matters: no sorting
	// bound is the end no match can go past (-1: none); bounds, when
	// set, finds it for a start (a pattern anchored at the start, with
	// the leftmost-longest rule, that matches wherever the pattern may).
	bound  int
	bounds *regexp.Regexp
}

func newBT(syn *reSyntax, s string, bounds *regexp.Regexp) *btMatcher {
	return &btMatcher{syn: syn, s: s, caps: make([]int, 2*(syn.ngroups+1)), bound: -1, bounds: bounds}
}

// start readies the matcher for a search.
func (m *btMatcher) start() {
	m.steps, m.err, m.bound = 0, nil, -1
	m.deadline = time.Now().Add(btTimeLimit)
}

func (m *btMatcher) resetCaps() {
	for i := range m.caps {
		m.caps[i] = -1
	}
}

// tick counts a step; false when the search must stop.
func (m *btMatcher) tick() bool {
	if m.err != nil {
		return false
	}
	m.steps++
	if m.steps > btStepLimit || m.steps&1023 == 0 && time.Now().After(m.deadline) {
		m.err = errRegexTooComplex()
		return false
	}
	return true
}

// find returns the first match at or after byte from, as
// FindStringSubmatchIndex does, or nil.
func (m *btMatcher) find(from int) ([]int, error) {
	m.start()
	first := m.syn.first
	for i := from; i <= len(m.s); {
		if first == nil || i < len(m.s) && first.has(decodeAt(m.s, i)) {
			m.bound = -1
			if m.bounds != nil {
				b := m.bounds.FindStringIndex(m.s[i:])
				if b == nil {
					goto next // no match can start at i
				}
				m.bound = i + b[1]
			}
			if res := m.matchAt(i, -1); res != nil || m.err != nil {
				return res, m.err
			}
		}
	next:
		if i == len(m.s) {
			break
		}
		_, w := utf8.DecodeRuneInString(m.s[i:])
		i += w
	}
	return nil, m.err
}

// at returns the preferred match starting at i (ending at end when end
// >= 0), or nil (none, or out of steps).
func (m *btMatcher) at(i, end int) []int {
	m.start()
	return m.matchAt(i, end)
}

// matchAt returns the preferred match starting at i (ending at end when
// end >= 0), or nil.
func (m *btMatcher) matchAt(i, end int) []int {
	root := m.syn.root
	if end < 0 && m.syn.endsAtEOT {
		end = len(m.s) // no need to sort the root's matches
	}
	m.resetCaps()
	var res []int
	accept := func(e int) bool {
		if end >= 0 && e != end {
			return false
		}
		res = slices.Clone(m.caps)
		res[0], res[1] = i, e
		return true
	}
	if end >= 0 || m.exists || root.mono {
		m.match(root, i, accept)
	} else {
		m.sorted(root, i, accept, true)
	}
	if m.err != nil {
		return nil
	}
	return res
}

func decodeAt(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// firstSet is the set of characters a match of n must start with, nil
// when it can start otherwise (or be empty).
func firstSet(n *reNode) runeSet {
	switch n.op {
	case reSet:
		return n.set
	case reGroup:
		return firstSet(n.subs[0])
	case reConcat:
		return firstSet(n.subs[0])
	case reRepeat:
		if n.min > 0 {
			return firstSet(n.subs[0])
		}
	case reAlt:
		var acc runeSet
		for _, s := range n.subs {
			f := firstSet(s)
			if f == nil {
				return nil
			}
			acc = acc.union(f)
		}
		return acc
	}
	return nil
}

// node matches n at i, in n's preference order, calling k with each end
// until k returns true.
func (m *btMatcher) node(n *reNode, i int, k func(int) bool) bool {
	if n.mono || m.exists {
		return m.match(n, i, k)
	}
	return m.sorted(n, i, k, false)
}

// sorted collects n's matches at i and hands them to k in n's preference
// order (longest or shortest first). Of the matches with the same end
// only the first in Perl order counts: as in PostgreSQL, which settles
// how a part matches a stretch of text before it looks at what follows,
// and does not come back to try another way (a back reference that then
// fails makes it try another stretch). At the root (root) the search
// stops at a match that cannot be bettered.
func (m *btMatcher) sorted(n *reNode, i int, k func(int) bool, root bool) bool {
	type result struct {
		end  int
		caps []int
	}
	var rs []result
	var ends map[int]bool
	long := n.longest()
	m.match(n, i, func(e int) bool {
		if ends == nil {
			ends = map[int]bool{}
		} else if ends[e] {
			return false
		}
		ends[e] = true
		rs = append(rs, result{e, slices.Clone(m.caps)})
		return root && (long && (e == len(m.s) || e == m.bound) || !long && e == i)
	})
	if m.err != nil || len(rs) == 0 {
		return false
	}
	sort.SliceStable(rs, func(a, b int) bool {
		if long {
			return rs[a].end > rs[b].end
		}
		return rs[a].end < rs[b].end
	})
	saved := slices.Clone(m.caps)
	for _, r := range rs {
		copy(m.caps, r.caps)
		if k(r.end) {
			return true
		}
		if m.err != nil {
			return false
		}
	}
	copy(m.caps, saved)
	return false
}

// match matches n at i in Perl order (its parts in their own preference
// order), calling k with each end until k returns true.
func (m *btMatcher) match(n *reNode, i int, k func(int) bool) bool {
	if !m.tick() || m.bound >= 0 && i > m.bound {
		return false
	}
	s := m.s
	switch n.op {
	case reEmpty:
		return k(i)
	case reSet:
		if i < len(s) {
			r, w := utf8.DecodeRuneInString(s[i:])
			if n.set.has(r) {
				return k(i + w)
			}
		}
		return false
	case reConcat:
		return m.seq(n.subs, i, k)
	case reAlt:
		for _, b := range n.subs {
			if m.node(b, i, k) {
				return true
			}
			if m.err != nil {
				return false
			}
		}
		return false
	case reGroup:
		c := n.cap
		old0, old1 := m.caps[2*c], m.caps[2*c+1]
		ok := m.node(n.subs[0], i, func(e int) bool {
			in0, in1 := m.caps[2*c], m.caps[2*c+1]
			m.caps[2*c], m.caps[2*c+1] = i, e
			if k(e) {
				return true
			}
			m.caps[2*c], m.caps[2*c+1] = in0, in1
			return false
		})
		if !ok {
			m.caps[2*c], m.caps[2*c+1] = old0, old1
		}
		return ok
	case reBackref:
		e, ok := m.backref(n.cap, i)
		return ok && k(e)
	case reAssert:
		return m.assert(n.kind, i) && k(i)
	case reLook:
		return m.look(n, i) && k(i)
	case reRepeat:
		if n.simple {
			return m.simpleRepeat(n, i, k)
		}
		if b := n.subs[0]; b.op == reBackref && m.caps[2*b.cap] < 0 {
			// A quantified back reference to a group that did not match
			// fails, even where no repetition would do: in PostgreSQL
			// such a quantifier is the back reference's own.
			return false
		}
		var seen map[repKey]bool
		return m.repeat(n, i, i, 0, &seen, k)
	}
	return false
}

// seq matches subs in sequence from i.
func (m *btMatcher) seq(subs []*reNode, i int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(i)
	}
	if len(subs) == 1 {
		return m.node(subs[0], i, k)
	}
	return m.node(subs[0], i, func(e int) bool {
		return m.seq(subs[1:], e, k)
	})
}

// simpleRepeat matches a repetition of one character of a set.
func (m *btMatcher) simpleRepeat(n *reNode, i int, k func(int) bool) bool {
	s, set := m.s, n.subs[0].set
	if n.lazy {
		p := i
		for c := 0; ; c++ {
			if c >= n.min {
				if k(p) {
					return true
				}
				if !m.tick() {
					return false
				}
			}
			if c == n.max || p >= len(s) {
				return false
			}
			r, w := utf8.DecodeRuneInString(s[p:])
			if !set.has(r) {
				return false
			}
			p += w
		}
	}
	p, c := i, 0
	end := len(s)
	if m.bound >= 0 {
		end = min(end, m.bound)
	}
	for (n.max < 0 || c < n.max) && p < end {
		r, w := utf8.DecodeRuneInString(s[p:])
		if !set.has(r) {
			break
		}
		p += w
		c++
	}
	for ; c >= n.min; c-- {
		if k(p) {
			return true
		}
		if c == 0 || !m.tick() {
			return false
		}
		_, w := utf8.DecodeLastRuneInString(s[:p])
		p -= w
	}
	return false
}

// repeat matches the iterations of n from the count-th on, at i (the
// repetition started at start). An iteration that matches the empty
// string ends the repetition; as in PostgreSQL, one is taken (setting
// the groups inside) only while the repetition has matched nothing and
// the repeated part is not non-greedy.
//
// A state (position, iterations so far, and groups when the pattern has
// back references) that comes up again fares as it did the first time:
// seen prunes it, which keeps nested repetitions polynomial.
func (m *btMatcher) repeat(n *reNode, start, i, count int, seen *map[repKey]bool, k func(int) bool) bool {
	key := repKey{pos: i, count: count}
	if n.max < 0 && count > n.min {
		key.count = n.min
	}
	if m.syn.hasBackref {
		key.caps = capsKey(m.caps)
	}
	if *seen == nil {
		*seen = map[repKey]bool{}
	} else if (*seen)[key] {
		return false
	}
	(*seen)[key] = true
	sub := n.subs[0]
	more := func() bool {
		if n.max >= 0 && count >= n.max {
			return false
		}
		return m.iterate(n, i, func(e int) bool {
			if e == i && count >= n.min {
				return false
			}
			return m.repeat(n, start, e, count+1, seen, k)
		})
	}
	if count < n.min {
		return more()
	}
	emptyIter := func() bool {
		if i != start || !sub.empty || sub.greed == greedShort || n.max >= 0 && count >= n.max {
			return false
		}
		return m.iterate(n, i, func(e int) bool { return e == i && k(i) })
	}
	if n.lazy {
		return emptyIter() || m.err == nil && (k(i) || m.err == nil && more())
	}
	return more() || m.err == nil && (emptyIter() || m.err == nil && k(i))
}

type repKey struct {
	pos, count int
	caps       string
}

func capsKey(caps []int) string {
	b := make([]byte, 0, 4*len(caps))
	for _, c := range caps {
		b = strconv.AppendInt(append(b, ','), int64(c), 10)
	}
	return string(b)
}

// iterate matches one iteration of n's repeated part at i, its groups
// cleared first.
func (m *btMatcher) iterate(n *reNode, i int, k func(int) bool) bool {
	saved := make([]int, 0, 2*len(n.caps))
	for _, c := range n.caps {
		saved = append(saved, m.caps[2*c], m.caps[2*c+1])
		m.caps[2*c], m.caps[2*c+1] = -1, -1
	}
	ok := m.node(n.subs[0], i, k)
	if !ok {
		for j, c := range n.caps {
			m.caps[2*c], m.caps[2*c+1] = saved[2*j], saved[2*j+1]
		}
	}
	return ok
}

// backref matches the text of group c at i, returning its end.
func (m *btMatcher) backref(c, i int) (int, bool) {
	b, e := m.caps[2*c], m.caps[2*c+1]
	if b < 0 {
		return 0, false
	}
	ref, s := m.s[b:e], m.s[i:]
	if !m.syn.icase {
		if len(s) >= len(ref) && s[:len(ref)] == ref {
			return i + len(ref), true
		}
		return 0, false
	}
	p := 0
	for _, r := range ref {
		if p >= len(s) {
			return 0, false
		}
		t, w := utf8.DecodeRuneInString(s[p:])
		if t != r && unicode.ToLower(t) != unicode.ToLower(r) {
			return 0, false
		}
		p += w
	}
	return i + p, true
}

// isWordAt says whether the character at i is a word character (\w).
func (m *btMatcher) isWordAt(i int) bool {
	return i >= 0 && i < len(m.s) && classSet("word").has(decodeAt(m.s, i))
}

func (m *btMatcher) wordBefore(i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(m.s[:i])
	return classSet("word").has(r)
}

func (m *btMatcher) assert(kind reAssertKind, i int) bool {
	s := m.s
	switch kind {
	case aBOT:
		return i == 0
	case aEOT:
		return i == len(s)
	case aBOL:
		return i == 0 || s[i-1] == '\n'
	case aEOL:
		return i == len(s) || s[i] == '\n'
	}
	before, after := m.wordBefore(i), m.isWordAt(i)
	switch kind {
	case aWordBeg:
		return !before && after
	case aWordEnd:
		return before && !after
	case aWordB:
		return before != after
	}
	return before == after
}

// look says whether lookaround constraint n holds at i.
func (m *btMatcher) look(n *reNode, i int) bool {
	sub := n.subs[0]
	saveExists, saveBound := m.exists, m.bound
	m.exists, m.bound = true, -1
	found := false
	switch {
	case !n.behind:
		found = m.match(sub, i, func(int) bool { return true })
	case sub.width >= 0: // only one place to start
		j := i
		for c := 0; c < sub.width && j >= 0; c++ {
			if j == 0 {
				j = -1
				break
			}
			_, w := utf8.DecodeLastRuneInString(m.s[:j])
			j -= w
		}
		found = j >= 0 && m.match(sub, j, func(e int) bool { return e == i })
	default:
		for j := i; !found && m.err == nil; {
			found = m.match(sub, j, func(e int) bool { return e == i })
			if j == 0 {
				break
			}
			_, w := utf8.DecodeLastRuneInString(m.s[:j])
			j -= w
		}
	}
	m.exists, m.bound = saveExists, saveBound
	return found != n.neg && m.err == nil
}
