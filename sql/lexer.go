package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// TokenKind is the kind of a lexical token.
type TokenKind uint8

// Token kinds.
const (
	TokIdent  TokenKind = iota // identifier or keyword (keywords are not told apart here)
	TokString                  // string literal: '..', E'..', $$..$$, B'..', X'..', N'..'
	TokNumber                  // numeric literal as written: 1, 1.5, .5, 1e5
	TokParam                   // $N placeholder
	TokOp                      // operator: + - * / < > = <= >= <> != || :: ~ !~ ...
	TokPunct                   // one of ( ) [ ] , ; . :
	tokRaw                     // synthetic text the rewrite emits verbatim
)

// Token is one lexical token of a query string.
type Token struct {
	Kind TokenKind
	// Pos and End are the byte offsets of the token in the query string.
	// Tokens the rewrite synthesizes carry those of the token they stand
	// for, so errors still point into the user's text.
	Pos, End int
	// Text is, for an identifier, its name: lower-cased ASCII letters when
	// unquoted, exactly as written (quotes and "" escapes removed) when
	// quoted; for a string, its decoded value; for a number, operator or
	// punctuation, the text as written ("!=" stays "!="); for a parameter,
	// the digits of $N.
	Text string
	// Quoted is true for a "quoted" identifier.
	Quoted bool
	// Prefix is the string prefix: 0 for '..', 'E', 'B', 'X', 'N' or '$'.
	Prefix byte
	// N is the parameter number of a $N token.
	N int
}

// isWord reports whether t is the unquoted identifier (keyword) w, which
// must be lower case.
func (t Token) isWord(w string) bool {
	return t.Kind == TokIdent && !t.Quoted && t.Text == w
}

// isPunct reports whether t is the punctuation or operator s.
func (t Token) isPunct(s string) bool {
	return (t.Kind == TokPunct || t.Kind == TokOp) && t.Text == s
}

// lexer turns a query string into tokens the way the Postgres lexer does
// (scan.l), with standard_conforming_strings on.
type lexer struct {
	src  string
	pos  int
	toks []Token
}

// Lex returns the tokens of query, without comments and whitespace. On a
// lexical error (an unterminated string or comment, an invalid character)
// it returns the tokens before the error and a positioned *pgerr.Error.
func Lex(query string) ([]Token, error) {
	l := &lexer{src: query}
	for {
		l.skipSpace()
		if l.pos >= len(l.src) {
			return l.toks, nil
		}
		if l.atComment() {
			if err := l.skipComment(); err != nil {
				return l.toks, err
			}
			continue
		}
		if err := l.next(); err != nil {
			return l.toks, err
		}
	}
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		l.pos++
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (l *lexer) atComment() bool {
	rest := l.src[l.pos:]
	return strings.HasPrefix(rest, "--") || strings.HasPrefix(rest, "/*")
}

// skipComment skips one -- or (nested) /* */ comment at the cursor.
func (l *lexer) skipComment() error {
	rest := l.src[l.pos:]
	switch {
	case strings.HasPrefix(rest, "--"):
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			l.pos += nl + 1
		} else {
			l.pos = len(l.src)
		}
	case strings.HasPrefix(rest, "/*"):
		return l.skipBlockComment()
	}
	return nil
}

func (l *lexer) skipBlockComment() error {
	start, depth := l.pos, 0
	for l.pos < len(l.src) {
		switch {
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			depth++
			l.pos += 2
		case strings.HasPrefix(l.src[l.pos:], "*/"):
			depth--
			l.pos += 2
			if depth == 0 {
				return nil
			}
		default:
			l.pos++
		}
	}
	return lexError(l.src, start, "unterminated /* comment")
}

// next lexes one token at the cursor.
func (l *lexer) next() error {
	c := l.src[l.pos]
	switch {
	case c == '\'':
		return l.lexString(l.pos, l.pos, 0)
	case c == '"':
		return l.lexQuotedIdent()
	case c == '$':
		return l.lexDollar()
	case isDigit(c) || (c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1])):
		return l.lexNumber()
	case isIdentStart(c):
		return l.lexWord()
	case c == ':':
		l.lexColon()
		return nil
	case strings.IndexByte("()[],;.", c) >= 0:
		l.emit(TokPunct, l.pos, l.pos+1, l.src[l.pos:l.pos+1])
		return nil
	case isOpChar(c):
		l.lexOperator()
		return nil
	}
	return lexError(l.src, l.pos, "syntax error at or near %q", l.charAt(l.pos))
}

func (l *lexer) charAt(p int) string {
	_, n := utf8.DecodeRuneInString(l.src[p:])
	return l.src[p : p+n]
}

func (l *lexer) emit(k TokenKind, pos, end int, text string) *Token {
	l.toks = append(l.toks, Token{Kind: k, Pos: pos, End: end, Text: text})
	l.pos = end
	return &l.toks[len(l.toks)-1]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isOpChar(c byte) bool { return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0 }

// lexWord lexes an identifier or keyword, or a prefixed string (E'..',
// B'..', X'..', N'..').
func (l *lexer) lexWord() error {
	start := l.pos
	if l.pos+1 < len(l.src) && l.src[l.pos+1] == '\'' {
		switch p := upper(l.src[l.pos]); p {
		case 'E', 'B', 'X', 'N':
			return l.lexString(start, l.pos+1, p)
		}
	}
	end := l.pos
	for end < len(l.src) && isIdentCont(l.src[end]) {
		end++
	}
	l.emit(TokIdent, start, end, foldIdent(l.src[start:end]))
	return nil
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// foldIdent lower-cases the ASCII letters of an unquoted identifier, as
// Postgres does.
func foldIdent(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (l *lexer) lexQuotedIdent() error {
	start := l.pos
	val, end, ok := scanQuoted(l.src, start+1, '"')
	if !ok {
		return lexError(l.src, start, "unterminated quoted identifier")
	}
	if val == "" {
		return lexError(l.src, start, "zero-length delimited identifier")
	}
	t := l.emit(TokIdent, start, end, val)
	t.Quoted = true
	return nil
}

// scanQuoted reads a q-quoted body starting at i (after the opening quote)
// with qq as the escape for q; it returns the body, the offset after the
// closing quote, and false when the quote is not closed.
func scanQuoted(src string, i int, q byte) (string, int, bool) {
	var b strings.Builder
	for i < len(src) {
		j := strings.IndexByte(src[i:], q)
		if j < 0 {
			return "", len(src), false
		}
		b.WriteString(src[i : i+j])
		i += j + 1
		if i < len(src) && src[i] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i, true
	}
	return "", len(src), false
}

// lexString lexes a string whose opening quote is at quote; start is where
// the token starts (its prefix letter, if any).
func (l *lexer) lexString(start, quote int, prefix byte) error {
	var val strings.Builder
	end := quote
	for {
		body, e, err := l.stringPart(start, end, prefix)
		if err != nil {
			return err
		}
		val.WriteString(body)
		end = e
		next, ok := l.continuation(end)
		if !ok {
			break
		}
		end = next
	}
	t := l.emit(TokString, start, end, val.String())
	t.Prefix = prefix
	return nil
}

// stringPart reads one quoted part starting at the quote at q.
func (l *lexer) stringPart(start, q int, prefix byte) (string, int, error) {
	if prefix == 'E' {
		return scanEscapeString(l.src, start, q+1)
	}
	body, end, ok := scanQuoted(l.src, q+1, '\'')
	if !ok {
		return "", 0, lexError(l.src, start, "unterminated quoted string")
	}
	if prefix == 'B' || prefix == 'X' {
		if err := checkBitString(l.src, start, body, prefix); err != nil {
			return "", 0, err
		}
	}
	return body, end, nil
}

func checkBitString(src string, start int, body string, prefix byte) error {
	for i := 0; i < len(body); i++ {
		c := body[i]
		if prefix == 'B' && c != '0' && c != '1' {
			return lexError(src, start, "%q is not a valid binary digit", string(c))
		}
		if prefix == 'X' && !isHexDigit(c) {
			return lexError(src, start, "%q is not a valid hexadecimal digit", string(c))
		}
	}
	return nil
}

// continuation reports whether a string continues after end: Postgres
// joins 'a' <whitespace with a newline> 'b' into 'ab'. It returns the
// offset of the next part's opening quote.
func (l *lexer) continuation(end int) (int, bool) {
	i, newline := end, false
	for i < len(l.src) && isSpace(l.src[i]) {
		newline = newline || l.src[i] == '\n' || l.src[i] == '\r'
		i++
	}
	if !newline || i >= len(l.src) || l.src[i] != '\'' {
		return 0, false
	}
	return i, true
}

// lexDollar lexes $N or a dollar-quoted string $tag$...$tag$.
func (l *lexer) lexDollar() error {
	start := l.pos
	i := start + 1
	if i < len(l.src) && isDigit(l.src[i]) {
		return l.lexParam(start)
	}
	for i < len(l.src) && isIdentStart(l.src[i]) || (i > start+1 && i < len(l.src) && isDigit(l.src[i])) {
		i++
	}
	if i >= len(l.src) || l.src[i] != '$' {
		return lexError(l.src, start, "syntax error at or near \"$\"")
	}
	delim := l.src[start : i+1]
	j := strings.Index(l.src[i+1:], delim)
	if j < 0 {
		return lexError(l.src, start, "unterminated dollar-quoted string")
	}
	end := i + 1 + j + len(delim)
	t := l.emit(TokString, start, end, l.src[i+1:i+1+j])
	t.Prefix = '$'
	return nil
}

func (l *lexer) lexParam(start int) error {
	end := start + 1
	for end < len(l.src) && isDigit(l.src[end]) {
		end++
	}
	if end < len(l.src) && isIdentCont(l.src[end]) {
		return lexError(l.src, start, "trailing junk after parameter")
	}
	n, err := strconv.Atoi(l.src[start+1 : end])
	if err != nil || n < 1 || n > 65535 {
		return lexError(l.src, start, "there is no parameter %s", l.src[start:end])
	}
	t := l.emit(TokParam, start, end, l.src[start+1:end])
	t.N = n
	return nil
}

// lexNumber lexes digits[.digits][e[+-]digits] or .digits[e...].
// lexNumber lexes a numeric literal. As in PostgreSQL 15, one that runs
// into an identifier (1abc, 1_000, 0x1F, 2as) or an exponent without
// digits (1e, 1e+) is "trailing junk", not a number and an alias.
func (l *lexer) lexNumber() error {
	start, i := l.pos, l.pos
	i = skipDigits(l.src, i)
	if i < len(l.src) && l.src[i] == '.' && !(i+1 < len(l.src) && l.src[i+1] == '.') {
		i = skipDigits(l.src, i+1)
	}
	if i < len(l.src) && (l.src[i] == 'e' || l.src[i] == 'E') {
		j := i + 1
		if j < len(l.src) && (l.src[j] == '+' || l.src[j] == '-') {
			j++
		}
		switch {
		case j < len(l.src) && isDigit(l.src[j]):
			i = skipDigits(l.src, j)
		case j > i+1:
			return l.trailingJunk(start, j)
		}
	}
	if i < len(l.src) && isIdentStart(l.src[i]) {
		for i < len(l.src) && isIdentCont(l.src[i]) {
			i++
		}
		return l.trailingJunk(start, i)
	}
	l.emit(TokNumber, start, i, l.src[start:i])
	return nil
}

func (l *lexer) trailingJunk(start, end int) error {
	return lexError(l.src, start, "trailing junk after numeric literal at or near %q", l.src[start:end])
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func (l *lexer) lexColon() {
	if strings.HasPrefix(l.src[l.pos:], "::") {
		l.emit(TokOp, l.pos, l.pos+2, "::")
		return
	}
	l.emit(TokPunct, l.pos, l.pos+1, ":")
}

// lexOperator lexes an operator with Postgres's rules: the longest run of
// operator characters, cut before a comment start, and without trailing
// '+' or '-' unless it holds one of ~ ! @ # % ^ & | ` ?.
func (l *lexer) lexOperator() {
	start, end := l.pos, l.pos
	for end < len(l.src) && isOpChar(l.src[end]) {
		if end > start && (strings.HasPrefix(l.src[end:], "--") || strings.HasPrefix(l.src[end:], "/*")) {
			break
		}
		end++
	}
	op := l.src[start:end]
	if len(op) > 1 && !strings.ContainsAny(op, "~!@#%^&|`?") {
		for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
			op = op[:len(op)-1]
		}
	}
	l.emit(TokOp, start, start+len(op), op)
}
