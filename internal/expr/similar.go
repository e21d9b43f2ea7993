package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// SQL regular expressions, as PostgreSQL 15 has them: a SIMILAR TO p
// [ESCAPE e] is a ~ similar_to_escape(p [, e]) (the binder builds it so,
// as PostgreSQL's parser does), and substring(s SIMILAR p ESCAPE e) (or
// substring(s FROM p FOR e)) is substring(text, text, text).
//
// similar_to_escape translates the SQL pattern into a POSIX one with
// PostgreSQL's rules: % is .*, _ is ., the escape character (backslash
// by default, none when it is '') quotes the next character, and the
// result is anchored at both ends. Two escape-double-quote separators
// (#" with escape #) split the pattern into three parts; substring
// returns the text the middle part matches, with the first part
// matching as little and the middle part as much as it can.

func init() {
	register(overloads(
		fn1(tText, tText, func(a []types.Datum) (types.Datum, error) {
			return similarRegex(a[0].(string), nil)
		}),
		fn2(tText, tText, tText, func(a []types.Datum) (types.Datum, error) {
			esc := a[1].(string)
			return similarRegex(a[0].(string), &esc)
		}),
	), "similar_to_escape")
	register(lax(overloads(fn2(tText, tText, tText, similarEscape))), "similar_escape")
}

// lax makes the calls b builds non-strict: their function sees NULL
// arguments.
func lax(b funcBuilder) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		e, err := b(name, args)
		if c, ok := e.(*call); ok {
			n := *c
			n.nonStrict = true
			return &n, err
		}
		return e, err
	}
}

// similarEscape is similar_escape(pattern, escape), the form before
// PostgreSQL 13: a NULL escape means the default one.
func similarEscape(a []types.Datum) (types.Datum, error) {
	if a[0] == nil {
		return nil, nil
	}
	if a[1] == nil {
		return similarRegex(a[0].(string), nil)
	}
	esc := a[1].(string)
	return similarRegex(a[0].(string), &esc)
}

func similarRegex(pattern string, esc *string) (types.Datum, error) {
	parts, err := similarParts(pattern, esc)
	if err != nil {
		return nil, err
	}
	return similarJoin(parts), nil
}

// similarJoin assembles the POSIX pattern from its translated parts, as
// similar_to_escape prints it.
func similarJoin(parts []string) string {
	switch len(parts) {
	case 1:
		return "^(?:" + parts[0] + ")$"
	case 2:
		return "^(?:" + parts[0] + "){1,1}?(" + parts[1] + ")$"
	}
	return "^(?:" + parts[0] + "){1,1}?(" + parts[1] + "){1,1}(?:" + parts[2] + ")$"
}

// similarTranslator translates a SQL pattern one character at a time.
type similarTranslator struct {
	parts        []string
	cur          strings.Builder
	esc          rune // the escape character; -1 for none
	afterEscape  bool
	bracketDepth int // nesting of [ ] (a class, and [: :] inside it)
	classPos     int // 1 just after '[', 2 after "[^", 3 past the start
}

// similarParts translates pattern into the POSIX text of each of its
// parts (one, two or three, split at the escape-double-quotes).
func similarParts(pattern string, esc *string) ([]string, error) {
	t := similarTranslator{esc: '\\'}
	if esc != nil {
		switch utf8.RuneCountInString(*esc) {
		case 0:
			t.esc = -1
		case 1:
			t.esc, _ = utf8.DecodeRuneInString(*esc)
		default:
			e := pgerr.New("22025", "invalid escape string")
			e.Hint = "Escape string must be empty or one character."
			return nil, e
		}
	}
	for _, r := range pattern {
		if err := t.add(r); err != nil {
			return nil, err
		}
	}
	return append(t.parts, t.cur.String()), nil
}

func (t *similarTranslator) add(r rune) error {
	if r >= utf8.RuneSelf && t.esc >= utf8.RuneSelf {
		// PostgreSQL's multibyte path: no class bookkeeping.
		switch {
		case t.afterEscape:
			t.cur.WriteByte('\\')
			t.cur.WriteRune(r)
			t.afterEscape = false
		case r == t.esc:
			t.afterEscape = true
		default:
			t.cur.WriteRune(r)
		}
		return nil
	}
	switch {
	case t.afterEscape:
		t.afterEscape = false
		if r == '"' && t.bracketDepth < 1 {
			return t.separator()
		}
		t.cur.WriteByte('\\')
		t.cur.WriteRune(r)
		t.classPos = 3
	case r == t.esc:
		t.afterEscape = true
	case t.bracketDepth > 0:
		t.inClass(r)
	case r == '[':
		t.cur.WriteByte('[')
		t.bracketDepth, t.classPos = 1, 1
	case r == '%':
		t.cur.WriteString(".*")
	case r == '_':
		t.cur.WriteByte('.')
	case r == '(':
		t.cur.WriteString("(?:")
	case r == '\\' || r == '.' || r == '^' || r == '$':
		t.cur.WriteByte('\\')
		t.cur.WriteRune(r)
	default:
		t.cur.WriteRune(r)
	}
	return nil
}

// inClass copies a character of a bracket expression, finding the ']'
// that ends it: one right after '[' or "[^" is a member.
func (t *similarTranslator) inClass(r rune) {
	if r == '\\' {
		t.cur.WriteByte('\\')
	}
	t.cur.WriteRune(r)
	switch {
	case r == ']' && t.classPos > 2:
		t.bracketDepth--
	case r == '[':
		t.bracketDepth++
		t.classPos = 3
	case r == '^':
		t.classPos++
	default:
		t.classPos = 3
	}
}

// separator ends a part at an escape-double-quote.
func (t *similarTranslator) separator() error {
	if len(t.parts) == 2 {
		return pgerr.New("2200C", "SQL regular expression may not contain more than two escape-double-quote separators")
	}
	t.parts = append(t.parts, t.cur.String())
	t.cur.Reset()
	return nil
}

// similarSubstring is substring(s, pattern, escape): the text the part
// of s between the pattern's escape-double-quotes matches (the whole of
// s when the pattern has none), or NULL when s does not match.
func similarSubstring(a []types.Datum) (types.Datum, error) {
	esc := a[2].(string)
	parts, err := similarParts(a[1].(string), &esc)
	if err != nil {
		return nil, err
	}
	whole, err := compileRegex(similarJoin(parts), regexOpts{})
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	if ok, err := whole.match(s); !ok || err != nil {
		return nil, err
	}
	if len(parts) == 1 {
		return s, nil
	}
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return similarMiddle(s, parts)
}

// similarMiddle finds the middle part's match in s, which the whole
// pattern matches: the first part takes the shortest prefix that lets
// the rest match, then the middle part the longest text that lets the
// last part match the rest.
func similarMiddle(s string, parts []string) (types.Datum, error) {
	var res [4]*pgRegex
	for i, src := range []string{parts[0], parts[1], parts[2], parts[1] + ")(?:" + parts[2]} {
		re, err := compileRegex("^(?:"+src+")$", regexOpts{})
		if err != nil {
			return nil, err
		}
		res[i] = re
	}
	first, middle, last, rest := res[0], res[1], res[2], res[3]
	var err error
	matches := func(re *pgRegex, t string) bool {
		ok, e := re.match(t)
		if e != nil && err == nil {
			err = e
		}
		return ok
	}
	bounds := runeBounds(s)
	for k, i := range bounds {
		if !matches(rest, s[i:]) || !matches(first, s[:i]) {
			continue
		}
		for m := len(bounds) - 1; m >= k && err == nil; m-- {
			j := bounds[m]
			if matches(middle, s[i:j]) && matches(last, s[j:]) {
				return s[i:j], nil
			}
		}
	}
	return nil, err
}

// runeBounds lists the byte offsets of s's character boundaries, 0 and
// len(s) included.
func runeBounds(s string) []int {
	b := make([]int, 0, len(s)+1)
	for i := range s {
		b = append(b, i)
	}
	return append(b, len(s))
}
