package sql

// refuseWithDML refuses a data-modifying statement in a WITH clause
// (WITH d AS (DELETE ... RETURNING *) INSERT INTO archive SELECT * FROM
// d) with a clear 0A000 at its first word. PostgreSQL runs such a
// statement and the main one as one; streamdb commits each table's
// writes in an epoch of their own (internal/engine/write), so it cannot
// yet make the two one atomic change. A WITH clause that is not well
// formed is left to the parser.
func (s *stmtParser) refuseWithDML(toks []Token) error {
	if len(toks) == 0 || !toks[0].isWord("with") {
		return nil
	}
	i := 1
	if i < len(toks) && toks[i].isWord("recursive") {
		i++
	}
	for i < len(toks) && toks[i].Kind == TokIdent {
		i++
		if i < len(toks) && toks[i].isPunct("(") {
			if i = matchForward(toks, i); i < 0 {
				return nil
			}
			i++
		}
		if i >= len(toks) || !toks[i].isWord("as") {
			return nil
		}
		i++
		if i < len(toks) && toks[i].isWord("not") {
			i++
		}
		if i < len(toks) && toks[i].isWord("materialized") {
			i++
		}
		if i+1 >= len(toks) || !toks[i].isPunct("(") {
			return nil
		}
		if body := toks[i+1]; body.isWord("insert") || body.isWord("update") || body.isWord("delete") || body.isWord("merge") {
			return notSupportedAt(s.query, body, "data-modifying statements in WITH are not supported")
		}
		if i = matchForward(toks, i); i < 0 || i+1 >= len(toks) || !toks[i+1].isPunct(",") {
			return nil
		}
		i += 2
	}
	return nil
}
