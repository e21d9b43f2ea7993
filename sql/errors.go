package sql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// position converts a byte offset in query to the 1-based character
// position Postgres reports (and psql draws its caret from).
func position(query string, off int) int {
	off = max(0, min(off, len(query)))
	return utf8.RuneCountInString(query[:off]) + 1
}

// lexError is a 42601 at byte offset off, its message followed by
// ` at or near "<text from off>"` the way Postgres words lexer errors.
func lexError(query string, off int, format string, args ...any) error {
	return lexErrorCode(query, off, pgerr.SyntaxError, format, args...)
}

func lexErrorCode(query string, off int, code, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if code == pgerr.SyntaxError && !hasNear(msg) {
		msg += " at or near " + quoteNear(query[off:min(len(query), off+40)])
	}
	return pgerr.New(code, "%s", msg).WithPosition(position(query, off))
}

func hasNear(msg string) bool { return strings.Contains(msg, "at or near") }

// quoteNear quotes s for an "at or near" message, cut at the first
// whitespace the way Postgres shows the offending token.
func quoteNear(s string) string {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			s = s[:i]
			break
		}
	}
	return `"` + s + `"`
}

// syntaxErrorAt is Postgres's `syntax error at or near "tok"` pointing at
// the original text of t.
func syntaxErrorAt(query string, t Token) error {
	return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", query[t.Pos:t.End]).
		WithPosition(position(query, t.Pos))
}

// syntaxErrorAtEnd is `syntax error at end of input`, pointing just past
// byte offset end.
func syntaxErrorAtEnd(query string, end int) error {
	return pgerr.New(pgerr.SyntaxError, "syntax error at end of input").
		WithPosition(position(query, end))
}

// notSupportedAt is a 0A000 pointing at t.
func notSupportedAt(query string, t Token, format string, args ...any) error {
	return pgerr.New(pgerr.FeatureNotSupported, format, args...).WithPosition(position(query, t.Pos))
}
