package sql

// FrameExcludeFunc is the marker a window frame's EXCLUDE clause
// becomes, as the first PARTITION BY item of its window:
//
//	OVER (ORDER BY x ROWS 1 PRECEDING EXCLUDE GROUP)
//	  ->  over ( partition by __sdb_frame_exclude( 'group' ) order by x rows 1 preceding )
//	OVER (PARTITION BY p ORDER BY x RANGE ... EXCLUDE TIES)
//	  ->  over ( partition by __sdb_frame_exclude( 'ties' ) , p order by x range ... )
//
// The binder takes it out of the PARTITION BY again and gives the frame
// the exclusion. EXCLUDE NO OTHERS, the default, is dropped.
const FrameExcludeFunc = "__sdb_frame_exclude"

// frameExclusions are the EXCLUDE clauses, by their words.
var frameExclusions = []struct {
	words []string
	mode  string
}{
	{[]string{"current", "row"}, "current row"},
	{[]string{"group"}, "group"},
	{[]string{"ties"}, "ties"},
	{[]string{"no", "others"}, ""},
}

// windowSpecWords may start a window specification after its '(' (other
// than a window name).
var windowSpecWords = wordSet(`partition order rows range groups`)

// rewriteFrameExclude moves each EXCLUDE clause of a window frame into its
// window's PARTITION BY as a FrameExcludeFunc marker.
func rewriteFrameExclude(query string, toks []Token) ([]Token, error) {
	e := newEdits()
	for i := 1; i < len(toks); i++ {
		if !toks[i].isWord("exclude") || toks[i].Quoted {
			continue
		}
		mode, n := frameExclusion(toks, i+1)
		if n == 0 {
			continue
		}
		open := scanLevel(toks, i-1, -1, func(int) bool { return false })
		if !inWindowFrame(toks, open, i) {
			continue // not a frame's EXCLUDE (a name exclude, say): TiDB reports it
		}
		at := toks[i]
		e.remove(i, i+1+n)
		if mode == "" {
			continue
		}
		marker := []Token{raw(FrameExcludeFunc, at), punct("(", at), strLit(mode, at), punct(")", at)}
		if by := partitionBy(toks, open, i); by > 0 {
			e.insert(by+1, append(marker, punct(",", at))...)
			continue
		}
		where := open + 1
		if t := toks[where]; t.Kind == TokIdent && !t.Quoted && !windowSpecWords[t.Text] || t.Kind == TokIdent && t.Quoted {
			where++ // OVER (w ...): after the window's name
		}
		e.insert(where, append([]Token{raw("partition", at), raw("by", at)}, marker...)...)
	}
	return e.apply(toks), nil
}

// frameExclusion matches the words of an EXCLUDE clause at i: the mode
// and how many words it has (0 when none matches).
func frameExclusion(toks []Token, i int) (string, int) {
	for _, x := range frameExclusions {
		ok := i+len(x.words) <= len(toks)
		for k := 0; ok && k < len(x.words); k++ {
			ok = toks[i+k].isWord(x.words[k])
		}
		if ok {
			return x.mode, len(x.words)
		}
	}
	return "", 0
}

// inWindowFrame reports whether toks[open] opens a window specification
// (after OVER or a WINDOW clause's AS) with a frame before end.
func inWindowFrame(toks []Token, open, end int) bool {
	if open < 1 || !toks[open].isPunct("(") || !(toks[open-1].isWord("over") || toks[open-1].isWord("as")) {
		return false
	}
	frame := scanLevel(toks, open+1, 1, func(k int) bool {
		return k >= end || toks[k].isWord("rows") || toks[k].isWord("range") || toks[k].isWord("groups")
	})
	return frame < end
}

// partitionBy returns the index of the BY of a PARTITION BY directly in
// the window specification between open and end, or -1.
func partitionBy(toks []Token, open, end int) int {
	for k := open + 1; k+1 < end; k++ {
		if isOpen(toks[k]) {
			if k = skipGroup(toks, k, 1); k < 0 {
				return -1
			}
			continue
		}
		if toks[k].isWord("partition") && toks[k+1].isWord("by") {
			return k + 1
		}
	}
	return -1
}
