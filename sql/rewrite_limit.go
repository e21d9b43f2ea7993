package sql

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// noLimit is the LIMIT count written for an OFFSET or FETCH without a
// count (TiDB needs LIMIT before OFFSET); the binder reads it as no limit.
const noLimit = "9223372036854775807"

// rewriteLimit puts Postgres's row-limiting clauses in the one form TiDB
// reads, LIMIT count [OFFSET skip]:
//
//	OFFSET n [ROW|ROWS]                      ->  LIMIT 9223372036854775807 OFFSET n
//	OFFSET n LIMIT c / LIMIT ALL OFFSET n    ->  LIMIT c OFFSET n / LIMIT 9223372036854775807 OFFSET n
//	FETCH FIRST|NEXT [c] ROW|ROWS ONLY       ->  LIMIT c (c defaults to 1)
//
// LIMIT, OFFSET and FETCH are reserved in Postgres, so an unquoted one
// starts the clause unless it follows '.' or AS (a column label).
func rewriteLimit(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 1; i < len(toks); i++ {
		if !isLimitWord(toks, i) {
			continue
		}
		end, err := rewriteLimitAt(query, toks, i, e)
		if err != nil {
			return nil, err
		}
		i = end - 1
	}
	return e.apply(toks), nil
}

func isLimitWord(toks []Token, i int) bool {
	if !wordIn(toks[i], limitWords) || afterDot(toks, i) || toks[i-1].isWord("as") {
		return false
	}
	return i+1 < len(toks) && !toks[i+1].isPunct("(")
}

var (
	limitWords = wordSet(`limit offset fetch`)
	limitStop  = wordSet(`limit offset fetch for union intersect except row rows only`)
)

// rewriteLimitAt rewrites the run of LIMIT/OFFSET/FETCH clauses starting
// at i and returns the index after it.
func rewriteLimitAt(query string, toks []Token, i int, e *edits) (int, error) {
	value := func(j int) int {
		return scanLevel(toks, j, 1, func(k int) bool { return wordIn(toks[k], limitStop) })
	}
	var count, offset []Token
	haveCount, haveOffset, rewrite := false, false, false
	j := i
	for j < len(toks) && wordIn(toks[j], limitWords) {
		at := toks[j]
		switch at.Text {
		case "limit":
			if haveCount {
				return 0, syntaxErrorAt(query, at)
			}
			end := value(j + 1)
			count, haveCount = toks[j+1:end], true
			if len(count) == 1 && count[0].isWord("all") {
				count, rewrite = nil, true
			}
			j = end
		case "offset":
			if haveOffset {
				return 0, syntaxErrorAt(query, at)
			}
			end := value(j + 1)
			offset, haveOffset = toks[j+1:end], true
			if end < len(toks) && (toks[end].isWord("row") || toks[end].isWord("rows")) {
				end++
				rewrite = true
			}
			j = end
		case "fetch":
			if haveCount || j+1 >= len(toks) || !(toks[j+1].isWord("first") || toks[j+1].isWord("next")) {
				return 0, errAtIndex(query, toks, j)
			}
			end := value(j + 2)
			count, haveCount, rewrite = toks[j+2:end], true, true
			if len(count) == 0 {
				count = []Token{raw("1", at)}
			}
			if end >= len(toks) || !(toks[end].isWord("row") || toks[end].isWord("rows")) {
				return 0, errAtIndex(query, toks, end)
			}
			end++
			if end >= len(toks) || !toks[end].isWord("only") {
				return 0, errAtIndex(query, toks, end)
			}
			j = end + 1
		}
	}
	// TiDB reads a number or a parameter there; Postgres any constant
	// expression. The forms people write: LIMIT NULL (no limit), OFFSET
	// NULL (none), and a negative number (an error, as Postgres gives
	// when it evaluates the clause).
	var err error
	if count, rewrite, err = limitOperand(query, count, rewrite, "LIMIT", "2201W", nil); err != nil {
		return 0, err
	}
	if offset, rewrite, err = limitOperand(query, offset, rewrite, "OFFSET", "2201X", []Token{raw("0", toks[i])}); err != nil {
		return 0, err
	}
	if haveOffset && (!haveCount || toks[i].isWord("offset")) {
		rewrite = true
	}
	if !rewrite {
		return j, nil
	}
	at := toks[i]
	out := []Token{raw("limit", at)}
	if count == nil {
		out = append(out, raw(noLimit, at))
	} else {
		out = append(out, count...)
	}
	if haveOffset {
		out = append(out, raw("offset", at))
		out = append(out, offset...)
	}
	e.remove(i, j)
	e.insert(j, out...)
	return j, nil
}

// limitOperand rewrites the tokens of a LIMIT or OFFSET value TiDB does
// not read: NULL becomes ifNull (nil: no limit), -0 becomes 0, and -n
// is the error Postgres gives for a negative count.
func limitOperand(query string, v []Token, rewrite bool, clause, code string, ifNull []Token) ([]Token, bool, error) {
	switch {
	case len(v) == 1 && v[0].isWord("null"):
		return ifNull, true, nil
	case len(v) == 2 && v[0].isPunct("-") && v[1].Kind == TokNumber:
		if strings.Trim(v[1].Text, "0.") == "" {
			return v[1:], true, nil // -0
		}
		return nil, false, pgerr.New(code, "%s must not be negative", clause).WithPosition(position(query, v[0].Pos))
	}
	return v, rewrite, nil
}

// rewriteExtract turns extract(field FROM x) into __sdb_extract('field', x):
// Postgres's fields (dow, epoch, isodow, ...) are not TiDB time units, and
// Postgres also accepts the field as a string.
func rewriteExtract(query string, toks []Token) ([]Token, error) {
	for i := 0; i+3 < len(toks); i++ {
		t := toks[i]
		if !t.isWord("extract") || afterDot(toks, i) || !toks[i+1].isPunct("(") || !toks[i+3].isWord("from") {
			continue
		}
		f := toks[i+2]
		if f.Kind != TokIdent && !(f.Kind == TokString && f.Prefix == 0) {
			continue
		}
		toks[i] = raw(markerExtract, t)
		toks[i+2] = strLit(strings.ToLower(f.Text), f)
		toks[i+3] = punct(",", toks[i+3])
		i += 3
	}
	return toks, nil
}
