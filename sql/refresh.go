package sql

// RefreshStmt is REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH
// [NO] DATA]. streamdb's views are always up to date, so it only checks
// its view; it lets scripts written for PostgreSQL, whose views are
// snapshots, run unchanged.
type RefreshStmt struct {
	Name string
	// NoData: WITH NO DATA (which would empty the view).
	NoData bool
	// At is the byte offset of the statement, for errors.
	At int
}

func (*RefreshStmt) node() {}

// parseRefresh parses REFRESH MATERIALIZED VIEW.
func parseRefresh(c *cursor) (Node, error) {
	r := &RefreshStmt{At: c.advance().Pos} // REFRESH
	if !c.acceptWords("materialized", "view") {
		return nil, c.errHere()
	}
	c.acceptWord("concurrently")
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	r.Name = name
	if c.acceptWord("with") {
		r.NoData = c.acceptWord("no")
		if err := c.expectWord("data"); err != nil {
			return nil, err
		}
	}
	return r, c.expectEnd()
}
