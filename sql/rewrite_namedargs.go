package sql

// NamedArgFunc is the marker call a named function argument becomes:
// f(a => x, b := y) is f(NamedArgFunc('a', x), NamedArgFunc('b', y)); the
// binder puts the arguments in the function's parameter order.
const NamedArgFunc = "__sdb_named_arg"

// rewriteNamedArgs turns each named argument, name => value or name :=
// value, right after a call's '(' or a ',' of its argument list, into a
// NamedArgFunc call. It runs before checkTokens, which would refuse =>
// and ':'; the marker is a raw token, which checkTokens passes.
func rewriteNamedArgs(query string, toks []Token) ([]Token, error) {
	if !hasNamedArg(toks) {
		return toks, nil
	}
	closers := forwardMatches(toks)
	e := newEdits()
	for i := 1; i+1 < len(toks); i++ {
		width := namedArrow(toks, i)
		if width == 0 || toks[i-1].Kind != TokIdent || i < 2 || !(toks[i-2].isPunct("(") || toks[i-2].isPunct(",")) {
			continue
		}
		end := argEnd(toks, closers, i+width)
		name, at := toks[i-1], toks[i]
		e.remove(i-1, i+width)
		e.insert(i-1, raw(NamedArgFunc, name), punct("(", name), strLit(name.Text, name), punct(",", at))
		e.insert(end, punct(")", at))
	}
	return e.apply(toks), nil
}

// namedArrow returns the number of tokens of => or := at i, 0 if neither.
func namedArrow(toks []Token, i int) int {
	switch {
	case toks[i].Kind == TokOp && toks[i].Text == "=>":
		return 1
	case toks[i].isPunct(":") && i+1 < len(toks) && toks[i+1].Kind == TokOp && toks[i+1].Text == "=" && toks[i+1].Pos == toks[i].End:
		return 2
	}
	return 0
}

func hasNamedArg(toks []Token) bool {
	for i := range toks {
		if namedArrow(toks, i) > 0 {
			return true
		}
	}
	return false
}

// argEnd returns the index of the ',' or ')' ending the argument that
// starts at i.
func argEnd(toks []Token, closers map[int]int, i int) int {
	for i < len(toks) {
		t := toks[i]
		switch {
		case isOpen(t), t.isWord("case"):
			i = closers[i] + 1
			continue
		case t.isPunct(","), isClose(t):
			return i
		}
		i++
	}
	return len(toks)
}
