package sql

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// parseAlter parses ALTER {TABLE | MATERIALIZED VIEW | SOURCE | INDEX} name
// and what changes a relation's definition (AlterRelationStmt, see
// alter_relation.go), or {PAUSE | RESUME | SET PARALLELISM {=|TO} n|DEFAULT|ADAPTIVE |
// SET xxx_rate_limit {=|TO} n|DEFAULT}.
func (s *stmtParser) parseAlter(c *cursor) (Node, error) {
	c.advance() // ALTER
	if c.acceptWord("system") {
		return parseAlterSystem(c)
	}
	if c.acceptWord("sequence") {
		return parseAlterSequence(c)
	}
	a := &AlterStmt{}
	switch {
	case c.acceptWord("table"):
		a.Kind = ObjTable
	case c.acceptWords("materialized", "view"):
		a.Kind = ObjMaterializedView
	case c.acceptWord("source"):
		a.Kind = ObjSource
	case c.acceptWord("index"):
		a.Kind = ObjIndex
	case c.acceptWord("sink"):
		a.Kind = ObjSink
	case c.acceptWord("view"):
		a.Kind = ObjView // RENAME only (alter_relation.go)
	default:
		return nil, alterNotSupported(c)
	}
	ifExists := c.acceptWords("if", "exists")
	var err error
	if a.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if ifExists || a.Kind == ObjView || isRelationAlter(c) {
		return s.parseAlterRelation(c, &AlterRelationStmt{Kind: a.Kind, Name: a.Name, IfExists: ifExists})
	}
	switch {
	case c.acceptWord("pause"):
		a.Action = AlterPause
	case c.acceptWord("resume"):
		a.Action = AlterResume
	case c.acceptWord("set"):
		if err := alterSet(c, a); err != nil {
			return nil, err
		}
	default:
		return nil, alterNotSupported(c)
	}
	return a, c.expectEnd()
}

// parseAlterSystem parses, after ALTER SYSTEM, SET name {= | TO} value |
// DEFAULT and RESET name (as SET name TO DEFAULT), PostgreSQL's and
// RisingWave's syntax for the database's own parameters.
func parseAlterSystem(c *cursor) (Node, error) {
	st := &AlterSystemStmt{}
	switch {
	case c.acceptWord("set"):
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		st.Name = strings.ToLower(name)
		if !c.acceptPunct("=") {
			if err := c.expectWord("to"); err != nil {
				return nil, err
			}
		}
		var set SetStmt
		if err := setValue(c, &set); err != nil {
			return nil, err
		}
		st.Value, st.Default = set.Value, set.Default
		return st, nil
	case c.acceptWord("reset"):
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		st.Name, st.Default = strings.ToLower(name), true
		return st, c.expectEnd()
	}
	if c.eof() {
		return nil, c.errHere()
	}
	return nil, notSupportedAt(c.query, c.peek(), "ALTER SYSTEM %s is not supported", c.query[c.peek().Pos:c.peek().End])
}

func alterNotSupported(c *cursor) error {
	if c.eof() {
		return c.errHere()
	}
	return notSupportedAt(c.query, c.peek(), "ALTER ... %s is not supported", c.query[c.peek().Pos:c.peek().End])
}

// alterSet parses PARALLELISM or xxx_rate_limit, then {=|TO} n | DEFAULT.
func alterSet(c *cursor, a *AlterStmt) error {
	t := c.peek()
	switch {
	case t.isWord("parallelism"):
		a.Action = AlterSetParallelism
	case t.Kind == TokIdent && !t.Quoted && strings.HasSuffix(t.Text, "_rate_limit"):
		a.Action, a.Param = AlterSetRateLimit, t.Text
	default:
		return alterNotSupported(c)
	}
	c.advance()
	if !c.acceptPunct("=") {
		if err := c.expectWord("to"); err != nil {
			return err
		}
	}
	if c.acceptWord("default") || a.Action == AlterSetParallelism && c.acceptWord("adaptive") {
		a.Default = true
		return nil
	}
	if t := c.peek(); a.Action == AlterSetRateLimit && (t.isWord("adaptive") || t.Kind == TokString && strings.EqualFold(t.Text, "adaptive")) {
		// Validated by the executor (only a backfill's rate adapts).
		c.advance()
		a.Adaptive = true
		return nil
	}
	if t := c.peek(); a.Action == AlterSetRateLimit && (t.isWord("unlimited") || t.Kind == TokString && strings.EqualFold(t.Text, "unlimited")) {
		c.advance()
		a.Unlimited = true
		return nil
	}
	// A sign is read here so that a negative value reaches the executor,
	// which rejects it with 22023 (not a syntax error); a number that is
	// not an integer is 22023 too.
	start := c.peek()
	neg := false
	if c.acceptPunct("-") {
		neg = true
	} else {
		c.acceptPunct("+")
	}
	t = c.peek()
	if t.Kind == TokNumber {
		if _, err := strconv.ParseInt(t.Text, 10, 64); err != nil {
			name := a.Param
			if name == "" {
				name = "parallelism"
			}
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q: an integer is required",
				name, c.query[start.Pos:t.End]).WithPosition(position(c.query, start.Pos))
		}
	}
	n, err := c.integer()
	if neg {
		n = -n
	}
	a.Value = n
	return err
}

// parseCancel parses CANCEL JOB[S] id, ....
func parseCancel(c *cursor) (Node, error) {
	c.advance() // CANCEL
	if !c.acceptWord("jobs") {
		if err := c.expectWord("job"); err != nil {
			return nil, err
		}
	}
	st := &CancelJobsStmt{}
	for {
		id, err := c.integer()
		if err != nil {
			return nil, err
		}
		st.IDs = append(st.IDs, id)
		if !c.acceptPunct(",") {
			return st, c.expectEnd()
		}
	}
}

// parseWait parses WAIT.
func parseWait(c *cursor) (Node, error) {
	c.advance()
	return &WaitStmt{}, c.expectEnd()
}
