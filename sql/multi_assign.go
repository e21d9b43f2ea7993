package sql

import "github.com/streamdb/streamdb/internal/pgerr"

// Multiple-column assignments, which the TiDB parser does not know:
//
//	UPDATE t SET (a, b) = (e1, e2), c = e3
//	UPDATE t SET (a) = ROW(e1)
//	... ON CONFLICT (k) DO UPDATE SET (a, b) = (EXCLUDED.a, EXCLUDED.b)
//
// become one assignment per column, a = e1, b = e2, as PostgreSQL reads
// them. The source must be a ROW() or a parenthesized list of two or
// more values (a lone parenthesized value is an expression: 0A000, as
// in PostgreSQL), of as many values as columns (42601). A sub-SELECT
// source is 0A000: streamdb's UPDATE takes no subquery in SET yet.

// expandUpdateSet expands the multiple-column items of the SET list of
// the UPDATE at toks[m].
func (s *stmtParser) expandUpdateSet(toks []Token, m int) ([]Token, error) {
	set := findTopLevel(toks, m+1, func(i int) bool { return toks[i].isWord("set") })
	if set < 0 {
		return toks, nil
	}
	end := findTopLevel(toks, set+1, func(i int) bool { return toks[i].isWord("where") })
	if end < 0 {
		end = len(toks)
	}
	list, err := s.expandMultiAssign(toks[set+1 : end])
	if err != nil {
		return nil, err
	}
	out := append(append([]Token(nil), toks[:set+1]...), list...)
	return append(out, toks[end:]...), nil
}

// expandMultiAssign rewrites the multiple-column items of the SET list
// set (the tokens after SET, up to its end).
func (s *stmtParser) expandMultiAssign(set []Token) ([]Token, error) {
	items := splitArgs(set)
	multi := false
	for _, item := range items {
		multi = multi || len(item) > 0 && item[0].isPunct("(")
	}
	if !multi {
		return set, nil
	}
	out := make([]Token, 0, len(set))
	for k, item := range items {
		if k > 0 {
			out = append(out, punct(",", item[0]))
		}
		if len(item) == 0 || !item[0].isPunct("(") {
			out = append(out, item...)
			continue
		}
		expanded, err := s.multiAssign(item)
		if err != nil {
			return nil, err
		}
		out = append(out, expanded...)
	}
	return out, nil
}

// multiAssign rewrites one item (a, b) = source.
func (s *stmtParser) multiAssign(item []Token) ([]Token, error) {
	closing := matchForward(item, 0)
	if closing < 0 {
		return nil, syntaxErrorAtEnd(s.query, item[len(item)-1].End)
	}
	var cols []Token
	for _, c := range splitArgs(item[1:closing]) {
		if len(c) != 1 || c[0].Kind != TokIdent {
			return nil, errAtIndex(s.query, item, closing)
		}
		cols = append(cols, c[0])
	}
	if closing+1 >= len(item) || !item[closing+1].isPunct("=") {
		return nil, errAtIndex(s.query, item, closing+1)
	}
	vals, err := s.multiAssignSource(item[closing+2:], item[closing+1])
	if err != nil {
		return nil, err
	}
	if len(vals) != len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values").
			WithPosition(position(s.query, item[closing+2].Pos))
	}
	var out []Token
	for k, c := range cols {
		if k > 0 {
			out = append(out, punct(",", c))
		}
		out = append(out, c, punct("=", c))
		out = append(out, vals[k]...)
	}
	return out, nil
}

// multiAssignSource returns the values of the source src of a
// multiple-column assignment; eq is its '=' (for errors at the end).
func (s *stmtParser) multiAssignSource(src []Token, eq Token) ([][]Token, error) {
	if len(src) == 0 {
		return nil, syntaxErrorAtEnd(s.query, eq.End)
	}
	open, row := 0, false
	if src[0].isWord("row") && len(src) > 1 && src[1].isPunct("(") {
		open, row = 1, true
	}
	notSource := pgerr.New(pgerr.FeatureNotSupported,
		"source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression")
	if !src[open].isPunct("(") {
		return nil, notSource.WithPosition(position(s.query, src[0].Pos))
	}
	closing := matchForward(src, open)
	if closing != len(src)-1 {
		return nil, notSource.WithPosition(position(s.query, src[0].Pos))
	}
	if !row && startsQuery(src, open+1) {
		return nil, notSupportedAt(s.query, src[0], "multiple-column UPDATE from a sub-SELECT is not supported")
	}
	vals := splitArgs(src[open+1 : closing])
	for _, v := range vals {
		if len(v) == 0 {
			return nil, errAtIndex(s.query, src, closing)
		}
	}
	if !row && len(vals) < 2 {
		at := src[0]
		if len(vals) == 1 {
			at = vals[0][0]
		}
		return nil, notSource.WithPosition(position(s.query, at.Pos))
	}
	return vals, nil
}
