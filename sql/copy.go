package sql

import "strings"

// CopyStmt is COPY, in the forms PostgreSQL accepts:
//
//	COPY [BINARY] table [(col, ...)] FROM {STDIN | 'file' | PROGRAM 'cmd'} [[WITH] options]
//	COPY {table [(col, ...)] | (query)} TO {STDOUT | 'file' | PROGRAM 'cmd'} [[WITH] options]
//
// options are either the list form, (name [value], ...), or the legacy
// keywords psql and pg_dump still write (BINARY, CSV, HEADER, DELIMITER
// [AS] 'x', NULL [AS] 'x', QUOTE, ESCAPE, FORCE QUOTE|NOT NULL|NULL ...,
// [USING] DELIMITERS 'x' before WITH). Both become Options, legacy
// keywords under the names of the list form, as PostgreSQL's grammar
// turns them into the same DefElems. The parser checks syntax only;
// what the options mean is checked where they are used.
type CopyStmt struct {
	// Schema and Table name the relation (Schema "" when unqualified);
	// both empty when Query is set.
	Schema, Table string
	// Columns are the listed columns; nil: all of them.
	Columns []string
	// Query is the statement of COPY (query) TO.
	Query *Statement
	// From is true for COPY FROM, false for COPY TO.
	From bool
	// File is the file name or command; empty for STDIN / STDOUT.
	File string
	// Program is true for PROGRAM 'command'.
	Program bool
	// Options in the order written.
	Options []CopyOption
	// Where is true when COPY FROM has a WHERE clause.
	Where bool
}

// CopyOption is one COPY option. Name is lower case: format, freeze,
// delimiter, null, default, header, quote, escape, force_quote,
// force_not_null, force_null, encoding, on_error, ... (unknown names are
// kept: the user of the statement rejects them).
type CopyOption struct {
	Name string
	// Value is the option's argument as written (a string's value, a
	// number, a keyword in lower case); HasValue is false when none.
	Value    string
	HasValue bool
	// Columns is a column list argument, (a, b); Star is true for *.
	Columns []string
	Star    bool
	// Pos is the 1-based character position of the option's name.
	Pos int
}

func (*CopyStmt) node() {}

// parseCopy parses a COPY statement.
func (s *stmtParser) parseCopy(c *cursor) (Node, error) {
	c.advance() // COPY
	st := &CopyStmt{}
	if c.peek().isWord("binary") && !c.peekAt(1).isWord("from") && !c.peekAt(1).isWord("to") {
		st.Options = append(st.Options, copyOpt(c, "format", "binary"))
		c.advance()
	}
	if err := s.copySource(c, st); err != nil {
		return nil, err
	}
	switch {
	case c.acceptWord("from"):
		st.From = true
	case c.acceptWord("to"):
	default:
		return nil, c.errHere()
	}
	if st.Query != nil && st.From {
		return nil, syntaxErrorAt(c.query, c.toks[c.i-1])
	}
	if err := copyTarget(c, st); err != nil {
		return nil, err
	}
	if err := copyOptions(c, st); err != nil {
		return nil, err
	}
	if c.peek().isWord("where") {
		st.Where = true
		return st, nil
	}
	return st, c.expectEnd()
}

// copySource parses the relation [(columns)] or the (query) of COPY.
func (s *stmtParser) copySource(c *cursor, st *CopyStmt) error {
	if c.peek().isPunct("(") {
		q, err := s.copyQuery(c)
		st.Query = q
		return err
	}
	name, err := c.ident()
	if err != nil {
		return err
	}
	st.Table = name
	if c.acceptPunct(".") {
		if st.Table, err = c.ident(); err != nil {
			return err
		}
		st.Schema = name
	}
	if c.peek().isPunct("(") {
		if st.Columns, err = c.parenIdentList(); err != nil {
			return err
		}
	}
	return nil
}

// copyQuery parses the parenthesized query of COPY (query) TO.
func (s *stmtParser) copyQuery(c *cursor) (*Statement, error) {
	open := c.advance()
	depth, start := 1, c.i
	for ; !c.eof() && depth > 0; c.i++ {
		switch t := c.peek(); {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		}
	}
	if depth > 0 {
		return nil, c.errHere()
	}
	toks := c.toks[start : c.i-1]
	if len(toks) == 0 {
		return nil, syntaxErrorAt(c.query, c.toks[c.i-1])
	}
	if toks[0].isWord("subscribe") {
		first, last := toks[0], toks[len(toks)-1]
		node, err := parseSubscribe(newCursor(s.query, toks))
		return &Statement{Text: s.query[first.Pos:last.End], Offset: first.Pos, NumParams: maxParam(toks), Node: node}, err
	}
	inner, err := s.parseInner(toks)
	if err != nil {
		return nil, err
	}
	if _, ok := inner.Node.(*SelectStmt); !ok {
		return nil, syntaxErrorAt(c.query, open)
	}
	return inner, nil
}

// copyTarget parses STDIN | STDOUT | 'file' | PROGRAM 'command'.
func copyTarget(c *cursor, st *CopyStmt) error {
	switch t := c.peek(); {
	case t.isWord("stdin") || t.isWord("stdout"):
		c.advance()
		return nil
	case t.isWord("program"):
		c.advance()
		st.Program = true
	}
	t := c.peek()
	if t.Kind != TokString {
		return c.errHere()
	}
	c.advance()
	st.File = t.Text
	if st.File == "" {
		st.File = " " // an empty name is still a file, never STDIN
	}
	return nil
}

// copyOptions parses the options after the target: [USING] DELIMITERS
// 'x', then [WITH] followed by a parenthesized list or legacy keywords.
func copyOptions(c *cursor, st *CopyStmt) error {
	if c.peek().isWord("using") && c.peekAt(1).isWord("delimiters") {
		c.advance()
	}
	if c.peek().isWord("delimiters") {
		o := copyOpt(c, "delimiter", "")
		c.advance()
		if err := copyStringArg(c, &o); err != nil {
			return err
		}
		st.Options = append(st.Options, o)
	}
	c.acceptWord("with")
	if c.peek().isPunct("(") {
		return copyOptionList(c, st)
	}
	for !c.eof() && !c.peek().isWord("where") {
		o, err := legacyCopyOption(c)
		if err != nil {
			return err
		}
		st.Options = append(st.Options, o)
	}
	return nil
}

// copyOptionList parses ( name [value], ... ).
func copyOptionList(c *cursor, st *CopyStmt) error {
	c.advance()
	for {
		t := c.peek()
		if t.Kind != TokIdent {
			return c.errHere()
		}
		c.advance()
		o := CopyOption{Name: strings.ToLower(t.Text), Pos: position(c.query, t.Pos)}
		if !c.peek().isPunct(",") && !c.peek().isPunct(")") {
			if err := copyOptionArg(c, &o); err != nil {
				return err
			}
		}
		st.Options = append(st.Options, o)
		if c.acceptPunct(")") {
			return nil
		}
		if err := c.expectPunct(","); err != nil {
			return err
		}
	}
}

// copyOptionArg parses the argument of a listed option: a string, a
// number, a keyword, *, or a parenthesized column list.
func copyOptionArg(c *cursor, o *CopyOption) error {
	switch t := c.peek(); {
	case t.isPunct("*"):
		c.advance()
		o.Star, o.HasValue = true, true
		return nil
	case t.isPunct("("):
		cols, err := c.parenIdentList()
		o.Columns, o.HasValue = cols, true
		return err
	case t.Kind == TokString:
		c.advance()
		o.Value, o.HasValue = t.Text, true
		return nil
	case t.Kind == TokIdent:
		c.advance()
		o.Value, o.HasValue = t.Text, true
		return nil
	}
	v, err := optionValue(c) // a signed number
	o.Value, o.HasValue = v, true
	return err
}

// legacyCopyOption parses one keyword option of the pre-9.0 syntax.
func legacyCopyOption(c *cursor) (CopyOption, error) {
	t := c.peek()
	o := copyOpt(c, "", "")
	c.advance()
	switch {
	case t.isWord("binary"):
		o.Name, o.Value, o.HasValue = "format", "binary", true
	case t.isWord("csv"):
		o.Name, o.Value, o.HasValue = "format", "csv", true
	case t.isWord("header"), t.isWord("freeze"), t.isWord("oids"):
		o.Name = t.Text
	case t.isWord("delimiter"), t.isWord("null"), t.isWord("quote"), t.isWord("escape"), t.isWord("encoding"):
		o.Name = t.Text
		c.acceptWord("as")
		return o, copyStringArg(c, &o)
	case t.isWord("force"):
		return o, legacyForce(c, &o)
	default:
		return o, syntaxErrorAt(c.query, t)
	}
	return o, nil
}

// legacyForce parses the rest of FORCE QUOTE {cols | *}, FORCE NOT NULL
// cols and FORCE NULL cols.
func legacyForce(c *cursor, o *CopyOption) error {
	switch {
	case c.acceptWord("quote"):
		o.Name = "force_quote"
		if c.acceptPunct("*") {
			o.Star, o.HasValue = true, true
			return nil
		}
	case c.acceptWords("not", "null"):
		o.Name = "force_not_null"
	case c.acceptWord("null"):
		o.Name = "force_null"
	default:
		return c.errHere()
	}
	cols, err := c.identList()
	o.Columns, o.HasValue = cols, true
	return err
}

func copyStringArg(c *cursor, o *CopyOption) error {
	t := c.peek()
	if t.Kind != TokString {
		return c.errHere()
	}
	c.advance()
	o.Value, o.HasValue = t.Text, true
	return nil
}

// copyOpt starts an option at the current token.
func copyOpt(c *cursor, name, value string) CopyOption {
	return CopyOption{Name: name, Value: value, HasValue: value != "", Pos: position(c.query, c.peek().Pos)}
}
