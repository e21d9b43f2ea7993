package binder

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// position returns the 1-based character position, in the whole query
// string, of the occurrence of ident in the statement's original text that
// lies nearest to node's parser offset; 0 when ident does not occur.
//
// The parser's offset is in the front end's rewritten text; the front end
// maps it back to the user's token (Statement.SourceOffset), and where it
// cannot, the offset itself is the hint, which differs from the original
// only around rewritten constructs. Statement.Offset is a byte offset;
// statements before this one are assumed to be ASCII.
func (b *binder) position(node ast.Node, ident string) int {
	i := nearestWord(b.st.Text, ident, b.hint(node))
	if i < 0 {
		return 0
	}
	return b.st.Offset + utf8.RuneCountInString(b.st.Text[:i]) + 1
}

// hint returns the byte offset in Statement.Text where node starts, as
// near as is known.
func (b *binder) hint(node ast.Node) int {
	if node == nil {
		return 0
	}
	off := node.OriginTextPosition()
	if src, ok := b.st.SourceOffset(off); ok && src >= b.st.Offset {
		return src - b.st.Offset
	}
	return off
}

// nodePosition returns the 1-based character position, in the whole query
// string, of the user's token where node starts; 0 when unknown.
func (b *binder) nodePosition(node ast.Node) int {
	if node == nil {
		return 0
	}
	src, ok := b.st.SourceOffset(node.OriginTextPosition())
	i := src - b.st.Offset
	if !ok || i < 0 || i > len(b.st.Text) {
		return 0
	}
	return b.st.Offset + utf8.RuneCountInString(b.st.Text[:i]) + 1
}

// atNode returns err positioned where node starts, unless it already has a
// position or is not a *pgerr.Error.
func (b *binder) atNode(err error, node ast.Node) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Position != 0 {
		return err
	}
	if pos := b.nodePosition(node); pos > 0 {
		return pe.WithPosition(pos)
	}
	return err
}

// nearestWord returns the byte index of the whole-word, case-insensitive
// occurrence of word in text nearest to hint (a quoted "word" counts from
// its opening quote), or -1.
func nearestWord(text, word string, hint int) int {
	if word == "" {
		return -1
	}
	lower, w := strings.ToLower(text), strings.ToLower(word)
	best := -1
	for from := 0; from <= len(lower); {
		j := strings.Index(lower[from:], w)
		if j < 0 {
			break
		}
		at := from + j
		from = at + 1
		if !wordAt(lower, at, len(w)) {
			continue
		}
		if at > 0 && lower[at-1] == '"' {
			at--
		}
		if best < 0 || abs(at-hint) < abs(best-hint) {
			best = at
		}
	}
	return best
}

// wordAt reports whether text[at:at+n] is not part of a longer identifier.
func wordAt(text string, at, n int) bool {
	if at > 0 && isIdentByte(text[at-1]) {
		return false
	}
	end := at + n
	return end >= len(text) || !isIdentByte(text[end])
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// at returns err positioned at ident (near node) unless it already has a
// position or is not a *pgerr.Error.
func (b *binder) at(err error, node ast.Node, ident string) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Position != 0 {
		return err
	}
	if pos := b.position(node, ident); pos > 0 {
		return pe.WithPosition(pos)
	}
	return err
}
