package sql

// CreateSubscriptionStmt is CREATE SUBSCRIPTION [IF NOT EXISTS] name FROM
// relation [WITH (retention = '1h')], in RisingWave's syntax: a change log
// of the table or materialized view, read with subscription cursors.
type CreateSubscriptionStmt struct {
	Name        string
	IfNotExists bool
	From        string
	// FromPos is the error position (1-based, in characters) of From.
	FromPos int
	With    map[string]string
}

func (*CreateSubscriptionStmt) node() {}

// parseCreateSubscription parses the rest of CREATE SUBSCRIPTION.
func parseCreateSubscription(c *cursor) (Node, error) {
	cs := &CreateSubscriptionStmt{IfNotExists: acceptIfNotExists(c)}
	var err error
	if cs.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if !c.acceptWord("from") {
		return nil, c.errHere()
	}
	cs.FromPos = position(c.query, c.peek().Pos)
	if cs.From, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if cs.With, err = parseWithOptions(c); err != nil {
		return nil, err
	}
	return cs, c.expectEnd()
}

// SubscribeStmt is Materialize's SUBSCRIBE [TO] name [WITH (snapshot =
// false)], as the query of COPY (...) TO STDOUT: the changes of a table,
// materialized view or subscription, streamed until the client cancels.
type SubscribeStmt struct {
	Name string
	// NamePos is the error position (1-based, in characters) of Name.
	NamePos int
	// NoSnapshot: start with the changes from now, without the current
	// rows first.
	NoSnapshot bool
}

func (*SubscribeStmt) node() {}

func parseSubscribe(c *cursor) (Node, error) {
	c.advance() // SUBSCRIBE
	c.acceptWord("to")
	st := &SubscribeStmt{NamePos: position(c.query, c.peek().Pos)}
	var err error
	if st.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	with, err := parseWithOptions(c)
	if err != nil {
		return nil, err
	}
	for k, v := range with {
		switch {
		case k == "snapshot" && (v == "false" || v == "off"):
			st.NoSnapshot = true
		case k == "snapshot" && (v == "true" || v == "on"):
		default:
			return nil, notSupportedAt(c.query, c.toks[0], "SUBSCRIBE option %s = %s is not supported", k, v)
		}
	}
	if !c.eof() {
		return nil, c.errHere()
	}
	return st, nil
}
