package sql

import "strings"

// RenameRelationRefs returns the query text def with the references to
// relation old (its own name, without schema) renamed to new, for
// showing a stored definition after ALTER ... RENAME TO (SHOW CREATE,
// pg_get_viewdef): the relation in FROM and JOIN items (and, with onIndex,
// where CREATE INDEX names the index or its table) and as the qualifier of a column
// (old.col). A FROM item without an alias keeps the old name as its
// alias when some qualifier uses it, as PostgreSQL shows it ("FROM new
// old"). The text only shows: views bind through their recorded
// bindings (catalog/bound.go), not through it; a reference this misses
// shows its old name.
func RenameRelationRefs(def, old, new string, onIndex bool) string {
	toks, err := Lex(def)
	if err != nil {
		return def
	}
	qualified := false
	for i, t := range toks {
		if isName(t, old) && i+1 < len(toks) && toks[i+1].isPunct(".") {
			qualified = true
		}
	}
	var b strings.Builder
	last := 0
	inFrom := map[int]bool{}
	depth := 0
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			inFrom[depth] = false
			depth--
		case t.isWord("from") || t.isWord("join"):
			inFrom[depth] = true
		case wordIn(t, fromEnders):
			inFrom[depth] = false
		}
		if !isName(t, old) || i == 0 {
			continue
		}
		prev := toks[i-1]
		if prev.isPunct(".") && i >= 3 && toks[i-2].Kind == TokIdent {
			prev = toks[i-3] // schema.old
		} else if prev.isPunct(".") {
			continue
		}
		item := prev.isWord("from") || prev.isWord("join") || prev.isPunct(",") && inFrom[depth] || onIndex && wordIn(prev, indexNameBefore)
		qualifier := i+1 < len(toks) && toks[i+1].isPunct(".") && !toks[i-1].isPunct(".")
		if !item && !qualifier {
			continue
		}
		repl := identText(new)
		if item && qualified && !aliased(toks, i) {
			repl += " " + identText(old)
		} else if qualifier && qualified && !item {
			continue // the alias above keeps it
		}
		b.WriteString(def[last:t.Pos])
		b.WriteString(repl)
		last = t.End
	}
	b.WriteString(def[last:])
	return b.String()
}

// indexNameBefore are the words after which CREATE INDEX names the index
// or its table.
var indexNameBefore = wordSet(`on index concurrently exists`)

var fromEnders = wordSet(`where group having order limit offset union except intersect window on using select fetch`)

// isName reports whether t is an identifier naming name.
func isName(t Token, name string) bool { return t.Kind == TokIdent && t.Text == name }

// aliased reports whether the FROM item at toks[i] has an alias.
func aliased(toks []Token, i int) bool {
	if i+1 >= len(toks) {
		return false
	}
	n := toks[i+1]
	return n.isWord("as") || n.Kind == TokIdent && !wordIn(n, aliasEnders)
}

var aliasEnders = wordSet(`where group having order limit offset union except intersect window on using join inner left right full cross natural fetch`)

// identText writes name as an identifier: bare when it lexes back to
// itself, else quoted.
func identText(name string) string {
	if plainIdent.MatchString(name) && !pgNotName[name] {
		return name
	}
	return quoteIdent(name)
}

// RenameColumnRefs returns the expression text e (a generation
// expression or CHECK constraint, over one table's columns) with its
// references to column old renamed to new: every name old that is not
// called as a function.
func RenameColumnRefs(e, old, new string) string {
	toks, err := Lex(e)
	if err != nil {
		return e
	}
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if !isName(t, old) || i+1 < len(toks) && (toks[i+1].isPunct("(") || toks[i+1].isPunct(".")) {
			continue
		}
		b.WriteString(e[last:t.Pos])
		b.WriteString(identText(new))
		last = t.End
	}
	b.WriteString(e[last:])
	return b.String()
}
