package sql

// rewriteTemporalJoin turns RisingWave's process-time temporal join into
// a plain join whose ON condition carries a marker, which the binder turns
// back into a temporal join:
//
//	a [LEFT] JOIN t FOR SYSTEM_TIME AS OF PROCTIME() [AS d] ON cond
//	  ->  a [LEFT] JOIN t [AS d] ON __sdb_temporal_join() AND (cond)
//
// The clause must follow the table name of a JOIN's right side, and the
// join must have an ON condition; AS OF anything but PROCTIME() is not
// supported (0A000).
func rewriteTemporalJoin(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 0; i < len(toks); i++ {
		if !toks[i].isWord("for") || i+1 >= len(toks) || !toks[i+1].isWord("system_time") {
			continue
		}
		n := matchProcTime(toks, i)
		if n == 0 {
			return nil, notSupportedAt(query, toks[i], "FOR SYSTEM_TIME AS OF is only supported with PROCTIME()")
		}
		if !afterJoinTable(toks, i) {
			return nil, notSupportedAt(query, toks[i],
				"FOR SYSTEM_TIME AS OF PROCTIME() is only supported on the table on the right side of a JOIN")
		}
		on := scanLevel(toks, i+n, 1, func(k int) bool {
			t := toks[k]
			return t.isWord("on") || t.isWord("using") || t.isPunct(",") ||
				(wordIn(t, joinConditionStop) && !wordIn(t, joinWords))
		})
		if on >= len(toks) || !toks[on].isWord("on") {
			return nil, notSupportedAt(query, toks[i], "a temporal join (FOR SYSTEM_TIME AS OF PROCTIME()) needs an ON condition")
		}
		end := scanLevel(toks, on+1, 1, func(k int) bool {
			return toks[k].isPunct(",") || wordIn(toks[k], joinConditionStop)
		})
		if end == on+1 {
			return nil, errAtIndex(query, toks, end)
		}
		at := toks[i]
		e.remove(i, i+n)
		e.insert(on+1, raw(markerTemporalJoin, at), punct("(", at), punct(")", at), raw("and", at), punct("(", at))
		e.insert(end, punct(")", at))
		i += n - 1
	}
	return e.apply(toks), nil
}

// matchProcTime returns the number of tokens of FOR SYSTEM_TIME AS OF
// PROCTIME() at i, or 0.
func matchProcTime(toks []Token, i int) int {
	want := []string{"for", "system_time", "as", "of", "proctime", "(", ")"}
	if i+len(want) > len(toks) {
		return 0
	}
	for k, w := range want {
		t := toks[i+k]
		if !t.isWord(w) && !(w == "(" || w == ")") || (w == "(" || w == ")") && !t.isPunct(w) {
			return 0
		}
	}
	return len(want)
}

// afterJoinTable reports whether the tokens before i are JOIN name, the
// name possibly qualified.
func afterJoinTable(toks []Token, i int) bool {
	k := i - 1
	for k >= 0 && (toks[k].Kind == TokIdent && !wordIn(toks[k], joinWords) || toks[k].isPunct(".")) {
		k--
	}
	return k >= 0 && k < i-1 && toks[k].isWord("join")
}
