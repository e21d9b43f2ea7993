package sql

import (
	"strconv"
	"strings"
)

// parseShow parses SHOW TABLES | MATERIALIZED VIEWS | JOBS | ALL | TIME
// ZONE | TRANSACTION ISOLATION LEVEL | name.
func parseShow(c *cursor) (Node, error) {
	c.advance() // SHOW
	if n, ok, err := parseShowCatalog(c); ok {
		return n, err
	}
	what := ""
	switch {
	case c.acceptWords("materialized", "views"):
		what = "materialized views"
	case c.acceptWords("time", "zone"):
		what = "timezone"
	case c.acceptWords("transaction", "isolation", "level"):
		what = "transaction_isolation"
	default:
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		what = name
	}
	return &ShowStmt{What: what}, c.expectEnd()
}

// parseSet parses SET [SESSION | LOCAL] name {= | TO} value | DEFAULT,
// SET TIME ZONE value | LOCAL | DEFAULT, and SET NAMES value.
func parseSet(c *cursor) (Node, error) {
	c.advance() // SET
	st := &SetStmt{}
	if c.acceptWord("local") {
		st.Local = true
	} else {
		c.acceptWord("session")
	}
	if t := c.peek(); t.isWord("transaction") || t.isWord("characteristics") {
		return nil, notSupportedAt(c.query, t, "SET TRANSACTION is not supported")
	}
	switch {
	case c.acceptWords("time", "zone"):
		st.Name = "timezone"
		if c.acceptWord("local") {
			st.Default = true
			return st, c.expectEnd()
		}
		if c.peek().isWord("interval") && c.peekAt(1).Kind == TokString {
			st.Value = zoneInterval(c)
			return st, c.expectEnd()
		}
	case c.acceptWord("names"):
		st.Name = "client_encoding"
	default:
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		st.Name = name
		if !c.acceptPunct("=") {
			if err := c.expectWord("to"); err != nil {
				return nil, err
			}
		}
	}
	return st, setValue(c, st)
}

// zoneInterval reads SET TIME ZONE INTERVAL 'value' [unit [TO unit]] as
// the setting INTERVAL 'value' PostgreSQL flattens it to: a bare number
// is in the qualifier's last unit ('5' HOUR is five hours).
func zoneInterval(c *cursor) string {
	c.advance() // INTERVAL
	val := c.advance().Text
	unit := ""
	if wordIn(c.peek(), intervalUnits) {
		unit = c.advance().Text
		if c.peek().isWord("to") && wordIn(c.peekAt(1), intervalUnits) {
			c.advance()
			unit = c.advance().Text
		}
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && unit != "" {
		val += " " + unit
	}
	return "INTERVAL '" + val + "'"
}

// setValue parses the value of SET: DEFAULT, one string, number or word
// (unquoted, as optionValue does), or a list kept as written.
func setValue(c *cursor, st *SetStmt) error {
	if c.eof() {
		return c.errHere()
	}
	if c.peek().isWord("default") && c.i == len(c.toks)-1 {
		st.Default = true
		c.advance()
		return nil
	}
	start := c.i
	v, err := optionValue(c)
	if err != nil {
		return err
	}
	if c.eof() {
		st.Value = v
		return nil
	}
	for c.acceptPunct(",") {
		if _, err := optionValue(c); err != nil {
			return err
		}
	}
	if err := c.expectEnd(); err != nil {
		return err
	}
	st.Value = c.query[c.toks[start].Pos:c.toks[len(c.toks)-1].End]
	return nil
}

// parseReset parses RESET name | RESET ALL as SET name TO DEFAULT (Name
// "all" for RESET ALL).
func parseReset(c *cursor) (Node, error) {
	c.advance() // RESET
	if c.acceptWords("time", "zone") {
		return &SetStmt{Name: "timezone", Default: true}, c.expectEnd()
	}
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	return &SetStmt{Name: strings.ToLower(name), Default: true}, c.expectEnd()
}
