package sql

// parseDrop parses DROP {TABLE | MATERIALIZED VIEW | VIEW | SOURCE |
// INDEX | SCHEMA | SUBSCRIPTION} [IF EXISTS] name, ... [CASCADE | RESTRICT].
func parseDrop(c *cursor) (Node, error) {
	c.advance() // DROP
	d := &DropStmt{}
	switch {
	case c.acceptWord("table"):
		d.Kind = ObjTable
	case c.acceptWords("materialized", "view"):
		d.Kind = ObjMaterializedView
	case c.acceptWord("view"):
		d.Kind = ObjView
	case c.acceptWord("source"):
		d.Kind = ObjSource
	case c.acceptWord("schema"):
		d.Kind = ObjSchema
	case c.acceptWord("subscription"):
		d.Kind = ObjSubscription
	case c.acceptWord("sink"):
		d.Kind = ObjSink
	case c.acceptWord("sequence"):
		d.Kind = ObjSequence
	case c.acceptWord("index"):
		d.Kind = ObjIndex
		c.acceptWord("concurrently") // an index is always dropped so
	default:
		if c.eof() {
			return nil, c.errHere()
		}
		return nil, notSupportedAt(c.query, c.peek(), "DROP %s is not supported", c.query[c.peek().Pos:c.peek().End])
	}
	d.IfExists = c.acceptWords("if", "exists")
	for {
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
		if !c.acceptPunct(",") {
			break
		}
	}
	if !c.acceptWord("cascade") {
		c.acceptWord("restrict")
	} else {
		d.Cascade = true
	}
	return d, c.expectEnd()
}
