package expr

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Character sets of regular expressions, and the character classes as
// PostgreSQL's regular expressions see them with LC_CTYPE C.UTF-8: glibc's
// classification, which follows Unicode (glibc's tables may lag Go's
// Unicode version by a release, in characters new in the later one).

// runeSet is a set of characters: sorted, disjoint, non-adjacent ranges
// lo, hi, lo, hi...
type runeSet []rune

// newRuneSet makes a set of the ranges in acc (in any order).
func newRuneSet(acc []rune) runeSet {
	type rng struct{ lo, hi rune }
	rs := make([]rng, 0, len(acc)/2)
	for i := 0; i+1 < len(acc); i += 2 {
		rs = append(rs, rng{acc[i], acc[i+1]})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	out := make(runeSet, 0, len(acc))
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1]+1 {
			if r.hi > out[n-1] {
				out[n-1] = r.hi
			}
			continue
		}
		out = append(out, r.lo, r.hi)
	}
	return out
}

func (s runeSet) has(r rune) bool {
	if len(s) <= 16 {
		for i := 0; i < len(s); i += 2 {
			if r < s[i] {
				return false
			}
			if r <= s[i+1] {
				return true
			}
		}
		return false
	}
	// The first range whose hi is >= r.
	lo, hi := 0, len(s)/2
	for lo < hi {
		m := (lo + hi) / 2
		if s[2*m+1] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(s)/2 && s[2*lo] <= r
}

func (s runeSet) complement() runeSet {
	out := make(runeSet, 0, len(s)+2)
	next := rune(0)
	for i := 0; i < len(s); i += 2 {
		if s[i] > next {
			out = append(out, next, s[i]-1)
		}
		next = s[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

func (s runeSet) union(t runeSet) runeSet {
	return newRuneSet(append(append(make([]rune, 0, len(s)+len(t)), s...), t...))
}

func (s runeSet) minus(t runeSet) runeSet {
	return s.complement().union(t).complement()
}

// goSyntax writes the set as a Go character class.
func (s runeSet) goSyntax(b *strings.Builder) {
	switch {
	case len(s) == 0:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
		return
	case len(s) == 2 && s[0] == s[1]:
		writeGoRune(b, s[0])
		return
	}
	b.WriteByte('[')
	for i := 0; i < len(s); i += 2 {
		writeGoRune(b, s[i])
		if s[i+1] != s[i] {
			if s[i+1] > s[i]+1 {
				b.WriteByte('-')
			}
			writeGoRune(b, s[i+1])
		}
	}
	b.WriteByte(']')
}

func writeGoRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
		b.WriteRune(r)
		return
	}
	var buf [16]byte
	b.WriteString(`\x{`)
	b.Write(strconv.AppendInt(buf[:0], int64(r), 16))
	b.WriteByte('}')
}

// The character classes, as glibc's C.UTF-8 locale (which PostgreSQL's
// regular expressions consult) has them, built from Go's Unicode tables.
var reClasses struct {
	once sync.Once
	m    map[string]runeSet
}

// classSet returns the set of class name ([:name:]), nil when there is no
// such class.
func classSet(name string) runeSet {
	reClasses.once.Do(buildClasses)
	return reClasses.m[name]
}

func tableSet(ts ...*unicode.RangeTable) runeSet {
	var acc []rune
	for _, t := range ts {
		for _, r := range t.R16 {
			acc = appendStride(acc, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			acc = appendStride(acc, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	return newRuneSet(acc)
}

func appendStride(acc []rune, lo, hi, stride rune) []rune {
	if stride == 1 {
		return append(acc, lo, hi)
	}
	for c := lo; c <= hi; c += stride {
		acc = append(acc, c, c)
	}
	return acc
}

// caseMapped is the set of the characters whose case mapping f changes.
func caseMapped(f func(rune) rune) runeSet {
	var acc []rune
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
			if f(c) != c {
				acc = append(acc, c, c)
			}
		}
	}
	return newRuneSet(acc)
}

func buildClasses() {
	digit := runeSet{'0', '9'}
	alpha := tableSet(unicode.L, unicode.Nl, unicode.Other_Alphabetic).union(tableSet(unicode.Nd).minus(digit))
	alnum := alpha.union(digit)
	space := newRuneSet([]rune{'\t', '\r', ' ', ' '}).union(tableSet(unicode.Zs, unicode.Zl, unicode.Zp).minus(
		newRuneSet([]rune{0xA0, 0xA0, 0x2007, 0x2007, 0x202F, 0x202F})))
	cntrl := tableSet(unicode.Cc)
	assigned := tableSet(unicode.Cn).complement().minus(tableSet(unicode.Cs))
	graph := assigned.minus(cntrl).minus(space)
	reClasses.m = map[string]runeSet{
		"alpha":  alpha,
		"digit":  digit,
		"alnum":  alnum,
		"word":   alnum.union(runeSet{'_', '_'}),
		"upper":  tableSet(unicode.Lu, unicode.Other_Uppercase).union(caseMapped(unicode.ToLower)),
		"lower":  tableSet(unicode.Ll, unicode.Other_Lowercase).union(caseMapped(unicode.ToUpper)),
		"space":  space,
		"blank":  runeSet{'\t', '\t', ' ', ' '},
		"cntrl":  cntrl,
		"graph":  graph,
		"print":  assigned.minus(cntrl).minus(tableSet(unicode.Zl, unicode.Zp)),
		"punct":  graph.minus(alnum),
		"xdigit": runeSet{'0', '9', 'A', 'F', 'a', 'f'},
		"ascii":  runeSet{0, 0x7F},
	}
}
