package sql

import (
	"strconv"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// SequenceOptions are the options of CREATE SEQUENCE, ALTER SEQUENCE and
// of an identity column's GENERATED ... AS IDENTITY (options): nil
// pointers for those not given.
type SequenceOptions struct {
	// Type is the AS type as written ("" when not given).
	Type                              string
	Increment, Min, Max, Start, Cache *int64
	NoMin, NoMax                      bool
	Cycle                             *bool
	Restart                           bool
	RestartWith                       *int64
	OwnedBy                           string // "table.column", or "none"
	HasOwnedBy                        bool
	SequenceName                      string // SEQUENCE NAME name (identity columns)
}

// CreateSequenceStmt is CREATE SEQUENCE [IF NOT EXISTS] name [options].
type CreateSequenceStmt struct {
	Name        string
	IfNotExists bool
	Opts        SequenceOptions
}

// AlterSequenceStmt is ALTER SEQUENCE [IF EXISTS] name options.
type AlterSequenceStmt struct {
	Name     string
	IfExists bool
	Opts     SequenceOptions
}

func (*CreateSequenceStmt) node() {}
func (*AlterSequenceStmt) node()  {}

// parseCreateSequence parses the rest of CREATE SEQUENCE.
func parseCreateSequence(c *cursor) (Node, error) {
	cs := &CreateSequenceStmt{IfNotExists: acceptIfNotExists(c)}
	var err error
	if cs.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if err := parseSequenceOptions(c, &cs.Opts, false, func() bool { return c.eof() || c.peek().isPunct(";") }); err != nil {
		return nil, err
	}
	return cs, c.expectEnd()
}

// parseAlterSequence parses the rest of ALTER SEQUENCE.
func parseAlterSequence(c *cursor) (Node, error) {
	as := &AlterSequenceStmt{IfExists: c.acceptWords("if", "exists")}
	var err error
	if as.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if c.eof() {
		return nil, c.errHere()
	}
	if err := parseSequenceOptions(c, &as.Opts, true, func() bool { return c.eof() || c.peek().isPunct(";") }); err != nil {
		return nil, err
	}
	return as, c.expectEnd()
}

// parseSequenceOptions parses sequence options until done holds; alter
// allows RESTART.
func parseSequenceOptions(c *cursor, o *SequenceOptions, alter bool, done func() bool) error {
	for !done() {
		at := c.peek()
		if err := parseSequenceOption(c, o, alter); err != nil {
			return err
		}
		if c.i == 0 || at.Pos == c.peek().Pos && !c.eof() {
			return c.errHere()
		}
	}
	return nil
}

func parseSequenceOption(c *cursor, o *SequenceOptions, alter bool) error {
	var err error
	num := func(dst **int64) error {
		v, err := signedInteger(c)
		*dst = &v
		return err
	}
	switch {
	case c.acceptWord("as"):
		o.Type, err = parseTypeName(c)
	case c.acceptWord("increment"):
		c.acceptWord("by")
		err = num(&o.Increment)
	case c.acceptWord("minvalue"):
		err = num(&o.Min)
	case c.acceptWord("maxvalue"):
		err = num(&o.Max)
	case c.acceptWords("no", "minvalue"):
		o.NoMin = true
	case c.acceptWords("no", "maxvalue"):
		o.NoMax = true
	case c.acceptWords("no", "cycle"):
		f := false
		o.Cycle = &f
	case c.acceptWord("cycle"):
		t := true
		o.Cycle = &t
	case c.acceptWord("start"):
		c.acceptWord("with")
		err = num(&o.Start)
	case c.acceptWord("cache"):
		err = num(&o.Cache)
	case alter && c.acceptWord("restart"):
		o.Restart = true
		if c.acceptWord("with") || c.peek().Kind == TokNumber || c.peek().isPunct("-") || c.peek().isPunct("+") {
			err = num(&o.RestartWith)
		}
	case c.acceptWords("owned", "by"):
		o.HasOwnedBy = true
		o.OwnedBy, err = c.qualifiedName()
	case c.acceptWords("sequence", "name"):
		o.SequenceName, err = c.qualifiedName()
	default:
		return c.errHere()
	}
	return err
}

// signedInteger consumes an optionally signed integer literal.
func signedInteger(c *cursor) (int64, error) {
	neg := false
	if c.acceptPunct("-") {
		neg = true
	} else {
		c.acceptPunct("+")
	}
	t := c.peek()
	if t.Kind != TokNumber {
		return 0, c.errHere()
	}
	text := t.Text
	if neg {
		text = "-" + text
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, pgerr.New(pgerr.NumericOutOfRange, "value \"%s\" is out of range for type bigint", text).
			WithPosition(position(c.query, t.Pos))
	}
	c.i++
	return n, nil
}
