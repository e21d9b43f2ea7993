package sql

// parseCreateTemp parses the rest of CREATE [LOCAL] {TEMP | TEMPORARY}
// TABLE ... [ON COMMIT PRESERVE ROWS], a table or CREATE TABLE AS. ON
// COMMIT DELETE ROWS and ON COMMIT DROP are 0A000: streamdb commits
// every statement on its own, so a transaction block has no end of its
// own to act at.
func (s *stmtParser) parseCreateTemp(c *cursor) (Node, error) {
	c.acceptWord("local")
	c.advance() // TEMP | TEMPORARY
	if err := c.expectWord("table"); err != nil {
		return nil, err
	}
	if err := s.takeOnCommit(c); err != nil {
		return nil, err
	}
	n, err := s.parseCreateTable(c, false)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *CreateTableStmt:
		x.Temporary = true
	case *CreateTableAsStmt:
		x.Temporary = true
	}
	return n, nil
}

// takeOnCommit removes an ON COMMIT clause at the top level of the rest
// of the statement (before AS of CREATE TABLE AS, or at the end).
func (s *stmtParser) takeOnCommit(c *cursor) error {
	i := findTopLevel(c.toks, c.i, func(i int) bool {
		return c.toks[i].isWord("on") && i+1 < len(c.toks) && c.toks[i+1].isWord("commit")
	})
	if i < 0 {
		return nil
	}
	j := i + 2
	switch {
	case j+1 < len(c.toks) && c.toks[j].isWord("preserve") && c.toks[j+1].isWord("rows"):
		j += 2
	case j+1 < len(c.toks) && c.toks[j].isWord("delete") && c.toks[j+1].isWord("rows"),
		j < len(c.toks) && c.toks[j].isWord("drop"):
		return notSupportedAt(s.query, c.toks[i], "ON COMMIT DELETE ROWS and ON COMMIT DROP are not supported: every statement commits on its own")
	case j >= len(c.toks):
		return syntaxErrorAtEnd(s.query, c.toks[len(c.toks)-1].End)
	default:
		return syntaxErrorAt(s.query, c.toks[j])
	}
	c.toks = append(c.toks[:i:i], c.toks[j:]...)
	return nil
}
