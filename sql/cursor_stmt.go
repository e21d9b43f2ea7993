package sql

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// DeclareStmt is DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE]
// [NO SCROLL | SCROLL] CURSOR [WITH HOLD | WITHOUT HOLD] FOR query, or
// DECLARE name SUBSCRIPTION CURSOR FOR subscription [SINCE n | FULL].
type DeclareStmt struct {
	Name   string // the cursor's name, folded as an identifier
	Binary bool
	Scroll bool // SCROLL was written (NO SCROLL is the default)
	Hold   bool // WITH HOLD: the cursor outlives its transaction
	// Query is the SELECT of a query cursor, parsed in full, its Text and
	// Offset its own slice of the query string; nil for a subscription
	// cursor.
	Query *Statement

	// SubscriptionName is the subscription a subscription cursor reads
	// ("" for a query cursor), as written (schema.name allowed).
	SubscriptionName string
	// Since is the epoch SINCE names (nil: none given).
	Since *uint64
	// Full: FULL, read a snapshot of the subscription's view first.
	Full bool
}

// FetchStmt is FETCH [NEXT | FORWARD [n | ALL] | n | ALL] [FROM | IN]
// name [WITH (timeout = '...')], or MOVE with the same forms.
type FetchStmt struct {
	Name string
	// Count is how many rows to fetch: -1 is ALL; 0 refetches the
	// current row, as FORWARD 0 does in PostgreSQL.
	Count int64
	Move  bool // MOVE: position only, return no rows
	// Timeout is the WITH (timeout = ...) option (0: none), which only
	// subscription cursors take: how long a FETCH waits for rows.
	Timeout time.Duration
}

// CloseStmt is CLOSE name, or CLOSE ALL (All set, Name empty).
type CloseStmt struct {
	Name string
	All  bool
}

func (*DeclareStmt) node() {}
func (*FetchStmt) node()   {}
func (*CloseStmt) node()   {}

// parseDeclare parses a DECLARE statement.
func (s *stmtParser) parseDeclare(c *cursor) (Node, error) {
	c.advance() // DECLARE
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	d := &DeclareStmt{Name: name}
	if c.acceptWords("subscription", "cursor") {
		return d, parseSubscriptionCursor(c, d)
	}
	if err := cursorOptions(c, d); err != nil {
		return nil, err
	}
	if err := c.expectWord("for"); err != nil {
		return nil, err
	}
	if c.eof() {
		return nil, c.errHere()
	}
	toks := c.rest()
	if d.Query, err = s.parseInner(toks); err != nil {
		return nil, err
	}
	if _, ok := d.Query.Node.(*SelectStmt); !ok {
		// As PostgreSQL, whose grammar takes only a SELECT here.
		return nil, syntaxErrorAt(s.query, toks[0])
	}
	return d, nil
}

// cursorOptions parses [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL]
// CURSOR [WITH HOLD | WITHOUT HOLD], as PostgreSQL's grammar (the options
// before CURSOR in any order).
func cursorOptions(c *cursor, d *DeclareStmt) error {
	for !c.acceptWord("cursor") {
		switch {
		case c.acceptWord("binary"):
			d.Binary = true
		case c.acceptWord("insensitive"), c.acceptWord("asensitive"):
		case c.acceptWords("no", "scroll"):
			d.Scroll = false
		case c.acceptWord("scroll"):
			d.Scroll = true
		default:
			return c.errHere()
		}
	}
	switch {
	case c.acceptWords("with", "hold"):
		d.Hold = true
	case c.acceptWords("without", "hold"):
	}
	return nil
}

// parseSubscriptionCursor parses FOR subscription [SINCE n | FULL] after
// SUBSCRIPTION CURSOR.
func parseSubscriptionCursor(c *cursor, d *DeclareStmt) error {
	if err := c.expectWord("for"); err != nil {
		return err
	}
	name, err := c.qualifiedName()
	if err != nil {
		return err
	}
	d.SubscriptionName = name
	switch {
	case c.acceptWord("since"):
		t := c.peek()
		if t.Kind != TokNumber {
			return c.errHere()
		}
		n, err := strconv.ParseUint(t.Text, 10, 64)
		if err != nil {
			return pgerr.New(pgerr.InvalidParameterValue, "SINCE must be an unsigned 64-bit integer, not %s", t.Text).
				WithPosition(position(c.query, t.Pos))
		}
		c.advance()
		d.Since = &n
	case c.acceptWord("full"):
		d.Full = true
	}
	return c.expectEnd()
}

// parseInner parses toks as a statement of its own, its Text and Offset
// its slice of the query string, as EXPLAIN's inner statement.
func (s *stmtParser) parseInner(toks []Token) (*Statement, error) {
	first, last := toks[0], toks[len(toks)-1]
	inner := &stmtParser{p: s.p, query: s.query, st: &Statement{
		Text:   s.query[first.Pos:last.End],
		Offset: first.Pos,
	}}
	inner.st.NumParams = maxParam(toks)
	node, err := inner.parse(toks)
	if err != nil {
		return nil, err
	}
	inner.st.Node = node
	return inner.st, nil
}

// parseFetch parses FETCH or MOVE.
func parseFetch(c *cursor) (Node, error) {
	f := &FetchStmt{Move: c.advance().isWord("move"), Count: 1}
	if err := fetchDirection(c, f); err != nil {
		return nil, err
	}
	if !c.acceptWord("from") {
		c.acceptWord("in")
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	f.Name = name
	if !f.Move && c.peek().isWord("with") {
		if f.Timeout, err = fetchTimeout(c); err != nil {
			return nil, err
		}
	}
	return f, c.expectEnd()
}

// fetchDirection parses the direction of a FETCH or MOVE: NEXT, FORWARD
// [n | ALL], n, ALL, or none (NEXT). A direction word followed by the end
// of the statement is the cursor's name (FETCH next), as in PostgreSQL.
// Backward and absolute directions are refused: cursors only go forward.
func fetchDirection(c *cursor, f *FetchStmt) error {
	t := c.peek()
	if t.Kind == TokIdent && !t.isWord("all") && c.i+1 == len(c.toks) {
		return nil // FETCH name
	}
	switch {
	case c.acceptWord("next"):
	case c.acceptWord("all"):
		f.Count = -1
	case c.acceptWord("forward"):
		switch {
		case c.acceptWord("all"):
			f.Count = -1
		case isSignedNumber(c):
			return fetchCount(c, f)
		}
	case isSignedNumber(c):
		return fetchCount(c, f)
	case t.isWord("prior"), t.isWord("first"), t.isWord("last"), t.isWord("absolute"),
		t.isWord("relative"), t.isWord("backward"):
		return notSupportedAt(c.query, t, "%s is not supported: cursors only scan forward", strings.ToUpper(t.Text))
	}
	return nil
}

func isSignedNumber(c *cursor) bool {
	t := c.peek()
	return t.Kind == TokNumber || (t.isPunct("-") || t.isPunct("+")) && c.peekAt(1).Kind == TokNumber
}

// fetchCount parses the signed row count of a FETCH or MOVE; a negative
// one goes backward, which is refused.
func fetchCount(c *cursor, f *FetchStmt) error {
	at := c.peek()
	neg := c.acceptPunct("-")
	if !neg {
		c.acceptPunct("+")
	}
	t := c.peek()
	n, err := strconv.ParseInt(t.Text, 10, 64)
	if err != nil || strings.ContainsAny(t.Text, ".eE") {
		return syntaxErrorAt(c.query, t)
	}
	c.advance()
	if neg && n != 0 {
		return notSupportedAt(c.query, at, "fetching backward is not supported: cursors only scan forward")
	}
	f.Count = n
	return nil
}

// fetchTimeout parses WITH (timeout = value): a string or number, a
// number of milliseconds or one with a unit (us, ms, s, min, h, d).
func fetchTimeout(c *cursor) (time.Duration, error) {
	at := c.peek()
	opts, err := parseWithOptions(c)
	if err != nil {
		return 0, err
	}
	var d time.Duration
	for k, v := range opts {
		if k != "timeout" {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "unrecognized FETCH option %q", k).
				WithPosition(position(c.query, at.Pos))
		}
		if d, err = ParseDuration(v); err != nil {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for FETCH option \"timeout\": %q", v).
				WithPosition(position(c.query, at.Pos))
		}
	}
	return d, nil
}

// ParseDuration reads a time as PostgreSQL settings take it: a number of
// milliseconds, or a number and a unit.
func ParseDuration(v string) (time.Duration, error) {
	s := strings.TrimSpace(v)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	units := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[strings.ToLower(strings.TrimSpace(s[i:]))]
	if err != nil || !ok || n*float64(u) > math.MaxInt64 {
		return 0, strconv.ErrSyntax
	}
	return time.Duration(n * float64(u)), nil
}

// parseClose parses CLOSE name | CLOSE ALL.
func parseClose(c *cursor) (Node, error) {
	c.advance() // CLOSE
	if c.acceptWord("all") {
		return &CloseStmt{All: true}, c.expectEnd()
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &CloseStmt{Name: name}, c.expectEnd()
}
