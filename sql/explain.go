package sql

// parseExplain parses EXPLAIN [ANALYZE] [VERBOSE] [(option [value], ...)]
// statement. The options are checked and dropped; the inner statement is
// parsed in full, its Text and Offset its own slice of the query.
func (s *stmtParser) parseExplain(c *cursor) (Node, error) {
	c.advance() // EXPLAIN
	if c.peek().isPunct("(") {
		if err := skipExplainOptions(c); err != nil {
			return nil, err
		}
	} else {
		c.acceptWord("analyze")
		c.acceptWord("verbose")
	}
	if c.eof() {
		return nil, c.errHere()
	}
	inner, err := s.parseInner(c.rest())
	if err != nil {
		return nil, err
	}
	return &ExplainStmt{Stmt: inner}, nil
}

// skipExplainOptions consumes (name [value], ...).
func skipExplainOptions(c *cursor) error {
	c.advance()
	for {
		if _, err := c.ident(); err != nil {
			return err
		}
		if !c.peek().isPunct(",") && !c.peek().isPunct(")") {
			if _, err := optionValue(c); err != nil {
				return err
			}
		}
		if c.acceptPunct(")") {
			return nil
		}
		if err := c.expectPunct(","); err != nil {
			return err
		}
	}
}

// maxParam returns the highest $N among toks.
func maxParam(toks []Token) int {
	n := 0
	for _, t := range toks {
		if t.Kind == TokParam && t.N > n {
			n = t.N
		}
	}
	return n
}
