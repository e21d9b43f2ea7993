package sql

import "strings"

// rewriteCasts turns every Postgres cast into the marker call
// __sdb_cast(value, 'type'), type spelled as parseTypeName returns it:
//
//	x::int                      -> __sdb_cast(x, 'int')
//	x::int::text                -> __sdb_cast(__sdb_cast(x, 'int'), 'text')
//	CAST(x AS numeric(10,2))    -> __sdb_cast(x, 'numeric(10,2)')
//	DATE '2024-01-01'           -> __sdb_cast('2024-01-01', 'date')
//	INTERVAL '1 day'            -> __sdb_cast('1 day', 'interval')
//	INTERVAL '2' HOUR           -> __sdb_cast('2 hour', 'interval')
func rewriteCasts(query string, toks []Token) ([]Token, error) {
	b := &castBuilder{query: query, toks: toks, out: make([]Token, 0, len(toks)+8), ends: map[int]castEnd{}}
	for i := 0; i < len(toks); i++ {
		next, err := b.step(i)
		if err != nil {
			return nil, err
		}
		i = next
	}
	return b.out, nil
}

// castBuilder emits the rewritten tokens in one left-to-right pass, so a
// statement with many casts (a bulk INSERT) costs linear time: a postfix
// :: rewrites only the tail of out, and a CAST(x AS t) emits its head when
// reached and its tail when the walk reaches its AS.
type castBuilder struct {
	query string
	toks  []Token
	out   []Token
	ends  map[int]castEnd // by index of a CAST's AS
}

// castEnd is the pending tail of a CAST(x AS type).
type castEnd struct {
	closing int // index of the CAST's ')'
	typ     string
	at      Token
}

// step handles toks[i] and returns the index of the last token consumed.
func (b *castBuilder) step(i int) (int, error) {
	t := b.toks[i]
	if e, ok := b.ends[i]; ok {
		b.out = append(b.out, punct(",", e.at), strLit(e.typ, e.at), punct(")", e.at))
		return e.closing, nil
	}
	switch {
	case t.Kind == TokOp && t.Text == "::":
		return b.typecast(i)
	case t.isWord("cast") && i+1 < len(b.toks) && b.toks[i+1].isPunct("(") && !afterDot(b.toks, i):
		return b.castCall(i)
	case wordIn(t, typedLiteralWords) && !afterDot(b.toks, i):
		if call, last, ok := typedLiteral(b.query, b.toks, i); ok {
			b.out = append(b.out, call...)
			return last, nil
		}
	}
	b.out = append(b.out, t)
	return i, nil
}

func afterDot(toks []Token, i int) bool {
	return i > 0 && (toks[i-1].isPunct(".") || toks[i-1].isPunct("::"))
}

// castCall builds __sdb_cast(value..., 'typ') standing for at.
func castCall(at Token, value []Token, typ string) []Token {
	out := make([]Token, 0, len(value)+5)
	out = append(out, raw(markerCast, at), punct("(", at))
	out = append(out, value...)
	return append(out, punct(",", at), strLit(typ, at), punct(")", at))
}

// typecast rewrites the operand (already emitted) :: type at i.
func (b *castBuilder) typecast(i int) (int, error) {
	start := operandStart(b.out, len(b.out)-1)
	if start < 0 {
		return 0, syntaxErrorAt(b.query, b.toks[i])
	}
	c := &cursor{query: b.query, toks: b.toks, i: i + 1}
	typ, err := parseTypeName(c)
	if err != nil {
		return 0, err
	}
	operand := append([]Token(nil), b.out[start:]...)
	call := castCall(b.toks[i], operand, typ)
	// The call starts where its operand does, so that the parser's offset
	// of the cast expression maps back to the operand (Statement.SourceOffset).
	call[0].Pos, call[0].End, call[1].Pos, call[1].End = operand[0].Pos, operand[0].End, operand[0].Pos, operand[0].End
	b.out = append(b.out[:start], call...)
	return c.i - 1, nil
}

// castCall emits the head of CAST(x AS type) at i and schedules its tail.
func (b *castBuilder) castCall(i int) (int, error) {
	toks := b.toks
	closing := matchForward(toks, i+1)
	if closing < 0 {
		b.out = append(b.out, toks[i])
		return i, nil // unbalanced: TiDB reports it
	}
	as := scanLevel(toks, i+2, 1, func(k int) bool { return toks[k].isWord("as") })
	if as >= closing || as == i+2 {
		return 0, errAtIndex(b.query, toks, as)
	}
	c := &cursor{query: b.query, toks: toks, i: as + 1}
	typ, err := parseTypeName(c)
	if err != nil {
		return 0, err
	}
	if c.i != closing {
		return 0, errAtIndex(b.query, toks, c.i)
	}
	b.ends[as] = castEnd{closing: closing, typ: typ, at: toks[i]}
	b.out = append(b.out, raw(markerCast, toks[i]), punct("(", toks[i]))
	return i + 1, nil
}

// typedLiteralWords are the type names recognized in a typed literal
// (type 'string').
var typedLiteralWords = wordSet(`date time timestamp timestamptz timetz interval int int2 int4 int8
	integer smallint bigint real float float4 float8 double numeric decimal bool boolean text
	varchar char character json jsonb uuid bytea name oid regclass`)

// intervalUnits may follow an interval literal: INTERVAL '2' HOUR.
var intervalUnits = wordSet(`year month day hour minute second`)

// typedLiteral returns the cast call for type 'string' at i and the index
// of its last token; ok is false when no typed literal starts at i.
func typedLiteral(query string, toks []Token, i int) ([]Token, int, bool) {
	c := &cursor{query: query, toks: toks, i: i}
	typ, err := parseTypeName(c)
	if err != nil || c.eof() || c.peek().Kind != TokString || c.peek().Prefix == 'B' || c.peek().Prefix == 'X' {
		return nil, 0, false
	}
	lit := c.advance()
	val := lit.Text
	if typ == "interval" && wordIn(c.peek(), intervalUnits) && !c.peekAt(1).isWord("to") {
		val += " " + c.advance().Text
	}
	return castCall(toks[i], []Token{strLit(val, lit)}, typ), c.i - 1, true
}

// operandStart returns the index of the first token of the primary
// expression that ends at j (what a postfix :: applies to), or -1.
func operandStart(toks []Token, j int) int {
	if j < 0 {
		return -1
	}
	t := toks[j]
	switch {
	case t.isPunct(")"):
		return callStart(toks, matchBackward(toks, j))
	case t.isPunct("]"):
		o := matchBackward(toks, j)
		if o > 0 && toks[o-1].isWord("array") {
			return o - 1
		}
		if o < 0 {
			return -1
		}
		return operandStart(toks, o-1)
	case t.isWord("end"):
		return caseStart(toks, j)
	case t.Kind == TokIdent:
		if !t.Quoted && exprStartWords[t.Text] {
			return -1
		}
		return qualifiedStart(toks, j)
	case t.Kind == TokNumber || t.Kind == TokString || t.Kind == TokParam:
		return j
	}
	return -1
}

// callStart extends a parenthesized group opening at o to the function
// name before it, and over a window (f(x) OVER (...)) or FILTER clause.
func callStart(toks []Token, o int) int {
	if o <= 0 {
		return o
	}
	prev := toks[o-1]
	if prev.isWord("over") || prev.isWord("filter") {
		if s := operandStart(toks, o-2); s >= 0 {
			return s
		}
		return o
	}
	if prev.isWord("zone") && o >= 3 && toks[o-2].isWord("time") && toks[o-3].isWord("at") {
		return o // x AT TIME ZONE (z): no call of a function zone
	}
	if prev.Kind == TokIdent && (prev.Quoted || !exprStartWords[prev.Text]) {
		return qualifiedStart(toks, o-1)
	}
	if prev.Kind == tokRaw && strings.HasPrefix(prev.Text, markerPrefix) {
		return o - 1
	}
	return o
}

// qualifiedStart extends the identifier at j back over a.b.c qualifiers.
func qualifiedStart(toks []Token, j int) int {
	for j >= 2 && toks[j-1].isPunct(".") && toks[j-2].Kind == TokIdent {
		j -= 2
	}
	return j
}

// caseStart returns the index of the CASE that the END at j closes.
func caseStart(toks []Token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch {
		case toks[k].isWord("end"):
			depth++
		case toks[k].isWord("case"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}
