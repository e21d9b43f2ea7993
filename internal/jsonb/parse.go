package jsonb

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// The scanner and parser follow PostgreSQL 15's src/common/jsonapi.c
// closely (a recursive-descent parser over a lexer that reports the
// offending token), so that errors carry the same detail and context.

// MaxDepth is the deepest nesting of arrays and objects Parse and
// ValidateJSON accept. PostgreSQL's limit is its stack depth
// (max_stack_depth; about 14500 levels with the default 2MB).
const MaxDepth = 10000

// SQLSTATEs this package uses that package pgerr does not name.
const (
	untranslatableCharacter = "22P05"
	stackDepthExceeded      = "54001"
)

// maxStringLen is jsonb's limit on a string's length (JENTRY_OFFLENMASK).
const maxStringLen = 0x0FFFFFFF

type tokType uint8

const (
	tokInvalid tokType = iota
	tokString
	tokNumber
	tokObjStart
	tokObjEnd
	tokArrStart
	tokArrEnd
	tokComma
	tokColon
	tokTrue
	tokFalse
	tokNull
	tokEnd
)

// errKind is jsonapi.c's JsonParseErrorType.
type errKind uint8

const (
	errEscapingInvalid errKind = iota
	errEscapingRequired
	errExpectedEnd
	errExpectedArrayNext
	errExpectedColon
	errExpectedJSON
	errExpectedMore
	errExpectedObjectFirst
	errExpectedObjectNext
	errExpectedString
	errInvalidToken
	errCodePointZero
	errEscapeFormat
	errHighSurrogate
	errLowSurrogate
)

// lexer is jsonapi.c's JsonLexContext.
type lexer struct {
	in        string
	tokStart  int // -1 at the end of input
	tokEnd    int // the token terminator
	typ       tokType
	line      int
	lineStart int
	decode    bool   // jsonb: de-escape strings (and check \u escapes)
	str       string // the de-escaped value of a string token (decode)
	buf       []byte // scratch for de-escaping
}

// jsonError builds the error PostgreSQL reports for a JSON parse error.
func (l *lexer) jsonError(k errKind) error {
	var detail string
	tok := func() string {
		if l.tokStart < 0 {
			return ""
		}
		return l.in[l.tokStart:l.tokEnd]
	}
	switch k {
	case errEscapingInvalid:
		detail = fmt.Sprintf(`Escape sequence "\%s" is invalid.`, tok())
	case errEscapingRequired:
		detail = fmt.Sprintf("Character with value 0x%02x must be escaped.", l.in[l.tokEnd])
	case errExpectedEnd:
		detail = fmt.Sprintf(`Expected end of input, but found "%s".`, tok())
	case errExpectedArrayNext:
		detail = fmt.Sprintf(`Expected "," or "]", but found "%s".`, tok())
	case errExpectedColon:
		detail = fmt.Sprintf(`Expected ":", but found "%s".`, tok())
	case errExpectedJSON:
		detail = fmt.Sprintf(`Expected JSON value, but found "%s".`, tok())
	case errExpectedMore:
		detail = "The input string ended unexpectedly."
	case errExpectedObjectFirst:
		detail = fmt.Sprintf(`Expected string or "}", but found "%s".`, tok())
	case errExpectedObjectNext:
		detail = fmt.Sprintf(`Expected "," or "}", but found "%s".`, tok())
	case errExpectedString:
		detail = fmt.Sprintf(`Expected string, but found "%s".`, tok())
	case errInvalidToken:
		detail = fmt.Sprintf(`Token "%s" is invalid.`, tok())
	case errCodePointZero:
		detail = `\u0000 cannot be converted to text.`
	case errEscapeFormat:
		detail = `"\u" must be followed by four hexadecimal digits.`
	case errHighSurrogate:
		detail = "Unicode high surrogate must not follow a high surrogate."
	case errLowSurrogate:
		detail = "Unicode low surrogate must follow a high surrogate."
	}
	var e *pgerr.Error
	if k == errCodePointZero {
		e = pgerr.New(untranslatableCharacter, "unsupported Unicode escape sequence")
	} else {
		e = pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type json")
	}
	e.Detail = detail
	e.Where = l.context()
	return e
}

// context is jsonapi.c's report_json_context: the current line up to the
// end of the offending token, cut to about 50 bytes.
func (l *lexer) context() string {
	start := l.lineStart
	end := l.tokEnd
	for end-start >= 50 {
		if l.in[start] >= 0x80 {
			start += mblen(l.in, start)
		} else {
			start++
		}
	}
	if start-l.lineStart <= 3 {
		start = l.lineStart
	}
	prefix, suffix := "", ""
	if start > l.lineStart {
		prefix = "..."
	}
	if l.typ != tokEnd && end < len(l.in) && l.in[end] != '\n' && l.in[end] != '\r' {
		suffix = "..."
	}
	return fmt.Sprintf("JSON data, line %d: %s%s%s", l.line, prefix, l.in[start:end], suffix)
}

// mblen is the length of the UTF-8 character starting at s[i] as
// pg_encoding_mblen_bounded sees it (from the first byte alone), bounded by
// the end of s.
func mblen(s string, i int) int {
	c := s[i]
	n := 1
	switch {
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	if i+n > len(s) {
		n = len(s) - i
	}
	return n
}

// next lexes the token after the current one (json_lex).
func (l *lexer) next() error {
	s := l.tokEnd
	in := l.in
	for s < len(in) {
		c := in[s]
		if c == ' ' || c == '\t' || c == '\r' {
			s++
		} else if c == '\n' {
			s++
			l.line++
			l.lineStart = s
		} else {
			break
		}
	}
	l.tokStart = s
	if s >= len(in) {
		l.tokStart = -1
		l.tokEnd = s
		l.typ = tokEnd
		return nil
	}
	switch c := in[s]; c {
	case '{':
		l.tokEnd, l.typ = s+1, tokObjStart
	case '}':
		l.tokEnd, l.typ = s+1, tokObjEnd
	case '[':
		l.tokEnd, l.typ = s+1, tokArrStart
	case ']':
		l.tokEnd, l.typ = s+1, tokArrEnd
	case ',':
		l.tokEnd, l.typ = s+1, tokComma
	case ':':
		l.tokEnd, l.typ = s+1, tokColon
	case '"':
		if err := l.lexString(s); err != nil {
			return err
		}
		l.typ = tokString
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		i := s
		if c == '-' {
			i++
		}
		end, ok := scanNumber(in, i)
		l.tokEnd = end
		if !ok {
			return l.jsonError(errInvalidToken)
		}
		l.typ = tokNumber
	default:
		p := s
		for p < len(in) && isAlnum(in[p]) {
			p++
		}
		if p == s {
			l.tokEnd = s + 1
			return l.jsonError(errInvalidToken)
		}
		l.tokEnd = p
		switch in[s:p] {
		case "true":
			l.typ = tokTrue
		case "false":
			l.typ = tokFalse
		case "null":
			l.typ = tokNull
		default:
			return l.jsonError(errInvalidToken)
		}
	}
	return nil
}

// lexString lexes the string token starting at the quote at s0
// (json_lex_string). With l.decode it leaves the string's value in l.str.
func (l *lexer) lexString(s0 int) error {
	in := l.in
	// Fast path: a string without escapes.
	s := s0 + 1
	for s < len(in) {
		c := in[s]
		if c == '"' {
			l.tokEnd = s + 1
			l.str = in[s0+1 : s]
			return nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		s++
	}
	failStart := func(s int, k errKind) error {
		l.tokEnd = s
		return l.jsonError(k)
	}
	failEnd := func(s int, k errKind) error {
		l.tokEnd = s + mblen(in, s)
		return l.jsonError(k)
	}
	buf := l.buf[:0]
	if l.decode {
		buf = append(buf, in[s0+1:s]...)
	}
	hi := -1
	s--
	for {
		s++
		if s >= len(in) {
			return failStart(s, errInvalidToken)
		}
		c := in[s]
		if c == '"' {
			break
		}
		if c == '\\' {
			s++
			if s >= len(in) {
				return failStart(s, errInvalidToken)
			}
			if in[s] == 'u' {
				ch := 0
				for i := 0; i < 4; i++ {
					s++
					if s >= len(in) {
						return failStart(s, errInvalidToken)
					}
					h := in[s]
					switch {
					case h >= '0' && h <= '9':
						ch = ch*16 + int(h-'0')
					case h >= 'a' && h <= 'f':
						ch = ch*16 + int(h-'a') + 10
					case h >= 'A' && h <= 'F':
						ch = ch*16 + int(h-'A') + 10
					default:
						return failEnd(s, errEscapeFormat)
					}
				}
				if !l.decode {
					continue
				}
				if ch >= 0xd800 && ch <= 0xdbff {
					if hi != -1 {
						return failEnd(s, errHighSurrogate)
					}
					hi = ch
					continue
				} else if ch >= 0xdc00 && ch <= 0xdfff {
					if hi == -1 {
						return failEnd(s, errLowSurrogate)
					}
					ch = 0x10000 + (hi-0xd800)<<10 + (ch - 0xdc00)
					hi = -1
				}
				if hi != -1 {
					return failEnd(s, errLowSurrogate)
				}
				if ch == 0 {
					return failEnd(s, errCodePointZero)
				}
				buf = utf8.AppendRune(buf, rune(ch))
				continue
			}
			if l.decode {
				if hi != -1 {
					return failEnd(s, errLowSurrogate)
				}
				var r byte
				switch in[s] {
				case '"', '\\', '/':
					r = in[s]
				case 'b':
					r = '\b'
				case 'f':
					r = '\f'
				case 'n':
					r = '\n'
				case 'r':
					r = '\r'
				case 't':
					r = '\t'
				default:
					l.tokStart = s
					return failEnd(s, errEscapingInvalid)
				}
				buf = append(buf, r)
			} else if strings.IndexByte(`"\/bfnrt`, in[s]) < 0 {
				l.tokStart = s
				return failEnd(s, errEscapingInvalid)
			}
			continue
		}
		if c < 0x20 {
			return failStart(s, errEscapingRequired)
		}
		if hi != -1 {
			return failEnd(s, errLowSurrogate)
		}
		p := s + 1
		for ; p < len(in); p++ {
			if c := in[p]; c == '\\' || c == '"' || c < 0x20 {
				break
			}
		}
		if l.decode {
			buf = append(buf, in[s:p]...)
		}
		s = p - 1
	}
	if hi != -1 {
		l.tokEnd = s + 1
		return l.jsonError(errLowSurrogate)
	}
	l.tokEnd = s + 1
	if l.decode {
		l.str = string(buf)
	}
	l.buf = buf
	return nil
}

// parser builds Values (for jsonb) or only checks the input (json).
type parser struct {
	lex   lexer
	build bool
	depth int
	vals  []Value  // stack of the members of the open containers
	keys  []string // stack of the keys of the open objects
	// Arenas the finished containers' slices are cut from, to allocate
	// in chunks rather than per container.
	valArena []Value
	keyArena []string
	conArena []container
}

var parserPool = sync.Pool{New: func() any { return new(parser) }}

const maxChunk = 1024

// chunkSize is the capacity of a new arena chunk that must hold n items,
// after a chunk of capacity last (0 for the first: then guess from the
// input's length, per bytes per item).
func (p *parser) chunkSize(n, last, per int) int {
	c := 2 * last
	if last == 0 {
		c = len(p.lex.in) / per
	}
	return max(min(max(c, 4), maxChunk), n)
}

// allocVals returns a copy of vals cut from the arena.
func (p *parser) allocVals(vals []Value) []Value {
	n := len(vals)
	if n == 0 {
		return nil
	}
	if cap(p.valArena)-len(p.valArena) < n {
		p.valArena = make([]Value, 0, p.chunkSize(n, cap(p.valArena), 6))
	}
	l := len(p.valArena)
	p.valArena = append(p.valArena, vals...)
	return p.valArena[l : l+n : l+n]
}

func (p *parser) allocKeys(keys []string) []string {
	n := len(keys)
	if n == 0 {
		return nil
	}
	if cap(p.keyArena)-len(p.keyArena) < n {
		p.keyArena = make([]string, 0, p.chunkSize(n, cap(p.keyArena), 12))
	}
	l := len(p.keyArena)
	p.keyArena = append(p.keyArena, keys...)
	return p.keyArena[l : l+n : l+n]
}

func (p *parser) newContainer(keys []string, vals []Value) *container {
	if len(p.conArena) == cap(p.conArena) {
		p.conArena = make([]container, 0, p.chunkSize(1, cap(p.conArena), 24))
	}
	p.conArena = append(p.conArena, container{keys: keys, vals: vals})
	return &p.conArena[len(p.conArena)-1]
}

// Parse reads jsonb's text input: a JSON value, normalized (objects' keys
// sorted, the last of duplicate keys kept; numbers read as numeric reads
// them; \u escapes decoded). Errors are PostgreSQL's: 22P02 "invalid input
// syntax for type json" with its detail and context, 22P05 for \u0000,
// 22003 for a number numeric cannot hold, 54001 beyond MaxDepth.
func Parse(s string) (Value, error) {
	p := parserPool.Get().(*parser)
	p.build = true
	p.depth = 0
	p.lex = lexer{in: s, line: 1, decode: true, buf: p.lex.buf[:0]}
	v, err := p.parse()
	// The arenas now belong to the Values; the stacks are kept.
	p.valArena, p.keyArena, p.conArena = nil, nil, nil
	clear(p.vals[:cap(p.vals)])
	clear(p.keys[:cap(p.keys)])
	p.vals, p.keys = p.vals[:0], p.keys[:0]
	p.lex.in, p.lex.str = "", ""
	if cap(p.vals) <= 4096 && cap(p.lex.buf) <= 1<<16 {
		parserPool.Put(p)
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// ValidateJSON checks s as the json type's input does: the same grammar
// and errors as Parse, but escapes are only checked for form (json accepts
// \u0000 and unpaired surrogates) and numbers are not range-checked.
func ValidateJSON(s string) error {
	p := parser{}
	p.lex = lexer{in: s, line: 1}
	_, err := p.parse()
	return err
}

func (p *parser) parse() (Value, error) {
	l := &p.lex
	if err := l.next(); err != nil {
		return Value{}, err
	}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	if l.typ != tokEnd {
		return Value{}, p.parseError(errExpectedEnd)
	}
	return v, nil
}

// parseError is report_parse_error: the input's end, or an unexpected
// token in the given context.
func (p *parser) parseError(k errKind) error {
	l := &p.lex
	if l.tokStart < 0 || l.typ == tokEnd {
		return l.jsonError(errExpectedMore)
	}
	return l.jsonError(k)
}

func (p *parser) value() (Value, error) {
	switch p.lex.typ {
	case tokObjStart:
		return p.object()
	case tokArrStart:
		return p.array()
	}
	return p.scalar()
}

func (p *parser) scalar() (Value, error) {
	l := &p.lex
	var v Value
	switch l.typ {
	case tokTrue:
		v = Value{kind: Bool, b: true}
	case tokFalse:
		v = Value{kind: Bool}
	case tokNull:
	case tokString:
		if len(l.str) > maxStringLen && p.build {
			return Value{}, stringTooLong()
		}
		v = Value{kind: String, s: l.str}
	case tokNumber:
		v = Value{kind: Number, s: l.in[l.tokStart:l.tokEnd]}
	default:
		return Value{}, p.parseError(errExpectedJSON)
	}
	if err := l.next(); err != nil {
		return Value{}, err
	}
	if v.kind == Number && p.build {
		// As in PostgreSQL, the number is converted after the next token
		// is lexed.
		t, err := canonicalNumber(v.s)
		if err != nil {
			return Value{}, err
		}
		v.s = t
	}
	return v, nil
}

func stringTooLong() error {
	e := pgerr.New(pgerr.ProgramLimitExceeded, "string too long to represent as jsonb string")
	e.Detail = fmt.Sprintf("Due to an implementation restriction, jsonb strings cannot exceed %d bytes.", maxStringLen)
	return e
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		e := pgerr.New(stackDepthExceeded, "stack depth limit exceeded")
		e.Hint = `Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.`
		return e
	}
	return nil
}

func (p *parser) object() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	l := &p.lex
	if err := l.next(); err != nil {
		return Value{}, err
	}
	base, kbase := len(p.vals), len(p.keys)
	switch l.typ {
	case tokString:
		for {
			if err := p.field(); err != nil {
				return Value{}, err
			}
			if l.typ != tokComma {
				break
			}
			if err := l.next(); err != nil {
				return Value{}, err
			}
		}
	case tokObjEnd:
	default:
		return Value{}, p.parseError(errExpectedObjectFirst)
	}
	if l.typ != tokObjEnd {
		return Value{}, p.parseError(errExpectedObjectNext)
	}
	if err := l.next(); err != nil {
		return Value{}, err
	}
	p.depth--
	if !p.build {
		return Value{}, nil
	}
	keys, vals := p.keys[kbase:], p.vals[base:]
	if !isNormal(keys) {
		keys, vals = normalizeObject(slices.Clone(keys), slices.Clone(vals))
	}
	c := p.newContainer(p.allocKeys(keys), p.allocVals(vals))
	p.keys, p.vals = p.keys[:kbase], p.vals[:base]
	return Value{kind: Object, c: c}, nil
}

func (p *parser) field() error {
	l := &p.lex
	if l.typ != tokString {
		return p.parseError(errExpectedString)
	}
	key := l.str
	if p.build && len(key) > maxStringLen {
		return stringTooLong()
	}
	if err := l.next(); err != nil {
		return err
	}
	if l.typ != tokColon {
		return p.parseError(errExpectedColon)
	}
	if err := l.next(); err != nil {
		return err
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	if p.build {
		p.keys = append(p.keys, key)
		p.vals = append(p.vals, v)
	}
	return nil
}

func (p *parser) array() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	l := &p.lex
	if err := l.next(); err != nil {
		return Value{}, err
	}
	base := len(p.vals)
	if l.typ != tokArrEnd {
		for {
			v, err := p.value()
			if err != nil {
				return Value{}, err
			}
			if p.build {
				p.vals = append(p.vals, v)
			}
			if l.typ != tokComma {
				break
			}
			if err := l.next(); err != nil {
				return Value{}, err
			}
		}
	}
	if l.typ != tokArrEnd {
		return Value{}, p.parseError(errExpectedArrayNext)
	}
	if err := l.next(); err != nil {
		return Value{}, err
	}
	p.depth--
	if !p.build {
		return Value{}, nil
	}
	c := p.newContainer(nil, p.allocVals(p.vals[base:]))
	p.vals = p.vals[:base]
	return Value{kind: Array, c: c}, nil
}

// isNormal reports whether keys are strictly in jsonb's key order.
func isNormal(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if compareKeys(keys[i-1], keys[i]) >= 0 {
			return false
		}
	}
	return true
}

// compareKeys is jsonb's key order: shorter keys first, then bytewise.
func compareKeys(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// normalizeObject sorts an object's pairs into jsonb's key order and drops
// all but the last of each run of equal keys. It may reuse the slices.
func normalizeObject(keys []string, vals []Value) ([]string, []Value) {
	if isNormal(keys) {
		return keys, vals
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareKeys(keys[a], keys[b]) })
	nk := make([]string, 0, len(keys))
	nv := make([]Value, 0, len(keys))
	for i, j := range idx {
		if i+1 < len(idx) && keys[idx[i+1]] == keys[j] {
			continue // a later pair has the same key
		}
		nk = append(nk, keys[j])
		nv = append(nv, vals[j])
	}
	return nk, nv
}
