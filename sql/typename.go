package sql

import "strings"

// parseTypeName consumes a Postgres type name and returns it the way the
// markers and ColumnDef.TypeName spell it: lower case (quoted names keep
// their case), words separated by one space, modifiers without spaces, a
// "pg_catalog." qualifier dropped:
//
//	int, bigint, double precision, character varying(20), numeric(10,2),
//	timestamp(3) with time zone, time without time zone, int[], text[][]
//
// It does not check that the type exists; the binder does.
func parseTypeName(c *cursor) (string, error) {
	name, err := typeWords(c)
	if err != nil {
		return "", err
	}
	mods, err := typeModifiers(c)
	if err != nil {
		return "", err
	}
	name += mods
	if name, err = timeZoneSuffix(c, name); err != nil {
		return "", err
	}
	return arraySuffix(c, name)
}

// typeWords consumes the words of the type name proper.
func typeWords(c *cursor) (string, error) {
	if c.peek().Kind != TokIdent {
		return "", c.errHere()
	}
	first, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	first = strings.TrimPrefix(first, "pg_catalog.")
	switch first {
	case "double":
		if c.acceptWord("precision") {
			return "double precision", nil
		}
	case "character", "char", "bit", "national":
		return multiWordType(c, first), nil
	}
	return first, nil
}

// multiWordType completes character varying, national character varying,
// bit varying, ...
func multiWordType(c *cursor, first string) string {
	name := first
	if first == "national" && (c.acceptWord("character") || c.acceptWord("char")) {
		name += " character"
	}
	if c.acceptWord("varying") {
		name += " varying"
	}
	return name
}

// typeModifiers consumes an optional (n [, n ...]) and returns it without
// spaces.
func typeModifiers(c *cursor) (string, error) {
	if !c.peek().isPunct("(") {
		return "", nil
	}
	c.advance()
	var mods []string
	for {
		neg := ""
		if c.acceptPunct("-") {
			neg = "-"
		}
		t := c.peek()
		if t.Kind != TokNumber && t.Kind != TokIdent {
			return "", c.errHere()
		}
		c.advance()
		mods = append(mods, neg+t.Text)
		if c.acceptPunct(")") {
			return "(" + strings.Join(mods, ",") + ")", nil
		}
		if err := c.expectPunct(","); err != nil {
			return "", err
		}
	}
}

// timeZoneSuffix consumes WITH[OUT] TIME ZONE after time and timestamp.
func timeZoneSuffix(c *cursor, name string) (string, error) {
	base, _, _ := strings.Cut(name, "(")
	if base != "time" && base != "timestamp" {
		return name, nil
	}
	switch {
	case c.acceptWords("with", "time", "zone"):
		return name + " with time zone", nil
	case c.acceptWords("without", "time", "zone"):
		return name + " without time zone", nil
	}
	return name, nil
}

// arraySuffix consumes [] / [n] (repeated) or ARRAY / ARRAY[n].
func arraySuffix(c *cursor, name string) (string, error) {
	if c.acceptWord("array") {
		if c.peek().isPunct("[") {
			if _, err := arrayBound(c); err != nil {
				return "", err
			}
		}
		return name + "[]", nil
	}
	for c.peek().isPunct("[") {
		if _, err := arrayBound(c); err != nil {
			return "", err
		}
		name += "[]"
	}
	return name, nil
}

// arrayBound consumes [ [n] ]; Postgres ignores the bound.
func arrayBound(c *cursor) (string, error) {
	c.advance()
	n := ""
	if c.peek().Kind == TokNumber {
		n = c.advance().Text
	}
	return n, c.expectPunct("]")
}
