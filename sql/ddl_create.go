package sql

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// parseCreate parses CREATE TABLE, SOURCE, MATERIALIZED VIEW, [OR
// REPLACE] VIEW and [UNIQUE] INDEX; other CREATE statements are not
// supported.
func (s *stmtParser) parseCreate(c *cursor) (Node, error) {
	c.advance() // CREATE
	switch {
	case c.acceptWord("table"):
		return s.parseCreateTable(c, false)
	case c.peek().isWord("temp") || c.peek().isWord("temporary") || c.peek().isWord("local") && (c.peekAt(1).isWord("temp") || c.peekAt(1).isWord("temporary")):
		return s.parseCreateTemp(c)
	case c.acceptWord("source"):
		return s.parseCreateTable(c, true)
	case c.acceptWord("schema"):
		return parseCreateSchema(c)
	case c.acceptWord("sequence"):
		return parseCreateSequence(c)
	case c.acceptWord("subscription"):
		return parseCreateSubscription(c)
	case c.acceptWord("sink"):
		return s.parseCreateSink(c)
	case c.acceptWords("materialized", "view"):
		return s.parseCreateMV(c)
	case c.acceptWord("view"):
		return s.parseCreatePlainView(c, false)
	case c.acceptWords("or", "replace", "view"):
		return s.parseCreatePlainView(c, true)
	case c.peek().isWord("index") || c.peek().isWord("unique") && c.peekAt(1).isWord("index"):
		at := c.peek()
		unique := c.acceptWord("unique")
		c.advance() // INDEX
		return s.parseCreateIndex(c, at, unique)
	}
	if c.eof() {
		return nil, c.errHere()
	}
	return nil, notSupportedAt(s.query, c.peek(), "CREATE %s is not supported", s.query[c.peek().Pos:c.peek().End])
}

// parseCreateSchema parses the rest of CREATE SCHEMA [IF NOT EXISTS]
// name [AUTHORIZATION role]; the role must be the current one (there is
// one user), and PostgreSQL's schema elements after the name are not
// supported.
func parseCreateSchema(c *cursor) (Node, error) {
	cs := &CreateSchemaStmt{IfNotExists: acceptIfNotExists(c)}
	if c.acceptWord("authorization") {
		return nil, notSupportedAt(c.query, c.peek(), "CREATE SCHEMA AUTHORIZATION without a schema name is not supported")
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	cs.Name = name
	if c.acceptWord("authorization") {
		if _, err := c.ident(); err != nil {
			return nil, err
		}
	}
	if !c.eof() && !c.peek().isPunct(";") {
		return nil, notSupportedAt(c.query, c.peek(), "CREATE SCHEMA with schema elements is not supported")
	}
	return cs, c.expectEnd()
}

func acceptIfNotExists(c *cursor) bool { return c.acceptWords("if", "not", "exists") }

// parseCreateTable parses the rest of
// CREATE {TABLE | SOURCE} [IF NOT EXISTS] name [(element, ...)]
// [INCLUDE ...] [APPEND ONLY] [INCLUDE ...] [WITH (k = v, ...)]
// [FORMAT f ENCODE e [(k = v, ...)]].
func (s *stmtParser) parseCreateTable(c *cursor, source bool) (Node, error) {
	ct := &CreateTableStmt{IfNotExists: acceptIfNotExists(c), Source: source}
	var err error
	if ct.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if !source {
		if n, ok, err := s.parseCreateTableAs(c, ct.Name, ct.IfNotExists); ok {
			return n, err
		}
	}
	// Without elements (a connector whose schema gives the columns, as
	// ENCODE AVRO's registry does), WITH or INCLUDE follows the name.
	if p := c.peek(); !p.isWord("with") && !p.isWord("include") {
		if err := s.parseTableElements(c, ct); err != nil {
			return nil, err
		}
	}
	if err := parseIncludes(c, ct); err != nil {
		return nil, err
	}
	if ct.AppendOnly = c.acceptWords("append", "only"); ct.AppendOnly {
		if err := parseIncludes(c, ct); err != nil {
			return nil, err
		}
	}
	if ct.OnConflict, err = parseTableOnConflict(c); err != nil {
		return nil, err
	}
	if ct.With, err = parseWithOptions(c); err != nil {
		return nil, err
	}
	if err := parseFormatEncode(c, ct); err != nil {
		return nil, err
	}
	return ct, c.expectEnd()
}

// parseTableElements parses (element, ...).
func (s *stmtParser) parseTableElements(c *cursor, ct *CreateTableStmt) error {
	if err := c.expectPunct("("); err != nil {
		return err
	}
	for {
		if err := s.parseTableElement(c, ct); err != nil {
			return err
		}
		if !c.acceptPunct(",") {
			break
		}
	}
	return c.expectPunct(")")
}

// IncludeDef is INCLUDE Kind ['Header' [TypeName]] [AS Alias]
// (RisingWave's syntax): a column filled from a part of each message
// besides its value, such as its Kafka key or offset.
type IncludeDef struct {
	Kind string // as written, lower case: key, partition, header, ...
	// Header is the header name of INCLUDE header 'name' ("": all of
	// them); TypeName the type written after it, if any.
	Header, TypeName string
	// Alias is the column's name; "" for the connector's default.
	Alias string
}

// parseIncludes parses the INCLUDE items after a table's elements.
func parseIncludes(c *cursor, ct *CreateTableStmt) error {
	for c.acceptWord("include") {
		var in IncludeDef
		t := c.peek()
		if t.Kind != TokIdent {
			return c.errHere()
		}
		c.advance()
		in.Kind = strings.ToLower(t.Text)
		if c.peek().Kind == TokString {
			in.Header = c.advance().Text
			if c.peek().Kind == TokIdent && !c.peek().isWord("as") && !c.peek().isWord("include") &&
				!c.peek().isWord("with") && !c.peek().isWord("format") && !c.peek().isWord("append") {
				var err error
				if in.TypeName, err = parseTypeName(c); err != nil {
					return err
				}
			}
		}
		if c.acceptWord("as") {
			var err error
			if in.Alias, err = c.ident(); err != nil {
				return err
			}
		}
		ct.Includes = append(ct.Includes, in)
	}
	return nil
}

// parseFormatEncode parses a connector's FORMAT f ENCODE e [(options)],
// as RisingWave writes it. The built-in generators produce rows, not
// encoded messages, so only FORMAT PLAIN is meaningful; it is recorded.
func parseFormatEncode(c *cursor, ct *CreateTableStmt) error {
	if !c.acceptWord("format") {
		return nil
	}
	var err error
	if ct.Format, err = c.ident(); err != nil {
		return err
	}
	if err := c.expectWord("encode"); err != nil {
		return err
	}
	if ct.Encode, err = c.ident(); err != nil {
		return err
	}
	if c.acceptPunct("(") {
		ct.EncodeOptions, err = parseOptionList(c)
	}
	return err
}

// parseTableElement parses a column definition or a table constraint.
func (s *stmtParser) parseTableElement(c *cursor, ct *CreateTableStmt) error {
	start := c.peek()
	var name string
	if c.acceptWord("constraint") {
		var err error
		if name, err = c.ident(); err != nil {
			return err
		}
	}
	if c.acceptWords("primary", "key") {
		return s.tablePrimaryKey(c, ct, start)
	}
	if c.acceptWord("check") {
		chk, err := s.parseCheck(c, name)
		ct.Checks = append(ct.Checks, chk)
		return err
	}
	if c.acceptWord("unique") {
		u := UniqueDef{Name: name}
		if c.acceptWords("nulls", "distinct") || c.peek().isWord("nulls") {
			if !c.acceptWords("nulls", "distinct") {
				return notSupportedAt(s.query, c.peek(), "UNIQUE NULLS NOT DISTINCT is not supported")
			}
		}
		cols, err := c.parenIdentList()
		u.Columns = cols
		ct.Uniques = append(ct.Uniques, u)
		return err
	}
	if start.isWord("watermark") && c.peekAt(1).isWord("for") {
		return s.parseWatermark(c, ct)
	}
	if wordIn(c.peek(), unsupportedConstraints) {
		return notSupportedAt(s.query, c.peek(), "%s constraints are not supported", c.peek().Text)
	}
	if start.isWord("constraint") {
		return c.errHere()
	}
	col, err := s.parseColumnDef(c, ct)
	if err != nil {
		return err
	}
	ct.Columns = append(ct.Columns, col)
	return nil
}

// parseWatermark parses WATERMARK FOR column AS expr.
func (s *stmtParser) parseWatermark(c *cursor, ct *CreateTableStmt) error {
	at := c.advance()
	c.advance() // FOR
	if ct.Watermark != nil {
		return notSupportedAt(s.query, at, "a table or source takes one WATERMARK")
	}
	col, err := c.ident()
	if err != nil {
		return err
	}
	if err := c.expectWord("as"); err != nil {
		return err
	}
	e, text, err := s.parseExprUntil(c, func(k int) bool { return c.toks[k].isPunct(",") })
	if err != nil {
		return err
	}
	ct.Watermark = &WatermarkDef{Column: col, Expr: e, ExprText: text, Pos: position(s.query, at.Pos)}
	return nil
}

var unsupportedConstraints = wordSet(`foreign references exclude`)

func (s *stmtParser) tablePrimaryKey(c *cursor, ct *CreateTableStmt, at Token) error {
	if ct.PrimaryKey != nil || hasColumnPK(ct) {
		return multiplePK(s.query, ct.Name, at)
	}
	cols, err := c.parenIdentList()
	ct.PrimaryKey = cols
	return err
}

func hasColumnPK(ct *CreateTableStmt) bool {
	for _, col := range ct.Columns {
		if col.PrimaryKey {
			return true
		}
	}
	return false
}

func multiplePK(query, table string, at Token) error {
	return pgerr.New("42P16", "multiple primary keys for table %q are not allowed", table).
		WithPosition(position(query, at.Pos))
}

// parseColumnDef parses name type [constraint ...].
func (s *stmtParser) parseColumnDef(c *cursor, ct *CreateTableStmt) (ColumnDef, error) {
	var col ColumnDef
	var err error
	if col.Name, err = c.ident(); err != nil {
		return col, err
	}
	if col.TypeName, err = parseTypeName(c); err != nil {
		return col, err
	}
	for !c.eof() && !c.peek().isPunct(",") && !c.peek().isPunct(")") {
		if err := s.parseColumnConstraint(c, ct, &col); err != nil {
			return col, err
		}
	}
	return col, nil
}

// parseColumnConstraint parses one of NOT NULL, NULL, PRIMARY KEY,
// DEFAULT expr, optionally named by CONSTRAINT name.
func (s *stmtParser) parseColumnConstraint(c *cursor, ct *CreateTableStmt, col *ColumnDef) error {
	at := c.peek()
	var name string
	if c.acceptWord("constraint") {
		var err error
		if name, err = c.ident(); err != nil {
			return err
		}
	}
	switch {
	case c.acceptWord("check"):
		chk, err := s.parseCheck(c, name)
		col.Checks = append(col.Checks, chk)
		return err
	case c.acceptWord("unique"):
		if c.acceptWords("nulls", "not") {
			return notSupportedAt(s.query, at, "UNIQUE NULLS NOT DISTINCT is not supported")
		}
		c.acceptWords("nulls", "distinct")
		col.Unique, col.UniqueName = true, name
	case c.acceptWord("generated"):
		return s.parseGenerated(c, col)
	case c.acceptWords("not", "null"):
		col.NotNull = true
	case c.acceptWord("null"):
		col.NotNull = false
	case c.acceptWords("primary", "key"):
		if col.PrimaryKey || ct.PrimaryKey != nil || hasColumnPK(ct) {
			return multiplePK(s.query, ct.Name, at)
		}
		col.PrimaryKey = true
	case c.acceptWord("default"):
		return s.parseDefault(c, col)
	case wordIn(c.peek(), unsupportedConstraints) || c.peek().isWord("collate"):
		return notSupportedAt(s.query, c.peek(), "column option %s is not supported", c.peek().Text)
	default:
		return c.errHere()
	}
	return nil
}

// constraintWords end a DEFAULT expression.
var constraintWords = wordSet(`not null primary constraint check unique references default collate generated`)

// parseCheck parses (expr) after CHECK [NO INHERIT].
func (s *stmtParser) parseCheck(c *cursor, name string) (CheckDef, error) {
	chk := CheckDef{Name: name}
	if err := c.expectPunct("("); err != nil {
		return chk, err
	}
	e, text, err := s.parseExprUntil(c, func(int) bool { return false })
	if err != nil {
		return chk, err
	}
	chk.Expr, chk.Text = e, text
	if err := c.expectPunct(")"); err != nil {
		return chk, err
	}
	if c.peek().isWord("no") && c.peekAt(1).isWord("inherit") {
		c.i += 2
	}
	return chk, nil
}

// parseGenerated parses, after GENERATED, {ALWAYS | BY DEFAULT} AS
// IDENTITY [(sequence options)] or ALWAYS AS (expr) STORED.
func (s *stmtParser) parseGenerated(c *cursor, col *ColumnDef) error {
	kind := "a"
	if !c.acceptWord("always") {
		if err := c.expectWord("by"); err != nil {
			return err
		}
		if err := c.expectWord("default"); err != nil {
			return err
		}
		kind = "d"
	}
	if err := c.expectWord("as"); err != nil {
		return err
	}
	if c.acceptWord("identity") {
		col.Identity = kind
		if c.acceptPunct("(") {
			if err := parseSequenceOptions(c, &col.IdentityOpts, false, func() bool { return c.eof() || c.peek().isPunct(")") }); err != nil {
				return err
			}
			return c.expectPunct(")")
		}
		return nil
	}
	if kind != "a" || !c.peek().isPunct("(") {
		return c.errHere()
	}
	c.advance()
	e, text, err := s.parseExprUntil(c, func(int) bool { return false })
	if err != nil {
		return err
	}
	col.Generated, col.GeneratedText = e, text
	if err := c.expectPunct(")"); err != nil {
		return err
	}
	if !c.acceptWord("stored") {
		return notSupportedAt(s.query, c.peek(), "a generated column must be STORED")
	}
	return nil
}

// parseDefault parses the expression after DEFAULT.
func (s *stmtParser) parseDefault(c *cursor, col *ColumnDef) error {
	start := c.i
	e, text, err := s.parseExprUntil(c, func(k int) bool {
		t := c.toks[k]
		return t.isPunct(",") || (k > start && wordIn(t, constraintWords))
	})
	col.Default, col.DefaultText = e, text
	return err
}

// parseExprUntil parses the expression at the cursor, which ends before
// the first token (at its level of parentheses) for which stop holds or
// the closing parenthesis around it, and returns it and its text.
func (s *stmtParser) parseExprUntil(c *cursor, stop func(k int) bool) (ast.ExprNode, string, error) {
	start := c.i
	end := scanLevel(c.toks, start, 1, stop)
	if end <= start || end > len(c.toks) {
		return nil, "", c.errHere()
	}
	rw, err := rewrite(s.query, c.toks[start:end])
	if err != nil {
		return nil, "", err
	}
	exprs, err := s.parseExprs([][]Token{rw}, c.toks[start])
	if err != nil {
		return nil, "", err
	}
	c.i = end
	return exprs[0], s.query[c.toks[start].Pos:c.toks[end-1].End], nil
}

// parseCreateMV parses the rest of CREATE MATERIALIZED VIEW [IF NOT
// EXISTS] name [(col, ...)] [WITH (...)] AS query [EMIT ON WINDOW CLOSE].
func (s *stmtParser) parseCreateMV(c *cursor) (Node, error) {
	mv := &CreateMaterializedViewStmt{IfNotExists: acceptIfNotExists(c)}
	var err error
	if mv.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if c.peek().isPunct("(") {
		if mv.Columns, err = c.parenIdentList(); err != nil {
			return nil, err
		}
	}
	if c.acceptWords("in", "cluster") {
		// Materialize's IN CLUSTER c: streamdb's views all run in its one
		// process, whatever the name.
		if _, err := c.ident(); err != nil {
			return nil, err
		}
	}
	if mv.With, err = parseWithOptions(c); err != nil {
		return nil, err
	}
	if err := c.expectWord("as"); err != nil {
		return nil, err
	}
	if c.eof() {
		return nil, c.errHere()
	}
	q := c.rest()
	if n := len(q); n > 4 && q[n-4].isWord("emit") && q[n-3].isWord("on") && q[n-2].isWord("window") && q[n-1].isWord("close") {
		mv.EmitOnWindowClose, q = true, q[:n-4]
	}
	mv.QueryText = s.query[q[0].Pos:q[len(q)-1].End]
	if mv.Query, err = s.parseQuery(q); err != nil {
		return nil, err
	}
	return mv, nil
}

// parsePlainView parses the rest of CREATE [OR REPLACE] VIEW name
// [(col, ...)] AS query.
func (s *stmtParser) parseCreatePlainView(c *cursor, replace bool) (Node, error) {
	v := &CreateViewStmt{OrReplace: replace}
	var err error
	if v.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if c.peek().isPunct("(") {
		if v.Columns, err = c.parenIdentList(); err != nil {
			return nil, err
		}
	}
	if err := c.expectWord("as"); err != nil {
		return nil, err
	}
	if c.eof() {
		return nil, c.errHere()
	}
	q := c.rest()
	v.QueryText = s.query[q[0].Pos:q[len(q)-1].End]
	if v.Query, err = s.parseQuery(q); err != nil {
		return nil, err
	}
	return v, nil
}

// parseWithOptions parses an optional WITH (key [= value], ...). Keys are
// lower case and may be dotted (kafka.topic); values are kept as text:
// strings unquoted, numbers as written, words lower case. A key without a
// value means "true".
func parseWithOptions(c *cursor) (map[string]string, error) {
	if !c.peek().isWord("with") || !c.peekAt(1).isPunct("(") {
		return nil, nil
	}
	c.i += 2
	return parseOptionList(c)
}

// parseOptionList parses k = v, ...) after its opening parenthesis.
func parseOptionList(c *cursor) (map[string]string, error) {
	opts := map[string]string{}
	for {
		var key string
		var err error
		at := c.peek()
		if at.Kind == TokString { // 'connector' = ..., as Flink writes it
			key = strings.ToLower(c.advance().Text)
		} else if key, err = c.qualifiedName(); err != nil {
			return nil, err
		}
		if _, dup := opts[key]; dup {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "parameter %q specified more than once", key).
				WithPosition(position(c.query, at.Pos))
		}
		val := "true"
		if c.acceptPunct("=") {
			if val, err = optionValue(c); err != nil {
				return nil, err
			}
		}
		opts[key] = val
		if !c.acceptPunct(",") {
			return opts, c.expectPunct(")")
		}
	}
}

// optionValue parses a WITH option or SET value: a string, a signed
// number or a word.
func optionValue(c *cursor) (string, error) {
	sign := ""
	if c.peek().isPunct("-") || c.peek().isPunct("+") {
		sign = c.advance().Text
	}
	t := c.peek()
	switch {
	case t.Kind == TokNumber:
	case sign == "" && (t.Kind == TokString || t.Kind == TokIdent):
	default:
		return "", c.errHere()
	}
	c.advance()
	if sign == "+" {
		sign = ""
	}
	return sign + t.Text, nil
}

// ON CONFLICT behaviors of CREATE TABLE (CreateTableStmt.OnConflict).
const (
	ConflictOverwrite = "overwrite"
	ConflictIgnore    = "ignore"
	ConflictIfNotNull = "if not null"
)

// parseTableOnConflict parses RisingWave's ON CONFLICT clause of CREATE
// TABLE: what an INSERT of a primary key already there does.
//
//	ON CONFLICT { DO UPDATE FULL | OVERWRITE | DO NOTHING | IGNORE | DO UPDATE IF NOT NULL }
func parseTableOnConflict(c *cursor) (string, error) {
	if !c.acceptWords("on", "conflict") {
		return "", nil
	}
	switch {
	case c.acceptWords("do", "update", "full"), c.acceptWords("overwrite"):
		return ConflictOverwrite, nil
	case c.acceptWords("do", "nothing"), c.acceptWords("ignore"):
		return ConflictIgnore, nil
	case c.acceptWords("do", "update", "if", "not", "null"):
		return ConflictIfNotNull, nil
	}
	return "", c.errHere()
}
