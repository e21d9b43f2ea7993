package sql

import (
	"strconv"
	"strings"
)

// cursor walks the tokens of a statement the front end parses itself.
type cursor struct {
	query string
	toks  []Token
	i     int
}

func newCursor(query string, toks []Token) *cursor {
	return &cursor{query: query, toks: toks}
}

func (c *cursor) eof() bool { return c.i >= len(c.toks) }

// peek returns the current token; at the end, a zero Token.
func (c *cursor) peek() Token { return c.peekAt(0) }

func (c *cursor) peekAt(n int) Token {
	if c.i+n < len(c.toks) {
		return c.toks[c.i+n]
	}
	return Token{Kind: tokRaw}
}

func (c *cursor) advance() Token {
	t := c.peek()
	if !c.eof() {
		c.i++
	}
	return t
}

// acceptWord consumes the current token if it is the keyword w.
func (c *cursor) acceptWord(w string) bool {
	if c.peek().isWord(w) {
		c.i++
		return true
	}
	return false
}

// acceptWords consumes the keywords ws if they come next, all of them.
func (c *cursor) acceptWords(ws ...string) bool {
	for n, w := range ws {
		if !c.peekAt(n).isWord(w) {
			return false
		}
	}
	c.i += len(ws)
	return true
}

func (c *cursor) acceptPunct(p string) bool {
	if c.peek().isPunct(p) {
		c.i++
		return true
	}
	return false
}

// errHere is a syntax error at the current token, or at end of input.
func (c *cursor) errHere() error {
	if c.eof() {
		return syntaxErrorAtEnd(c.query, c.endOffset())
	}
	return syntaxErrorAt(c.query, c.peek())
}

// endOffset is the byte offset just past the statement's last token.
func (c *cursor) endOffset() int {
	if len(c.toks) == 0 {
		return 0
	}
	return c.toks[len(c.toks)-1].End
}

func (c *cursor) expectWord(w string) error {
	if !c.acceptWord(w) {
		return c.errHere()
	}
	return nil
}

func (c *cursor) expectPunct(p string) error {
	if !c.acceptPunct(p) {
		return c.errHere()
	}
	return nil
}

// expectEnd fails unless every token was consumed.
func (c *cursor) expectEnd() error {
	if !c.eof() {
		return syntaxErrorAt(c.query, c.peek())
	}
	return nil
}

// ident consumes an identifier and returns its name.
func (c *cursor) ident() (string, error) {
	t := c.peek()
	if t.Kind != TokIdent {
		return "", c.errHere()
	}
	if err := checkReservedIdent(c.query, t); err != nil {
		return "", err
	}
	c.i++
	return t.Text, nil
}

// qualifiedName consumes name or schema.name (any number of parts) and
// returns the parts joined by '.'.
func (c *cursor) qualifiedName() (string, error) {
	parts := []string{}
	for {
		name, err := c.ident()
		if err != nil {
			return "", err
		}
		parts = append(parts, name)
		if !c.peek().isPunct(".") {
			return strings.Join(parts, "."), nil
		}
		c.i++
	}
}

// identList consumes ident {, ident}.
func (c *cursor) identList() ([]string, error) {
	var names []string
	for {
		name, err := c.ident()
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		if !c.acceptPunct(",") {
			return names, nil
		}
	}
}

// parenIdentList consumes ( ident {, ident} ).
func (c *cursor) parenIdentList() ([]string, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	names, err := c.identList()
	if err != nil {
		return nil, err
	}
	return names, c.expectPunct(")")
}

// integer consumes an unsigned integer literal.
func (c *cursor) integer() (int64, error) {
	t := c.peek()
	if t.Kind != TokNumber {
		return 0, c.errHere()
	}
	n, err := strconv.ParseInt(t.Text, 10, 64)
	if err != nil {
		return 0, syntaxErrorAt(c.query, t)
	}
	c.i++
	return n, nil
}

// rest returns the remaining tokens and consumes them.
func (c *cursor) rest() []Token {
	r := c.toks[c.i:]
	c.i = len(c.toks)
	return r
}
