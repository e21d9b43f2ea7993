package expr

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// The parser of PostgreSQL's advanced regular expressions (AREs), as
// PostgreSQL 15 reads them (regc_lex.c, regcomp.c), into a tree of
// reNodes that regex.go runs with Go's regexp (RE2) when it can, and
// with the backtracking matcher of regex_bt.go when the pattern has what
// RE2 lacks: back references, lookahead and lookbehind constraints, and
// the word constraints \m \M \y \Y (RE2's \b knows ASCII letters only).
//
// Character classes follow Unicode as PostgreSQL's do with LC_CTYPE
// C.UTF-8 (glibc's tables): [[:alpha:]] is a letter, a mark that is
// alphabetic or a digit other than 0-9; [[:digit:]] and \d are 0-9 only;
// \w is [[:alnum:]_]; and so on (classSet). Case-insensitive matching
// works as PostgreSQL's: a character of the pattern stands for its lower
// and upper case forms (so 'ſ' matches 'S' but not 's'), a range also
// for the case forms of its members, and [[:upper:]] and [[:lower:]] are
// [[:alpha:]]; back references compare characters' lower case forms.

// reOp is the kind of a reNode.
type reOp uint8

const (
	reEmpty   reOp = iota // the empty string
	reSet                 // one character of set
	reConcat              // subs in sequence
	reAlt                 // one of subs
	reRepeat              // subs[0], min to max times (max -1: no limit)
	reGroup               // a capturing group: subs[0]; its number is cap
	reBackref             // the text group cap matched
	reAssert              // a constraint: kind
	reLook                // a lookahead (or lookbehind, behind) constraint, negated with neg
)

// reAssertKind is the kind of a reAssert node.
type reAssertKind uint8

const (
	aBOT      reAssertKind = iota // \A, and ^ unless newline-sensitive
	aEOT                          // \Z, and $ unless newline-sensitive
	aBOL                          // ^ (newline-sensitive): after a newline too
	aEOL                          // $ (newline-sensitive): before a newline too
	aWordBeg                      // \m
	aWordEnd                      // \M
	aWordB                        // \y
	aNotWordB                     // \Y
)

// greed is a node's greediness attribute (PostgreSQL docs 9.7.3.5).
type greed int8

const (
	greedNone greed = iota
	greedLong
	greedShort
)

type reNode struct {
	op       reOp
	set      runeSet // reSet
	subs     []*reNode
	min, max int  // reRepeat
	lazy     bool // reRepeat: a non-greedy quantifier
	fixed    bool // reRepeat: written {m} or {m}?
	cap      int  // reGroup, reBackref
	kind     reAssertKind
	behind   bool // reLook
	neg      bool // reLook

	// Set by analyze.
	width  int   // the characters every match has, -1 when they vary
	greed  greed // the greediness attribute
	hasCap bool  // a capturing group is inside
	empty  bool  // it can match the empty string
	optCap bool  // a capturing group inside may stay unset (under | or an optional repeat)
	mono   bool  // a Perl-order search yields the ends in this node's preference order
	caps   []int // reRepeat: the groups inside, reset at each iteration
	simple bool  // reRepeat of one character of a set
}

// longest says whether the node prefers its longest match (its
// greediness attribute is greedy or none).
func (n *reNode) longest() bool { return n.greed != greedShort }

// reSyntax is a parsed pattern.
type reSyntax struct {
	root       *reNode
	ngroups    int
	icase      bool    // case-insensitive (back references compare so)
	first      runeSet // what a match must start with (firstSet), nil if anything
	endsAtEOT  bool    // every match ends at the end of the text
	needBT     bool    // RE2 cannot run it
	hasBackref bool
	hasBOT     bool // it has \A (or ^ not newline-sensitive)
	hasBOL     bool // it has a newline-sensitive ^
}

// reError is PostgreSQL's error for a malformed pattern.
func reError(msg string) error {
	return pgerr.New(InvalidRegex, "invalid regular expression: %s", msg)
}

const (
	reErrParen    = "parentheses () not balanced"
	reErrBracket  = "brackets [] not balanced"
	reErrBrace    = "braces {} not balanced"
	reErrBadBound = "invalid repetition count(s)"
	reErrBadRpt   = "quantifier operand invalid"
	reErrEscape   = "invalid escape \\ sequence"
	reErrBackref  = "invalid backreference number"
	reErrCtype    = "invalid character class"
	reErrRange    = "invalid character range"
	reErrCollate  = "invalid collating element"
	reErrOpt      = "invalid embedded option"
)

// reDupMax is the largest repetition count a bound may have.
const reDupMax = 255

type reParser struct {
	p       []rune
	i       int
	o       regexOpts
	nopen   int          // capturing groups opened so far
	closed  map[int]bool // capturing groups closed so far
	inLook  int          // depth of lookaround constraints
	hasBack bool
	hasLook bool
	hasWord bool
	hasBOT  bool
	hasBOL  bool
}

// parseRegex parses pattern with options o (the flags of a function
// call; options embedded in the pattern override them).
func parseRegex(pattern string, o regexOpts) (*reSyntax, error) {
	pattern, o, err := resolveFlavor(pattern, o)
	if err != nil {
		return nil, err
	}
	ps := &reParser{p: []rune(pattern), o: o, closed: map[int]bool{}}
	ps.prefix()
	var root *reNode
	if ps.o.literal {
		root = ps.literal()
	} else {
		var err error
		if root, err = ps.alternation(); err != nil {
			return nil, err
		}
		if ps.i < len(ps.p) { // a ')' with no '('
			return nil, reError(reErrParen)
		}
	}
	syn := &reSyntax{root: root, ngroups: ps.nopen, icase: ps.o.icase,
		needBT: ps.hasBack || ps.hasLook || ps.hasWord, hasBackref: ps.hasBack, hasBOT: ps.hasBOT, hasBOL: ps.hasBOL}
	root = lastCaptures(root)
	syn.root = root
	analyze(root)
	syn.first = firstSet(root)
	syn.endsAtEOT = endsAtEOT(root)
	return syn, nil
}

// endsAtEOT says whether every match of n ends at the end of the text
// (n ends with $ or \Z).
func endsAtEOT(n *reNode) bool {
	switch n.op {
	case reAssert:
		return n.kind == aEOT
	case reGroup:
		return endsAtEOT(n.subs[0])
	case reConcat:
		return endsAtEOT(n.subs[len(n.subs)-1])
	case reAlt:
		for _, s := range n.subs {
			if !endsAtEOT(s) {
				return false
			}
		}
		return true
	}
	return false
}

// lastCaptures rewrites, as PostgreSQL's parser does, a repetition
// x{m,n} (m > 0) of a part with groups (and no back reference) as
// (?:x){m-1,n-1}x, with the groups in the last x only: the repetitions
// before it take as much (or as little) as the quantifier says, and the
// groups report the last iteration.
func lastCaptures(n *reNode) *reNode {
	for i, s := range n.subs {
		n.subs[i] = lastCaptures(s)
	}
	if n.op != reRepeat || n.min == 0 || n.min == 1 && n.max == 1 {
		return n
	}
	sub := n.subs[0]
	if len(groupsIn(sub, nil)) == 0 || hasOp(sub, reBackref) {
		return n
	}
	prefix := &reNode{op: reRepeat, subs: []*reNode{stripGroups(sub)}, min: n.min - 1, max: n.max,
		lazy: n.lazy, fixed: n.fixed}
	if n.max > 0 {
		prefix.max = n.max - 1
	}
	return &reNode{op: reConcat, subs: []*reNode{prefix, sub}}
}

// stripGroups is a copy of n with its groups not capturing.
func stripGroups(n *reNode) *reNode {
	if n.op == reGroup {
		return stripGroups(n.subs[0])
	}
	c := *n
	c.subs = make([]*reNode, len(n.subs))
	for i, s := range n.subs {
		c.subs[i] = stripGroups(s)
	}
	return &c
}

func hasOp(n *reNode, op reOp) bool {
	if n.op == op {
		return true
	}
	for _, s := range n.subs {
		if hasOp(s, op) {
			return true
		}
	}
	return false
}

// prefix reads the director "***=" or "***:" and embedded options.
func (ps *reParser) prefix() {
	if !ps.o.literal && len(ps.p) >= 4 && string(ps.p[:3]) == "***" {
		switch ps.p[3] {
		case '=':
			ps.i = 4
			ps.o.literal = true
			return
		case ':':
			ps.i = 4
		}
	}
}

// embeddedOptions reads "(?letters)" at the start of a pattern, when
// there (at is the position of its '(').
func (ps *reParser) embeddedOptions() error {
	j := ps.i + 2
	for ; j < len(ps.p) && ps.p[j] != ')'; j++ {
		switch ps.p[j] {
		case 'c':
			ps.o.icase = false
		case 'i':
			ps.o.icase = true
		case 'm', 'n':
			ps.o.noDotNL, ps.o.multiline = true, true
		case 'p':
			ps.o.noDotNL, ps.o.multiline = true, false
		case 'w':
			ps.o.noDotNL, ps.o.multiline = false, true
		case 's':
			ps.o.noDotNL, ps.o.multiline = false, false
		case 'q':
			ps.o.literal = true
		case 'x':
			ps.o.expanded = true
		case 't':
			ps.o.expanded = false
		case 'e':
		default:
			return reError(reErrOpt)
		}
	}
	if j == len(ps.p) {
		return reError(reErrOpt)
	}
	ps.i = j + 1
	return nil
}

// literal is the rest of the pattern as literal characters.
func (ps *reParser) literal() *reNode {
	var subs []*reNode
	for ; ps.i < len(ps.p); ps.i++ {
		subs = append(subs, ps.char(ps.p[ps.i]))
	}
	return concatOf(subs)
}

func concatOf(subs []*reNode) *reNode {
	switch len(subs) {
	case 0:
		return &reNode{op: reEmpty}
	case 1:
		return subs[0]
	}
	return &reNode{op: reConcat, subs: subs}
}

// char is a literal character: with its case forms when case-insensitive.
func (ps *reParser) char(c rune) *reNode {
	if ps.o.icase {
		return &reNode{op: reSet, set: allCases(c)}
	}
	return &reNode{op: reSet, set: runeSet{c, c}}
}

// allCases is PostgreSQL's set for a character matched case-insensitively:
// its lower and upper case forms (not always the character itself).
func allCases(c rune) runeSet {
	return newRuneSet([]rune{unicode.ToLower(c), unicode.ToLower(c), unicode.ToUpper(c), unicode.ToUpper(c)})
}

func (ps *reParser) eof() bool { return ps.i >= len(ps.p) }

func (ps *reParser) peek(k int) rune {
	if ps.i+k < len(ps.p) {
		return ps.p[ps.i+k]
	}
	return -1
}

// skip passes white space and comments in an expanded pattern.
func (ps *reParser) skip() {
	if !ps.o.expanded {
		return
	}
	for ps.i < len(ps.p) {
		switch c := ps.p[ps.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			ps.i++
		case c == '#':
			for ps.i < len(ps.p) && ps.p[ps.i] != '\n' {
				ps.i++
			}
		default:
			return
		}
	}
}

// alternation reads branches separated by '|', up to a ')' or the end.
func (ps *reParser) alternation() (*reNode, error) {
	var branches []*reNode
	for {
		b, err := ps.branch()
		if err != nil {
			return nil, err
		}
		branches = append(branches, b)
		ps.skip()
		if ps.eof() || ps.p[ps.i] != '|' {
			break
		}
		ps.i++
	}
	if len(branches) == 1 {
		return branches[0], nil
	}
	return &reNode{op: reAlt, subs: branches}, nil
}

func (ps *reParser) branch() (*reNode, error) {
	var subs []*reNode
	for {
		ps.skip()
		if ps.eof() || ps.p[ps.i] == '|' || ps.p[ps.i] == ')' {
			return concatOf(subs), nil
		}
		n, quantifiable, err := ps.atom()
		if err != nil {
			return nil, err
		}
		if n == nil { // a comment
			continue
		}
		if n, err = ps.quantifier(n, quantifiable); err != nil {
			return nil, err
		}
		subs = append(subs, n)
	}
}

// isQuantifier says whether a quantifier starts at the current position.
func (ps *reParser) isQuantifier() bool {
	switch ps.peek(0) {
	case '*', '+', '?':
		return true
	case '{':
		c := ps.peek(1)
		return c >= '0' && c <= '9'
	}
	return false
}

// quantifier reads the quantifier after atom n, when there.
func (ps *reParser) quantifier(n *reNode, quantifiable bool) (*reNode, error) {
	ps.skip()
	if !ps.isQuantifier() {
		return n, nil
	}
	if !quantifiable {
		return nil, reError(reErrBadRpt)
	}
	r := &reNode{op: reRepeat, subs: []*reNode{n}}
	switch ps.p[ps.i] {
	case '*':
		r.min, r.max = 0, -1
		ps.i++
	case '+':
		r.min, r.max = 1, -1
		ps.i++
	case '?':
		r.min, r.max = 0, 1
		ps.i++
	case '{':
		if err := ps.bound(r); err != nil {
			return nil, err
		}
	}
	if ps.peek(0) == '?' {
		r.lazy = true
		ps.i++
	}
	ps.skip()
	if ps.isQuantifier() {
		return nil, reError(reErrBadRpt)
	}
	return r, nil
}

// bound reads {m}, {m,} or {m,n}.
func (ps *reParser) bound(r *reNode) error {
	ps.i++ // '{'
	num := func() (int, bool) {
		ps.skip()
		v, ok := 0, false
		for ps.i < len(ps.p) && ps.p[ps.i] >= '0' && ps.p[ps.i] <= '9' {
			if v <= reDupMax {
				v = v*10 + int(ps.p[ps.i]-'0')
			}
			ps.i++
			ok = true
		}
		ps.skip()
		return v, ok
	}
	m, _ := num()
	n := m
	r.fixed = true
	if ps.peek(0) == ',' {
		ps.i++
		r.fixed = false
		var ok bool
		if n, ok = num(); !ok {
			n = -1
		}
	}
	if ps.eof() {
		return reError(reErrBrace)
	}
	if ps.p[ps.i] != '}' || m > reDupMax || n > reDupMax || (n >= 0 && m > n) {
		return reError(reErrBadBound)
	}
	ps.i++
	r.min, r.max = m, n
	return nil
}

// atom reads one atom; quantifiable says whether a quantifier may follow
// it (not after a constraint). A nil node is a comment.
func (ps *reParser) atom() (*reNode, bool, error) {
	c := ps.p[ps.i]
	switch c {
	case '(':
		return ps.group()
	case '.':
		ps.i++
		if ps.o.noDotNL {
			return &reNode{op: reSet, set: runeSet{0, '\n' - 1, '\n' + 1, unicode.MaxRune}}, true, nil
		}
		return &reNode{op: reSet, set: runeSet{0, unicode.MaxRune}}, true, nil
	case '[':
		if w, ok := ps.wordBracket(); ok { // [[:<:]] or [[:>:]]
			return w, false, nil
		}
		ps.i++
		set, err := ps.bracket()
		return &reNode{op: reSet, set: set}, true, err
	case '\\':
		return ps.escape()
	case '^':
		ps.i++
		if ps.o.multiline {
			ps.hasBOL = true
			return &reNode{op: reAssert, kind: aBOL}, false, nil
		}
		ps.hasBOT = true
		return &reNode{op: reAssert, kind: aBOT}, false, nil
	case '$':
		ps.i++
		if ps.o.multiline {
			return &reNode{op: reAssert, kind: aEOL}, false, nil
		}
		return &reNode{op: reAssert, kind: aEOT}, false, nil
	case '*', '+', '?':
		return nil, false, reError(reErrBadRpt)
	case '{':
		if ps.isQuantifier() {
			return nil, false, reError(reErrBadRpt)
		}
	}
	ps.i++
	return ps.char(c), true, nil
}

// group reads a parenthesized subexpression or constraint.
func (ps *reParser) group() (*reNode, bool, error) {
	start := ps.i
	ps.i++ // '('
	var n *reNode
	switch {
	case ps.peek(0) == '?' && ps.peek(1) == '#':
		for ps.i < len(ps.p) && ps.p[ps.i] != ')' {
			ps.i++
		}
		ps.i = min(ps.i+1, len(ps.p))
		return nil, false, nil
	case ps.peek(0) == '?' && ps.peek(1) == ':':
		ps.i += 2
		sub, err := ps.sub()
		if err == nil && sub.op == reBackref {
			// A quantifier applies to the group, not to the back
			// reference itself (see the reRepeat case of btMatcher.match).
			sub = &reNode{op: reConcat, subs: []*reNode{sub}}
		}
		return sub, true, err
	case ps.peek(0) == '?' && (ps.peek(1) == '=' || ps.peek(1) == '!'):
		n = &reNode{op: reLook, neg: ps.peek(1) == '!'}
		ps.i += 2
	case ps.peek(0) == '?' && ps.peek(1) == '<' && (ps.peek(2) == '=' || ps.peek(2) == '!'):
		n = &reNode{op: reLook, behind: true, neg: ps.peek(2) == '!'}
		ps.i += 3
	case ps.peek(0) == '?' && start == ps.optStart() && unicode.IsLetter(ps.peek(1)):
		ps.i = start
		if err := ps.embeddedOptions(); err != nil {
			return nil, false, err
		}
		if ps.o.literal {
			return ps.literal(), true, nil
		}
		return &reNode{op: reEmpty}, false, nil
	default:
		if ps.inLook > 0 { // groups in a constraint do not capture
			sub, err := ps.sub()
			return sub, true, err
		}
		ps.nopen++
		g := &reNode{op: reGroup, cap: ps.nopen}
		sub, err := ps.sub()
		if err != nil {
			return nil, false, err
		}
		g.subs = []*reNode{sub}
		ps.closed[g.cap] = true
		return g, true, nil
	}
	ps.hasLook = true
	ps.inLook++
	sub, err := ps.sub()
	ps.inLook--
	if err != nil {
		return nil, false, err
	}
	n.subs = []*reNode{sub}
	return n, false, nil
}

// optStart is where embedded options may be: the pattern's start, after
// a "***:" director.
func (ps *reParser) optStart() int {
	if len(ps.p) >= 4 && string(ps.p[:4]) == "***:" {
		return 4
	}
	return 0
}

// sub reads the inside of a group and its ')'.
func (ps *reParser) sub() (*reNode, error) {
	n, err := ps.alternation()
	if err != nil {
		return nil, err
	}
	if ps.eof() || ps.p[ps.i] != ')' {
		return nil, reError(reErrParen)
	}
	ps.i++
	return n, nil
}

// escape reads an escape outside a bracket expression.
func (ps *reParser) escape() (*reNode, bool, error) {
	ps.i++ // '\\'
	if ps.eof() {
		return nil, false, reError(reErrEscape)
	}
	c := ps.p[ps.i]
	switch c {
	case 'A':
		ps.i++
		ps.hasBOT = true
		return &reNode{op: reAssert, kind: aBOT}, false, nil
	case 'Z':
		ps.i++
		return &reNode{op: reAssert, kind: aEOT}, false, nil
	case 'm', 'M', 'y', 'Y':
		ps.i++
		ps.hasWord = true
		k := map[rune]reAssertKind{'m': aWordBeg, 'M': aWordEnd, 'y': aWordB, 'Y': aNotWordB}[c]
		return &reNode{op: reAssert, kind: k}, false, nil
	case 'd', 's', 'w', 'D', 'S', 'W':
		ps.i++
		return &reNode{op: reSet, set: shorthandSet(c)}, true, nil
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		save := ps.i
		j := ps.i
		v := 0
		for j < len(ps.p) && ps.p[j] >= '0' && ps.p[j] <= '9' && j-save < 255 {
			if v <= 1<<20 {
				v = v*10 + int(ps.p[j]-'0')
			}
			j++
		}
		if j == save+1 || v <= ps.nopen {
			ps.i = j
			if ps.inLook > 0 || !ps.closed[v] {
				return nil, false, reError(reErrBackref)
			}
			ps.hasBack = true
			return &reNode{op: reBackref, cap: v}, true, nil
		}
		// Not a back reference: an octal escape.
	}
	r, err := ps.charEscape()
	if err != nil {
		return nil, false, err
	}
	return ps.char(r), true, nil
}

// charEscape reads a character-entry escape (after the backslash), or a
// backslash followed by a character that is not a letter or digit.
func (ps *reParser) charEscape() (rune, error) {
	c := ps.p[ps.i]
	ps.i++
	switch c {
	case 'a':
		return 7, nil
	case 'b':
		return 8, nil
	case 'B':
		return '\\', nil
	case 'c':
		if ps.eof() {
			return 0, reError(reErrEscape)
		}
		c = ps.p[ps.i]
		ps.i++
		return c & 037, nil
	case 'e':
		return 033, nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'u':
		return ps.digits(16, 4, 4)
	case 'U':
		return ps.digits(16, 8, 8)
	case 'x':
		return ps.digits(16, 1, 255)
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		ps.i--
		if c >= '8' {
			return 0, reError(reErrEscape)
		}
		v, err := ps.digits(8, 1, 3)
		if err == nil && v > 0xff { // one digit too many
			ps.i--
			v >>= 3
		}
		return v, err
	}
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return 0, reError(reErrEscape)
	}
	return c, nil
}

// digits reads lo to hi digits in base b.
func (ps *reParser) digits(b int, lo, hi int) (rune, error) {
	v, n := 0, 0
	for n < hi && ps.i < len(ps.p) {
		d := digitVal(ps.p[ps.i])
		if d < 0 || d >= b {
			break
		}
		if v <= unicode.MaxRune {
			v = v*b + d
		}
		ps.i++
		n++
	}
	if n < lo || v > unicode.MaxRune {
		return 0, reError(reErrEscape)
	}
	return rune(v), nil
}

func digitVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// shorthandSet is the set of \d \s \w \D \S \W.
func shorthandSet(c rune) runeSet {
	switch c {
	case 'd':
		return classSet("digit")
	case 's':
		return classSet("space")
	case 'w':
		return classSet("word")
	case 'D':
		return classSet("digit").complement()
	case 'S':
		return classSet("space").complement()
	}
	return classSet("word").complement()
}

// bracket reads a bracket expression after its '['.
func (ps *reParser) bracket() (runeSet, error) {
	neg := false
	if ps.peek(0) == '^' {
		neg = true
		ps.i++
	}
	var acc []rune
	first := true
	for {
		if ps.eof() {
			return nil, reError(reErrBracket)
		}
		c := ps.p[ps.i]
		if c == ']' && !first {
			ps.i++
			break
		}
		first = false
		// One element: a character (which may start a range), a class,
		// or a class shorthand.
		lo, single, set, err := ps.bracketElem()
		if err != nil {
			return nil, err
		}
		if set != nil {
			if ps.peek(0) == '-' && ps.peek(1) != ']' && ps.peek(1) != -1 {
				return nil, reError(reErrRange)
			}
			acc = append(acc, set...)
			continue
		}
		if ps.peek(0) == '-' && ps.peek(1) != ']' && ps.peek(1) != -1 {
			ps.i++
			hi, _, hset, err := ps.bracketElem()
			if err != nil {
				return nil, err
			}
			if hset != nil || hi < lo {
				return nil, reError(reErrRange)
			}
			if ps.peek(0) == '-' && ps.peek(1) != ']' && ps.peek(1) != -1 {
				return nil, reError(reErrRange)
			}
			acc = append(acc, lo, hi)
			if ps.o.icase {
				acc = appendCaseForms(acc, lo, hi)
			}
			continue
		}
		switch {
		case !ps.o.icase:
			acc = append(acc, lo, lo)
		case single:
			acc = append(acc, allCases(lo)...)
		default: // a collating element: a range of one
			acc = append(acc, lo, lo)
			acc = appendCaseForms(acc, lo, lo)
		}
	}
	set := newRuneSet(acc)
	if neg {
		set = set.complement()
		if ps.o.noDotNL {
			set = set.minus(runeSet{'\n', '\n'})
		}
	}
	return set, nil
}

// bracketElem reads an element of a bracket expression: a character lo
// (single when it is a plain character, not a collating element), or a
// set (a class or a class shorthand).
func (ps *reParser) bracketElem() (lo rune, single bool, set runeSet, err error) {
	c := ps.p[ps.i]
	if c == '[' && (ps.peek(1) == ':' || ps.peek(1) == '.' || ps.peek(1) == '=') {
		delim := ps.peek(1)
		j := ps.i + 2
		for j+1 < len(ps.p) && !(ps.p[j] == delim && ps.p[j+1] == ']') {
			j++
		}
		if j+1 >= len(ps.p) {
			return 0, false, nil, reError(reErrBracket)
		}
		name := string(ps.p[ps.i+2 : j])
		ps.i = j + 2
		switch delim {
		case ':':
			if ps.o.icase && (name == "upper" || name == "lower") {
				name = "alpha"
			}
			s := classSet(name)
			if s == nil {
				return 0, false, nil, reError(reErrCtype)
			}
			return 0, false, s, nil
		case '=':
			r, ok := collatingElement(name)
			if !ok {
				return 0, false, nil, reError(reErrCollate)
			}
			if ps.o.icase {
				return 0, false, allCases(r), nil
			}
			return 0, false, runeSet{r, r}, nil
		}
		r, ok := collatingElement(name)
		if !ok {
			return 0, false, nil, reError(reErrCollate)
		}
		return r, false, nil, nil
	}
	ps.i++
	if c != '\\' {
		return c, true, nil, nil
	}
	if ps.eof() {
		return 0, false, nil, reError(reErrBracket)
	}
	switch e := ps.p[ps.i]; e {
	case 'd', 's', 'w', 'D', 'S', 'W':
		ps.i++
		return 0, false, shorthandSet(e), nil
	case 'A', 'Z', 'm', 'M', 'y', 'Y', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return 0, false, nil, reError(reErrEscape)
	}
	r, err := ps.charEscape()
	return r, true, nil, err
}

// appendCaseForms adds the case forms of the characters lo..hi.
func appendCaseForms(acc []rune, lo, hi rune) []rune {
	add := func(c rune) {
		if l := unicode.ToLower(c); l != c {
			acc = append(acc, l, l)
		}
		if u := unicode.ToUpper(c); u != c {
			acc = append(acc, u, u)
		}
	}
	if hi-lo < 512 {
		for c := lo; c <= hi; c++ {
			add(c)
		}
		return acc
	}
	for _, cr := range unicode.CaseRanges {
		a, b := max(rune(cr.Lo), lo), min(rune(cr.Hi), hi)
		for c := a; c <= b; c++ {
			add(c)
		}
	}
	return acc
}

// collatingElement is the character a [.name.] or [=name=] names: a
// single character, or one of PostgreSQL's ASCII names.
func collatingElement(name string) (rune, bool) {
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return r, true
	}
	r, ok := collatingNames[name]
	return r, ok
}

// collatingNames are PostgreSQL's names of ASCII characters (cnames in
// regc_locale.c).
var collatingNames = func() map[string]rune {
	m := map[string]rune{}
	ctl := strings.Fields("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US")
	for i, n := range ctl {
		m[n] = rune(i)
	}
	for n, c := range map[string]rune{"alert": 7, "backspace": 8, "tab": 9, "newline": 10, "vertical-tab": 11,
		"form-feed": 12, "carriage-return": 13, "IS4": 034, "IS3": 035, "IS2": 036, "IS1": 037, "space": ' ',
		"exclamation-mark": '!', "quotation-mark": '"', "number-sign": '#', "dollar-sign": '$', "percent-sign": '%',
		"ampersand": '&', "apostrophe": '\'', "left-parenthesis": '(', "right-parenthesis": ')', "asterisk": '*',
		"plus-sign": '+', "comma": ',', "hyphen": '-', "hyphen-minus": '-', "period": '.', "full-stop": '.',
		"slash": '/', "solidus": '/', "zero": '0', "one": '1', "two": '2', "three": '3', "four": '4', "five": '5',
		"six": '6', "seven": '7', "eight": '8', "nine": '9', "colon": ':', "semicolon": ';', "less-than-sign": '<',
		"equals-sign": '=', "greater-than-sign": '>', "question-mark": '?', "commercial-at": '@',
		"left-square-bracket": '[', "backslash": '\\', "reverse-solidus": '\\', "right-square-bracket": ']',
		"circumflex": '^', "circumflex-accent": '^', "underscore": '_', "low-line": '_', "grave-accent": '`',
		"left-brace": '{', "left-curly-bracket": '{', "vertical-line": '|', "right-brace": '}',
		"right-curly-bracket": '}', "tilde": '~', "DEL": 0177} {
		m[n] = c
	}
	return m
}()

// analyze fills in the analysis fields of n and its subtree.
func analyze(n *reNode) {
	for _, s := range n.subs {
		analyze(s)
	}
	n.mono = true
	switch n.op {
	case reEmpty, reAssert, reLook:
		n.width, n.empty = 0, true
	case reSet:
		n.width = 1
	case reBackref:
		n.width, n.empty = -1, true
	case reGroup:
		s := n.subs[0]
		n.width, n.greed, n.mono, n.empty = s.width, s.greed, s.mono, s.empty
		n.hasCap, n.optCap = true, s.optCap
	case reConcat:
		n.width, n.empty = 0, true
		var variable []*reNode
		for _, s := range n.subs {
			if n.greed == greedNone {
				n.greed = s.greed
			}
			n.hasCap = n.hasCap || s.hasCap
			n.optCap = n.optCap || s.optCap
			n.empty = n.empty && s.empty
			if s.width < 0 {
				variable = append(variable, s)
			} else if n.width >= 0 {
				n.width += s.width
			}
			n.mono = n.mono && s.mono
		}
		if len(variable) > 0 {
			n.width = -1
		}
		if len(variable) > 1 || len(variable) == 1 && variable[0].longest() != n.longest() {
			n.mono = false
		}
	case reAlt:
		n.greed = greedLong
		n.width = n.subs[0].width
		for _, s := range n.subs {
			if s.width != n.width {
				n.width = -1
			}
			n.hasCap = n.hasCap || s.hasCap
			n.mono = n.mono && s.mono
			n.empty = n.empty || s.empty
		}
		n.optCap = n.hasCap
		if n.width < 0 {
			n.mono = false
		}
	case reRepeat:
		s := n.subs[0]
		switch {
		case n.fixed:
			n.greed = s.greed
		case n.lazy:
			n.greed = greedShort
		default:
			n.greed = greedLong
		}
		n.hasCap = s.hasCap
		n.optCap = s.optCap || (s.hasCap && n.min == 0)
		n.empty = n.min == 0 || s.empty
		n.caps = groupsIn(s, nil)
		n.simple = s.op == reSet
		switch {
		case n.max == 0:
			n.width = 0
		case n.min == n.max && s.width >= 0:
			n.width = n.min * s.width
			n.mono = s.mono
		case n.min == n.max:
			n.width = -1
			n.mono = n.max == 1 && s.mono
		default:
			n.width = -1
			n.mono = s.width > 0 && s.mono && !s.optCap
		}
	}
}

// groupsIn appends the capturing groups inside n.
func groupsIn(n *reNode, acc []int) []int {
	if n.op == reGroup {
		acc = append(acc, n.cap)
	}
	for _, s := range n.subs {
		acc = groupsIn(s, acc)
	}
	return acc
}

// allMono says whether every node of n's subtree (n itself too, when
// self) yields its ends in preference order.
func allMono(n *reNode, self bool) bool {
	if self && !n.mono {
		return false
	}
	for _, s := range n.subs {
		if !allMono(s, true) {
			return false
		}
	}
	return true
}

// capsDiffer says whether RE2 may capture otherwise than PostgreSQL in a
// repetition in n's subtree: when an iteration may leave a group unset
// (PostgreSQL clears it, RE2 keeps what an earlier iteration captured),
// or when the repeated part has a group and can match the empty string
// (the backtracker follows PostgreSQL on empty iterations).
func capsDiffer(n *reNode) bool {
	if n.op == reRepeat {
		s := n.subs[0]
		if n.max != 1 && s.optCap || s.hasCap && s.empty {
			return true
		}
	}
	for _, s := range n.subs {
		if capsDiffer(s) {
			return true
		}
	}
	return false
}

// goEmitter writes a pattern in Go's regexp syntax (RE2).
type goEmitter struct {
	b strings.Builder
	// noStart makes \A (and ^ not newline-sensitive) never match.
	noStart bool
	// approx writes, for a pattern RE2 cannot run, one that matches
	// wherever it may (and more): a back reference as what its group
	// matches (as anything when case-insensitive), a constraint RE2 does
	// not have as always true.
	approx bool
	icase  bool
	groups map[int]*reNode
}

// goSyntax is the pattern of syn for Go's regexp.
func goSyntax(syn *reSyntax, noStart, approx bool) string {
	e := &goEmitter{noStart: noStart, approx: approx, icase: syn.icase, groups: map[int]*reNode{}}
	e.emit(syn.root)
	return e.b.String()
}

func (e *goEmitter) emit(n *reNode) {
	b := &e.b
	switch n.op {
	case reEmpty:
		b.WriteString("(?:)")
	case reSet:
		n.set.goSyntax(b)
	case reConcat:
		b.WriteString("(?:")
		for _, s := range n.subs {
			e.emit(s)
		}
		b.WriteString(")")
	case reAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			e.emit(s)
		}
		b.WriteString(")")
	case reGroup:
		e.groups[n.cap] = n.subs[0]
		if e.approx {
			b.WriteString("(?:")
		} else {
			b.WriteByte('(')
		}
		e.emit(n.subs[0])
		b.WriteByte(')')
	case reRepeat:
		b.WriteString("(?:")
		e.emit(n.subs[0])
		b.WriteByte(')')
		b.WriteByte('{')
		b.WriteString(strconv.Itoa(n.min))
		b.WriteByte(',')
		if n.max >= 0 {
			b.WriteString(strconv.Itoa(n.max))
		}
		b.WriteByte('}')
		if n.lazy {
			b.WriteByte('?')
		}
	case reBackref:
		if g := e.groups[n.cap]; g != nil && !e.icase {
			b.WriteString("(?:")
			e.emit(g)
			b.WriteByte(')')
		} else {
			b.WriteString(`(?s:.*)`)
		}
	case reLook:
		b.WriteString("(?:)")
	case reAssert:
		switch n.kind {
		case aBOT:
			if e.noStart {
				b.WriteString(`[^\x00-\x{10FFFF}]`)
			} else {
				b.WriteString(`\A`)
			}
		case aEOT:
			b.WriteString(`\z`)
		case aBOL:
			b.WriteString(`(?m:^)`)
		case aEOL:
			b.WriteString(`(?m:$)`)
		default: // a word constraint (approx only)
			b.WriteString("(?:)")
		}
	}
}

// wordBracket reads [[:<:]] (\m) or [[:>:]] (\M) at the current '['.
func (ps *reParser) wordBracket() (*reNode, bool) {
	if ps.i+7 > len(ps.p) {
		return nil, false
	}
	q := ps.p[ps.i : ps.i+7]
	if q[1] != '[' || q[2] != ':' || (q[3] != '<' && q[3] != '>') || q[4] != ':' || q[5] != ']' || q[6] != ']' {
		return nil, false
	}
	ps.i += 7
	ps.hasWord = true
	if q[3] == '<' {
		return &reNode{op: reAssert, kind: aWordBeg}, true
	}
	return &reNode{op: reAssert, kind: aWordEnd}, true
}
