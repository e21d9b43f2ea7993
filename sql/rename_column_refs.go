package sql

import "strings"

// RenameQueryColumnRefs returns the query text def (a view's SELECT)
// with its references to column old of relation rel (its own name,
// without schema) renamed to new, for showing a stored definition after
// ALTER ... RENAME COLUMN (SHOW CREATE, pg_get_viewdef), as PostgreSQL
// deparses a view from what it is bound to: old qualified by rel or by
// an alias of it (t.old, x.old), and, unless qualifiedOnly (another
// relation the query reads has a column old), old unqualified in a
// SELECT whose FROM names rel. A select-list item that is the column
// alone keeps its output name: "t.new AS old", as PostgreSQL shows it.
// Like RenameRelationRefs it only shows: a reference it misses shows
// its old name.
func RenameQueryColumnRefs(def, rel, old, new string, qualifiedOnly bool) string {
	toks, err := Lex(def)
	if err != nil {
		return def
	}
	sc := scanQueryScopes(toks, rel)
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if !isName(t, old) || i == 0 || i+1 < len(toks) && (toks[i+1].isPunct("(") || toks[i+1].isPunct(".")) {
			continue
		}
		start := i // where the reference starts
		switch prev := toks[i-1]; {
		case prev.isPunct("."):
			if i < 2 || !sc.names[toks[i-2].Text] || toks[i-2].Kind != TokIdent {
				continue
			}
			start = i - 2
		case qualifiedOnly || !sc.reads[sc.scope[i]] || prev.isWord("as") || sc.inFrom[i] && sc.direct[i] && fromItemAt(toks, i):
			continue
		}
		repl := identText(new)
		if sc.selectItem(toks, start, i) {
			repl += " AS " + identText(old)
		}
		b.WriteString(def[last:t.Pos])
		b.WriteString(repl)
		last = t.End
	}
	b.WriteString(def[last:])
	return b.String()
}

// queryScopes is what RenameQueryColumnRefs knows of a query's tokens:
// the names rel goes by (its own and its aliases), the SELECTs (by the
// index of their first token) that read it, and, for each token, its
// SELECT, whether it stands in it directly (not in a function's
// parentheses), and whether it is in its select list or FROM list.
type queryScopes struct {
	names    map[string]bool
	reads    map[int]bool
	scope    []int
	direct   []bool
	inSelect []bool
	inFrom   []bool
}

// queryFrame is an open parenthesis while scanning: a subquery's (query)
// or another's (a function's arguments, an expression's).
type queryFrame struct {
	query            bool
	id               int
	inFrom, inSelect bool
}

func scanQueryScopes(toks []Token, rel string) *queryScopes {
	n := len(toks)
	sc := &queryScopes{names: map[string]bool{rel: true}, reads: map[int]bool{},
		scope: make([]int, n), direct: make([]bool, n), inSelect: make([]bool, n), inFrom: make([]bool, n)}
	stack := []queryFrame{{query: true}}
	q := 0 // the innermost query frame
	for i, t := range toks {
		top := len(stack) - 1
		switch {
		case t.isPunct("("):
			sub := i+1 < n && (toks[i+1].isWord("select") || toks[i+1].isWord("with") || toks[i+1].isWord("values"))
			stack = append(stack, queryFrame{query: sub, id: i + 1})
		case t.isPunct(")") && top > 0:
			stack = stack[:top]
		case q != top: // in a function's parentheses: FROM there is not a query's
		case t.isWord("select"):
			stack[q].inSelect, stack[q].inFrom = true, false
		case t.isWord("from") || t.isWord("join"):
			stack[q].inFrom, stack[q].inSelect = true, false
		case wordIn(t, fromEnders):
			stack[q].inFrom, stack[q].inSelect = false, false
		}
		for q = len(stack) - 1; !stack[q].query; q-- {
		}
		f := stack[q]
		sc.scope[i], sc.direct[i], sc.inSelect[i], sc.inFrom[i] = f.id, q == len(stack)-1, f.inSelect, f.inFrom
		if isName(t, rel) && f.inFrom && sc.direct[i] && i > 0 && fromItemAt(toks, i) {
			sc.reads[f.id] = true
			if a := aliasAfter(toks, i); a != "" {
				sc.names[a] = true
			}
		}
	}
	return sc
}

// fromItemAt reports whether toks[i] names a relation of a FROM list:
// after FROM, JOIN or a comma, or after schema. there.
func fromItemAt(toks []Token, i int) bool {
	if toks[i-1].isPunct(".") {
		if i < 3 {
			return false
		}
		i -= 2
	}
	p := toks[i-1]
	return p.isWord("from") || p.isWord("join") || p.isPunct(",")
}

// aliasAfter returns the alias of the FROM item at toks[i], if any.
func aliasAfter(toks []Token, i int) string {
	if i+1 >= len(toks) {
		return ""
	}
	n := toks[i+1]
	if n.isWord("as") && i+2 < len(toks) {
		return toks[i+2].Text
	}
	if n.Kind == TokIdent && !wordIn(n, aliasEnders) {
		return n.Text
	}
	return ""
}

// selectItem reports whether toks[start:end+1] is a whole item of a
// select list, without an alias.
func (sc *queryScopes) selectItem(toks []Token, start, end int) bool {
	if !sc.inSelect[end] || !sc.direct[end] || start == 0 {
		return false
	}
	p := toks[start-1]
	if !p.isWord("select") && !p.isWord("distinct") && !p.isWord("all") && !p.isPunct(",") {
		return false
	}
	if end+1 == len(toks) {
		return true
	}
	n := toks[end+1]
	return n.isPunct(",") || n.isWord("from") || n.isPunct(")") || n.isPunct(";")
}

// RenameOutputColumn returns the query text def with its k-th output
// column (0-based, in the first SELECT's list at the top level) named
// new, for showing a view's definition after ALTER VIEW ... RENAME
// COLUMN, as PostgreSQL shows it: the item's alias replaced, or "AS new"
// added. def itself when its list cannot be read so (a * before or at
// the item, an item k past the list).
func RenameOutputColumn(def string, k int, new string) string {
	toks, err := Lex(def)
	if err != nil {
		return def
	}
	items := topSelectItems(toks)
	if k >= len(items) {
		return def
	}
	for _, it := range items[:k+1] {
		if last := toks[it[1]-1]; last.isPunct("*") {
			return def
		}
	}
	first, end := items[k][0], items[k][1]
	last := toks[end-1]
	switch {
	case end-first >= 2 && toks[end-2].isWord("as"):
		return def[:last.Pos] + identText(new) + def[last.End:]
	case end-first >= 2 && implicitAlias(toks[end-2], last):
		return def[:last.Pos] + identText(new) + def[last.End:]
	}
	return def[:last.End] + " AS " + identText(new) + def[last.End:]
}

// topSelectItems returns the token ranges [first, end) of the items of
// the first select list at the top level of toks.
func topSelectItems(toks []Token) [][2]int {
	depth, start := 0, -1
	var items [][2]int
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth != 0:
		case start < 0 && t.isWord("select"):
			start = i + 1
			if start < len(toks) && toks[start].isWord("all") {
				start++
			}
			if start < len(toks) && toks[start].isWord("distinct") {
				if start+1 < len(toks) && toks[start+1].isWord("on") {
					return nil // DISTINCT ON's list is not read here
				}
				start++
			}
		case start >= 0 && (t.isPunct(",") || t.isWord("from") || wordIn(t, fromEnders) || t.isPunct(";")):
			items = append(items, [2]int{start, i})
			if !t.isPunct(",") {
				return items
			}
			start = i + 1
		}
	}
	if start >= 0 && start < len(toks) {
		items = append(items, [2]int{start, len(toks)})
	}
	return items
}

// implicitAlias reports whether last, after prev, is an alias written
// without AS (count(*) n, a x).
func implicitAlias(prev, last Token) bool {
	if last.Kind != TokIdent || !last.Quoted && wordIn(last, exprEndWords) {
		return false
	}
	return prev.isPunct(")") || prev.Kind == TokIdent && (prev.Quoted || !wordIn(prev, exprEndWords)) ||
		prev.Kind != TokIdent && prev.Kind != TokPunct && prev.Kind != TokOp
}

// exprEndWords are words that end or continue an expression, never an
// alias after it.
var exprEndWords = wordSet(`end null true false unknown is not and or then else when case distinct as collate from`)
