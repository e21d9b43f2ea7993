package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// PostgreSQL's other flavors of regular expressions besides AREs: basic
// (BREs) and extended (EREs) ones, chosen by the b and e flags of the
// regexp functions or the b and e embedded options, and the literal
// strings of the q flag, the q option and the ***= director. A BRE or an
// ERE is translated into the ARE that means the same (translateBRE,
// translateERE), which parseRegex then reads.
//
// As in PostgreSQL 15, the e flag of the functions (parse_re_flags)
// selects BREs, not EREs: it sets REG_EXTENDED and then clears
// REG_ADVANCED, which includes it. The (?e) embedded option does select
// EREs.

// reFlavor is the flavor of a pattern.
type reFlavor uint8

const (
	flavorARE reFlavor = iota
	flavorERE
	flavorBRE
)

const (
	reErrBadPat = "invalid regexp (reg version 0.8)"
	reErrInvArg = "invalid argument to regex function"
)

// parseRegexFlags reads a flags argument; global says whether the 'g'
// flag is allowed (fn names the function for the error when it is not).
// It follows PostgreSQL's parse_re_flags over the cflags bits, and
// pg_regcomp's check that a literal pattern has no other syntax flags.
func parseRegexFlags(flags, fn string, global bool) (o regexOpts, g bool, err error) {
	for _, c := range flags {
		switch c {
		case 'g':
			if !global {
				e := pgerr.New(pgerr.InvalidParameterValue, "%s does not support the \"global\" option", fn)
				if fn == "regexp_match()" {
					e.Hint = "Use the regexp_matches function instead."
				}
				return o, false, e
			}
			g = true
		case 'b', 'e': // see above: e is b
			o.flavor, o.literal = flavorBRE, false
		case 'i':
			o.icase = true
		case 'c':
			o.icase = false
		case 'n', 'm':
			o.noDotNL, o.multiline = true, true
		case 'p':
			o.noDotNL, o.multiline = true, false
		case 'w':
			o.noDotNL, o.multiline = false, true
		case 's':
			o.noDotNL, o.multiline = false, false
		case 'q':
			o.literal, o.flavor = true, flavorBRE
		case 'x':
			o.expanded = true
		case 't':
			o.expanded = false
		default:
			return o, false, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	if o.literal && (o.expanded || o.noDotNL || o.multiline) {
		return o, false, reError(reErrInvArg)
	}
	return o, g, nil
}

// resolveFlavor reads the start of pattern as PostgreSQL's prefixes()
// does under options o (the *** directors, then an ARE's embedded
// options), and when the pattern is a BRE or an ERE (or its options make
// it a literal string) returns the ARE (or literal) pattern and options
// parseRegex reads instead; otherwise the pattern and options are
// returned as they are, for parseRegex to read as an ARE.
func resolveFlavor(pattern string, o regexOpts) (string, regexOpts, error) {
	if o.literal {
		return pattern, o, nil
	}
	p := []rune(pattern)
	i := 0
	director := false
	if len(p) >= 4 && p[0] == '*' && p[1] == '*' && p[2] == '*' {
		switch p[3] {
		case '?':
			return "", o, reError(reErrBadPat)
		case '=':
			o.literal, o.expanded, o.noDotNL, o.multiline = true, false, false, false
			return string(p[4:]), o, nil
		case ':':
			o.flavor = flavorARE
			i = 4
			director = true
		default:
			return "", o, reError(reErrBadRpt)
		}
	}
	if o.flavor == flavorARE {
		if !(len(p) >= i+3 && p[i] == '(' && p[i+1] == '?' && isASCIIAlpha(p[i+2])) {
			return pattern, o, nil
		}
		j := i + 2
		n := o
		switched := false
		for ; j < len(p) && isASCIIAlpha(p[j]); j++ {
			switch p[j] {
			case 'b':
				n.flavor, n.literal, switched = flavorBRE, false, true
			case 'e':
				n.flavor, n.literal, switched = flavorERE, false, true
			case 'q':
				n.literal = true
				if n.flavor == flavorARE {
					n.flavor = flavorBRE
				}
			case 'c':
				n.icase = false
			case 'i':
				n.icase = true
			case 'm', 'n':
				n.noDotNL, n.multiline = true, true
			case 'p':
				n.noDotNL, n.multiline = true, false
			case 's':
				n.noDotNL, n.multiline = false, false
			case 't':
				n.expanded = false
			case 'w':
				n.noDotNL, n.multiline = false, true
			case 'x':
				n.expanded = true
			default:
				return "", o, reError(reErrOpt)
			}
		}
		if j >= len(p) || p[j] != ')' {
			return "", o, reError(reErrOpt)
		}
		if !switched {
			if director {
				o.flavor = flavorARE
			}
			return pattern, o, nil // the ARE parser reads them
		}
		if n.literal {
			n.expanded, n.noDotNL, n.multiline = false, false, false
		}
		o, i = n, j+1
		if o.literal {
			return string(p[i:]), o, nil
		}
	}
	var are string
	var err error
	if o.flavor == flavorBRE {
		are, err = translateBRE(p[i:], o.expanded)
	} else {
		are, err = translateERE(p[i:], o.expanded)
	}
	o.flavor, o.expanded = flavorARE, false
	return are, o, err
}

func isASCIIAlpha(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isASCIIAlnum(c rune) bool { return isASCIIAlpha(c) || c >= '0' && c <= '9' }

// reTranslator writes the ARE a BRE or an ERE stands for.
type reTranslator struct {
	p        []rune
	i        int
	expanded bool
	b        strings.Builder
	backref  bool // the last thing written is a back reference
}

// literal writes c as a literal character.
func (t *reTranslator) literal(c rune) {
	switch {
	case c >= '0' && c <= '9' && t.backref:
		t.b.WriteString("[" + string(c) + "]") // not more digits of \N
	case c < 0x80 && !isASCIIAlnum(c):
		t.b.WriteByte('\\')
		t.b.WriteRune(c)
	default:
		t.b.WriteRune(c)
	}
	t.backref = false
}

func (t *reTranslator) write(s string) {
	t.b.WriteString(s)
	t.backref = false
}

// skip passes white space and comments when the pattern is expanded.
func (t *reTranslator) skip() {
	if !t.expanded {
		return
	}
	for t.i < len(t.p) {
		switch c := t.p[t.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			t.i++
		case c == '#':
			for t.i < len(t.p) && t.p[t.i] != '\n' {
				t.i++
			}
		default:
			return
		}
	}
}

func (t *reTranslator) peek(k int) rune {
	if t.i+k < len(t.p) {
		return t.p[t.i+k]
	}
	return -1
}

// wordBoundary writes [[:<:]] or [[:>:]] at the current '[' as \m or \M.
func (t *reTranslator) wordBoundary() bool {
	if t.i+7 > len(t.p) {
		return false
	}
	q := t.p[t.i : t.i+7]
	if q[1] != '[' || q[2] != ':' || (q[3] != '<' && q[3] != '>') || q[4] != ':' || q[5] != ']' || q[6] != ']' {
		return false
	}
	if q[3] == '<' {
		t.write(`\m`)
	} else {
		t.write(`\M`)
	}
	t.i += 7
	return true
}

// bracket copies the bracket expression at the current '[', its
// backslashes (ordinary characters in BREs and EREs) escaped for an ARE.
func (t *reTranslator) bracket() {
	t.b.WriteByte('[')
	t.i++
	if t.peek(0) == '^' {
		t.b.WriteByte('^')
		t.i++
	}
	first := true
	for t.i < len(t.p) {
		c := t.p[t.i]
		switch {
		case c == ']' && !first:
			t.b.WriteByte(']')
			t.i++
			t.backref = false
			return
		case c == '[' && (t.peek(1) == ':' || t.peek(1) == '.' || t.peek(1) == '='):
			delim := t.peek(1)
			j := t.i + 2
			for j+1 < len(t.p) && !(t.p[j] == delim && t.p[j+1] == ']') {
				j++
			}
			end := min(j+2, len(t.p))
			t.b.WriteString(string(t.p[t.i:end]))
			t.i = end
		case c == '\\':
			t.b.WriteString(`\\`)
			t.i++
		default:
			t.b.WriteRune(c)
			t.i++
		}
		first = false
	}
	t.backref = false // unbalanced: the ARE parser says so
}

// translateERE translates an ERE: backslash escapes are the escaped
// character, a backslash in a bracket expression is itself, and there
// are no non-greedy quantifiers, (?...) groups or constraints.
func translateERE(p []rune, expanded bool) (string, error) {
	t := &reTranslator{p: p, expanded: expanded}
	quantified := false // the last token is a quantifier
	for {
		t.skip()
		if t.i >= len(t.p) {
			break
		}
		c := t.p[t.i]
		wasQuant := quantified
		quantified = false
		switch c {
		case '\\':
			if t.i+1 >= len(t.p) {
				return "", reError(reErrEscape)
			}
			t.literal(t.p[t.i+1])
			t.i += 2
		case '[':
			if !t.wordBoundary() {
				t.bracket()
			}
		case '(':
			t.write("(")
			t.i++
			t.skip()
			if t.peek(0) == '?' {
				return "", reError(reErrBadRpt)
			}
		case '?':
			if wasQuant {
				return "", reError(reErrBadRpt)
			}
			t.write("?")
			t.i++
			quantified = true
		case '*', '+':
			t.write(string(c))
			t.i++
			quantified = true
		case '{':
			if d := t.peek(1); d < '0' || d > '9' {
				t.literal('{')
				t.i++
				break
			}
			for t.i < len(t.p) && t.p[t.i] != '}' {
				if c := t.p[t.i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' || !t.expanded {
					t.b.WriteRune(c)
				}
				t.i++
			}
			if t.i < len(t.p) {
				t.b.WriteByte('}')
				t.i++
			}
			t.backref = false
			quantified = true
		default:
			t.b.WriteRune(c)
			t.i++
			t.backref = false
		}
	}
	return t.b.String(), nil
}

// translateBRE translates a BRE: \( \) group, \{ \} bound, \1 to \9 are
// back references and \< \> word constraints; | + ? ( ) { } are
// ordinary; ^ is an anchor only at the start of the pattern or of a
// group, $ only at its end, and * is ordinary there (after a leading ^).
func translateBRE(p []rune, expanded bool) (string, error) {
	t := &reTranslator{p: p, expanded: expanded}
	const (
		lastEmpty = iota
		lastOpen
		lastBOL
		lastOther
	)
	last := lastEmpty
	for {
		t.skip()
		if t.i >= len(t.p) {
			break
		}
		c := t.p[t.i]
		switch c {
		case '\\':
			if t.i+1 >= len(t.p) {
				return "", reError(reErrEscape)
			}
			d := t.p[t.i+1]
			t.i += 2
			switch {
			case d == '(':
				t.write("(")
				last = lastOpen
				continue
			case d == ')':
				t.write(")")
			case d == '{':
				if err := t.breBound(); err != nil {
					return "", err
				}
			case d == '<':
				t.write(`\m`)
			case d == '>':
				t.write(`\M`)
			case d >= '1' && d <= '9':
				t.write(`\` + string(d))
				t.backref = true
			default:
				t.literal(d)
			}
		case '[':
			if !t.wordBoundary() {
				t.bracket()
			}
		case '*':
			if last == lastEmpty || last == lastOpen || last == lastBOL {
				t.literal('*')
			} else {
				t.write("*")
			}
			t.i++
		case '^':
			t.i++
			if last == lastEmpty || last == lastOpen {
				t.write("^")
				last = lastBOL
				continue
			}
			t.literal('^')
		case '$':
			t.i++
			t.skip()
			if t.i >= len(t.p) || t.peek(0) == '\\' && t.peek(1) == ')' {
				t.write("$")
			} else {
				t.literal('$')
			}
		case '.':
			t.write(".")
			t.i++
		default:
			t.literal(c)
			t.i++
		}
		last = lastOther
	}
	return t.b.String(), nil
}

// breBound reads a BRE's bound after its \{: m, m, or m,n (m 0 when
// missing), then \}.
func (t *reTranslator) breBound() error {
	num := func() (string, bool) {
		t.skip()
		start := t.i
		for t.i < len(t.p) && t.p[t.i] >= '0' && t.p[t.i] <= '9' {
			t.i++
		}
		digits := string(t.p[start:t.i])
		t.skip()
		return digits, digits != ""
	}
	m, ok := num()
	if !ok {
		m = "0"
	}
	bound := m
	if t.peek(0) == ',' {
		t.i++
		n, _ := num()
		bound += "," + n
	}
	if t.peek(0) != '\\' || t.peek(1) != '}' {
		return reError(reErrBadBound)
	}
	t.i += 2
	t.write("{" + bound + "}")
	return nil
}
