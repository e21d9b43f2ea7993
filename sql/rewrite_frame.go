package sql

import "github.com/pingcap/tidb/pkg/parser/ast"

// FrameOffsetUnit marks a window frame offset that rewriteFrameOffsets
// wrapped: its expression is the offset as the user wrote it, with no
// time unit.
const FrameOffsetUnit = ast.TimeUnitSecondMicrosecond

// rewriteFrameOffsets lets a window frame's offset be any expression, as
// in PostgreSQL, where TiDB's grammar takes only an unsigned number or
// INTERVAL expr unit: an offset other than a plain number is wrapped in
// INTERVAL ( expr ) SECOND_MICROSECOND, which the binder reads back as
// the expression alone (FrameOffsetUnit):
//
//	RANGE BETWEEN '1 hour'::interval PRECEDING AND CURRENT ROW
//	  ->  range between interval ( __sdb_cast( '1 hour' , 'interval' ) ) second_microsecond preceding and current row
//
// It runs after rewriteCasts (an offset's INTERVAL '1 hour' is a cast by
// then).
func rewriteFrameOffsets(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 1; i < len(toks); i++ {
		if !toks[i].isWord("preceding") && !toks[i].isWord("following") {
			continue
		}
		start := scanLevel(toks, i-1, -1, func(k int) bool {
			return toks[k].isWord("between") || toks[k].isWord("and") || toks[k].isWord("rows") ||
				toks[k].isWord("range") || toks[k].isWord("groups")
		})
		if start < 0 || start >= i-1 || !wordIn(toks[start], frameStartWords) {
			continue // not a frame bound (or an empty offset: TiDB reports it)
		}
		off := toks[start+1 : i]
		if len(off) == 1 && (off[0].Kind == TokNumber || off[0].isWord("unbounded")) {
			continue
		}
		if len(off) > 0 && off[0].isWord("interval") {
			continue // MySQL's INTERVAL expr unit: left to TiDB
		}
		at := toks[i]
		e.insert(start+1, raw("interval", at), punct("(", at))
		e.insert(i, punct(")", at), raw("second_microsecond", at))
	}
	return e.apply(toks), nil
}

var frameStartWords = wordSet(`between and rows range groups`)
