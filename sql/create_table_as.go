package sql

// CreateTableAsStmt is CREATE TABLE [IF NOT EXISTS] name [(col, ...)] AS
// query [WITH [NO] DATA], or SELECT ... INTO [TABLE] name FROM ...
// (SelectInto): a table of the query's columns, filled with its rows.
type CreateTableAsStmt struct {
	// Temporary: CREATE TEMP[ORARY] TABLE ... AS.
	Temporary   bool
	Name        string
	IfNotExists bool
	// Columns optionally rename the query's output columns, in order.
	Columns []string
	Query   *SelectStmt
	// NoData is WITH NO DATA: the table is created empty.
	NoData     bool
	SelectInto bool
}

func (*CreateTableAsStmt) node() {}

// parseCreateTableAs parses the rest of CREATE TABLE name after the name:
// [(col, ...)] AS query [WITH [NO] DATA]. ok is false (and c unmoved)
// when what follows is not that form.
func (s *stmtParser) parseCreateTableAs(c *cursor, name string, ifNotExists bool) (Node, bool, error) {
	start := c.i
	ct := &CreateTableAsStmt{Name: name, IfNotExists: ifNotExists}
	if c.peek().isPunct("(") {
		cols, err := c.parenIdentList()
		if err != nil || !c.peek().isWord("as") {
			c.i = start
			return nil, false, nil
		}
		ct.Columns = cols
	}
	if !c.acceptWord("as") {
		c.i = start
		return nil, false, nil
	}
	if c.eof() {
		return nil, true, c.errHere()
	}
	q := c.rest()
	if n := len(q); n > 2 && q[n-2].isWord("with") && q[n-1].isWord("data") {
		q = q[:n-2]
	} else if n > 3 && q[n-3].isWord("with") && q[n-2].isWord("no") && q[n-1].isWord("data") {
		q, ct.NoData = q[:n-3], true
	}
	if len(q) == 0 {
		return nil, true, syntaxErrorAt(s.query, c.toks[start])
	}
	var err error
	if ct.Query, err = s.parseQuery(q); err != nil {
		return nil, true, err
	}
	return ct, true, nil
}

// parseSelectInto parses SELECT ... INTO [TEMP[ORARY]] [TABLE] name ... as
// CREATE [TEMP] TABLE name AS SELECT ...; ok is false when toks is not a query with a
// top-level INTO.
func (s *stmtParser) parseSelectInto(toks []Token) (Node, bool, error) {
	if !toks[0].isWord("select") && !toks[0].isWord("with") {
		return nil, false, nil
	}
	into := findTopLevel(toks, 1, func(i int) bool { return toks[i].isWord("into") })
	if into < 0 || toks[into-1].isWord("insert") {
		return nil, false, nil
	}
	c := newCursor(s.query, toks[into+1:])
	temp := c.acceptWord("temp") || c.acceptWord("temporary")
	if p := c.peek(); p.isWord("unlogged") {
		return nil, true, notSupportedAt(s.query, p, "SELECT INTO %s is not supported", p.Text)
	}
	c.acceptWord("table")
	name, err := c.qualifiedName()
	if err != nil {
		return nil, true, err
	}
	end := into + 1 + c.i
	q := append(append([]Token(nil), toks[:into]...), toks[end:]...)
	ct := &CreateTableAsStmt{Name: name, SelectInto: true, Temporary: temp}
	if ct.Query, err = s.parseQuery(q); err != nil {
		return nil, true, err
	}
	return ct, true, nil
}
