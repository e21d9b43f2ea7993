package sql

// CreateSinkStmt is CREATE SINK [IF NOT EXISTS] name {FROM relation | AS
// query} WITH (connector = 'kafka', ...) [FORMAT f ENCODE e [(...)]], in
// RisingWave's syntax: the changes of a table, a materialized view or a
// query, delivered to a connector.
type CreateSinkStmt struct {
	Name        string
	IfNotExists bool
	// From names the relation of CREATE SINK ... FROM; FromPos is its
	// error position (1-based, in characters).
	From    string
	FromPos int
	// Query and QueryText are the query of CREATE SINK ... AS.
	Query     *SelectStmt
	QueryText string
	With      map[string]string
	// Format and Encode are the FORMAT and ENCODE words ("" when the
	// statement has none); EncodeOptions ENCODE's (...).
	Format, Encode string
	EncodeOptions  map[string]string
}

func (*CreateSinkStmt) node() {}

// parseCreateSink parses the rest of CREATE SINK. The query of AS ends
// at the last WITH ( of the statement, where the sink's options begin.
func (s *stmtParser) parseCreateSink(c *cursor) (Node, error) {
	cs := &CreateSinkStmt{IfNotExists: acceptIfNotExists(c)}
	var err error
	if cs.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	switch {
	case c.acceptWord("from"):
		cs.FromPos = position(c.query, c.peek().Pos)
		if cs.From, err = c.qualifiedName(); err != nil {
			return nil, err
		}
	case c.acceptWord("as"):
		end := -1
		for i := len(c.toks) - 2; i > c.i; i-- {
			if c.toks[i].isWord("with") && c.toks[i+1].isPunct("(") {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, c.errHere()
		}
		q := c.toks[c.i:end]
		c.i = end
		cs.QueryText = s.query[q[0].Pos:q[len(q)-1].End]
		if cs.Query, err = s.parseQuery(q); err != nil {
			return nil, err
		}
	default:
		return nil, c.errHere()
	}
	if cs.With, err = parseWithOptions(c); err != nil {
		return nil, err
	}
	if c.acceptWord("format") {
		if cs.Format, err = c.ident(); err != nil {
			return nil, err
		}
		if err := c.expectWord("encode"); err != nil {
			return nil, err
		}
		if cs.Encode, err = c.ident(); err != nil {
			return nil, err
		}
		if c.acceptPunct("(") {
			if cs.EncodeOptions, err = parseOptionList(c); err != nil {
				return nil, err
			}
		}
	}
	return cs, c.expectEnd()
}
