package sql

import "strings"

// Span is one statement of a query string: Text is query[Offset:Offset+len(Text)],
// without the terminating ';' and surrounding whitespace.
type Span struct {
	Text   string
	Offset int
	// tokens of the statement; nil for Split's result after a lexical
	// error in the remainder.
	toks []Token
}

// Split cuts query into statements at each ';' that is not inside a
// string, quoted identifier, dollar quote or comment. Statements that are
// empty or whitespace-only are dropped; comment-only ones are kept. After a
// lexical error (an unterminated string, say) the rest of the query is one
// last span. Split never fails: errors surface when a span is parsed.
func Split(query string) []Span {
	toks, err := Lex(query)
	spans := splitTokens(query, toks)
	if err != nil {
		spans = appendRest(query, spans, toks)
	}
	return spans
}

// splitTokens cuts the token stream at ';' tokens.
func splitTokens(query string, toks []Token) []Span {
	var spans []Span
	start, first := 0, 0
	for i, t := range toks {
		if t.isPunct(";") {
			spans = appendSpan(spans, query, start, t.Pos, toks[first:i])
			start, first = t.End, i+1
		}
	}
	end := len(query)
	return appendSpan(spans, query, start, end, toks[first:])
}

// appendRest replaces the last span (cut short by a lexical error) by the
// rest of the query from its start.
func appendRest(query string, spans []Span, toks []Token) []Span {
	start := 0
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].isPunct(";") {
			start = toks[i].End
			break
		}
	}
	for len(spans) > 0 && spans[len(spans)-1].Offset >= start {
		spans = spans[:len(spans)-1]
	}
	return appendSpan(spans, query, start, len(query), nil)
}

func appendSpan(spans []Span, query string, start, end int, toks []Token) []Span {
	text := query[start:end]
	trimmed := strings.TrimLeft(text, " \t\n\r\f\v")
	off := start + len(text) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, " \t\n\r\f\v")
	if trimmed == "" {
		return spans
	}
	return append(spans, Span{Text: trimmed, Offset: off, toks: toks})
}
