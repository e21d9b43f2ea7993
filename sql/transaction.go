package sql

// isTransactionWord reports whether t starts a transaction statement.
func isTransactionWord(t Token) bool {
	switch {
	case t.isWord("begin"), t.isWord("start"), t.isWord("commit"), t.isWord("end"),
		t.isWord("rollback"), t.isWord("abort"):
		return true
	}
	return false
}

// parseTransaction parses BEGIN [WORK | TRANSACTION] [modes], START
// TRANSACTION [modes], COMMIT | END [WORK | TRANSACTION] [AND [NO] CHAIN],
// and ROLLBACK | ABORT [WORK | TRANSACTION] [AND [NO] CHAIN]. Modes are
// checked and ignored: streamdb has one isolation level.
func parseTransaction(c *cursor) (Node, error) {
	first := c.advance()
	switch first.Text {
	case "start":
		if err := c.expectWord("transaction"); err != nil {
			return nil, err
		}
		return &TransactionStmt{Kind: "begin"}, transactionModes(c)
	case "begin":
		acceptWorkOrTransaction(c)
		return &TransactionStmt{Kind: "begin"}, transactionModes(c)
	case "commit", "end":
		return &TransactionStmt{Kind: "commit"}, transactionEnd(c)
	}
	if t := c.peek(); t.isWord("to") {
		return nil, notSupportedAt(c.query, t, "savepoints are not supported")
	}
	return &TransactionStmt{Kind: "rollback"}, transactionEnd(c)
}

func acceptWorkOrTransaction(c *cursor) {
	if !c.acceptWord("work") {
		c.acceptWord("transaction")
	}
}

// transactionEnd parses [WORK | TRANSACTION] [AND [NO] CHAIN].
func transactionEnd(c *cursor) error {
	acceptWorkOrTransaction(c)
	if c.acceptWord("and") {
		if c.acceptWord("no") {
			return expectChain(c)
		}
		if c.peek().isWord("chain") {
			return notSupportedAt(c.query, c.peek(), "AND CHAIN is not supported")
		}
		return c.errHere()
	}
	return c.expectEnd()
}

func expectChain(c *cursor) error {
	if err := c.expectWord("chain"); err != nil {
		return err
	}
	return c.expectEnd()
}

// transactionModes parses ISOLATION LEVEL ..., READ WRITE | READ ONLY,
// [NOT] DEFERRABLE, separated by optional commas.
func transactionModes(c *cursor) error {
	for !c.eof() {
		if !transactionMode(c) {
			return c.errHere()
		}
		c.acceptPunct(",")
	}
	return nil
}

func transactionMode(c *cursor) bool {
	switch {
	case c.acceptWords("isolation", "level"):
		return c.acceptWord("serializable") || c.acceptWords("repeatable", "read") ||
			c.acceptWords("read", "committed") || c.acceptWords("read", "uncommitted")
	case c.acceptWords("read", "write"), c.acceptWords("read", "only"),
		c.acceptWord("deferrable"), c.acceptWords("not", "deferrable"):
		return true
	}
	return false
}

// parseFlush parses FLUSH.
func parseFlush(c *cursor) (Node, error) {
	c.advance()
	return &FlushStmt{}, c.expectEnd()
}
