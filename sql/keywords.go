package sql

import "regexp"

// Which identifiers the rendering quotes.
//
// TiDB reserves words that Postgres lets users name things with
// (`SELECT count(*) AS groups`, a column named key, rank or interval), so
// the rendering quotes an unquoted identifier whenever TiDB would read it
// as a keyword but Postgres reads it as a name. Whether Postgres reads a
// word as a name depends on where it stands; the rules follow Postgres's
// keyword categories (pg_get_keywords(), PostgreSQL 15):
//
//   - After AS, and after or before a '.', any word is a name: Postgres
//     accepts every keyword as a column label (ColLabel) and as an
//     attribute name. Such a word is quoted when TiDB reserves it.
//   - After INTO, FROM, JOIN and UPDATE (a relation name), and anywhere
//     else that is not a call (name followed by '('), a word is a name
//     unless Postgres reserves it (category R) or keeps it for types and
//     functions (category T); such words are left for TiDB as keywords.
//     Unreserved (U) and column-name (C) keywords are names except in the
//     few spots where Postgres's grammar uses them, which keywordUse
//     recognizes (ORDER BY, ROWS BETWEEN, OVER (...), WITH RECURSIVE ...).
//   - A word followed by '(' is a call, and calls are left alone: TiDB
//     knows left(s, n), repeat(s, n), row(1, 2) as functions (but see
//     tidbNotCallable).

// plainIdent matches what an unquoted identifier may render as without
// quotes (ASCII, not starting with '_', which TiDB reads as a charset
// introducer in _utf8mb4'..').
var plainIdent = regexp.MustCompile(`^[a-z][a-z0-9_$]*$`)

// tidbReserved are the words the TiDB parser reserves (parser.Keywords
// with Reserved set; TestTiDBReservedWords keeps the two in step), plus a
// few more it treats as keywords in the places names stand.
var tidbReserved = wordSet(`add all alter analyze and array as asc between bigint binary blob both
	by call cascade case change char character check collate column constraint continue convert
	create cross cume_dist current_date current_role current_time current_timestamp current_user
	cursor database databases day_hour day_microsecond day_minute day_second decimal default
	delayed delete dense_rank desc describe distinct distinctrow div double drop dual else elseif
	enclosed escaped except exists exit explain false fetch first_value float float4 float8 for
	force foreign from fulltext generated grant group groups having high_priority
	hour_microsecond hour_minute hour_second if ignore ilike in index infile inner inout insert
	int int1 int2 int3 int4 int8 integer intersect interval into is iterate join key keys kill lag
	last_value lateral lead leading leave left like limit linear lines load localtime
	localtimestamp lock long longblob longtext low_priority match maxvalue mediumblob mediumint
	mediumtext middleint minute_microsecond minute_second mod natural no_write_to_binlog not
	nth_value ntile null numeric of on optimize option optionally or order out outer outfile over
	partition percent_rank precision primary procedure range rank read real recursive references
	regexp release rename repeat replace require restrict revoke right rlike row row_number rows
	second_microsecond select set show smallint spatial sql sql_big_result sql_calc_found_rows
	sql_small_result sqlexception sqlstate sqlwarning ssl starting stored straight_join table
	tablesample terminated then tidb_current_tso tinyblob tinyint tinytext to trailing trigger
	true union unique unlock unsigned until update usage use using utc_date utc_time
	utc_timestamp values varbinary varchar varcharacter varying virtual when where while window
	with write xor year_month zerofill sql_buffer_result sql_cache sql_no_cache`)

// pgNotName are the words among tidbReserved that Postgres does not accept
// as a column or table name: its reserved (R) and type/function-name (T)
// keywords.
var pgNotName = wordSet(`all analyze and array as asc both case check collate column constraint
	create current_date current_role current_time current_timestamp current_user default desc
	distinct else except false fetch for foreign from grant group having in intersect into
	lateral leading limit localtime localtimestamp not null on or order primary references
	select table then to trailing true union unique using when where window with
	binary cross ilike inner is join left like natural outer right tablesample`)

// tidbNotCallable are words TiDB reads as keywords where Postgres has a
// function of that name: a call needs the name quoted. (TiDB reads
// mod(a, b) as the operator a % b, which names its column ?column?, not
// mod.)
var tidbNotCallable = wordSet(`cardinality mod`)

// castCallWords are type names TiDB reads as keywords that Postgres
// lets a query call as functions, each a cast to its type: int4(x),
// text(x), numeric(x) (see the binder). A call needs the name quoted; the
// same words before '(' in a column definition are a type with a
// modifier (numeric(10,2)), so only a call in expression position is
// quoted (callPosition).
var castCallWords = wordSet(`bool int2 int4 int8 float4 float8 numeric text varchar`)

// callWords are keywords after which an expression (so a call) starts.
var callWords = wordSet(`select where and or not when then else on having between case distinct all any
	some limit offset returning like ilike`)

// callPosition reports whether a name after prev stands where an
// expression starts, not where a column definition's type does (after the
// column's name, or after TYPE).
func callPosition(prev Token) bool {
	switch prev.Kind {
	case TokOp:
		return true
	case TokPunct, tokRaw:
		return prev.Text == "(" || prev.Text == "," || prev.Text == "["
	case TokIdent:
		return !prev.Quoted && callWords[prev.Text]
	}
	return false
}

// grammarWords are unreserved or column-name keywords of Postgres that the
// SQL handed to TiDB always uses as keywords where they are not after AS
// or next to a '.': BY (GROUP BY), SET (UPDATE ... SET), VALUES, BETWEEN,
// and the statement words INSERT, UPDATE, DELETE (WITH ... INSERT, FOR
// UPDATE), OF (FOR UPDATE OF).
var grammarWords = wordSet(`by set values between insert update delete of`)

// relationWords are followed by a relation name.
var relationWords = wordSet(`into from join`)

// needsQuotes reports whether the unquoted (already folded) identifier at
// toks[k] must be quoted for TiDB.
func needsQuotes(toks []Token, k int) bool {
	name := toks[k].Text
	if !plainIdent.MatchString(name) {
		return true
	}
	if tidbNotCallable[name] && tokenAtOr(toks, k+1).isPunct("(") {
		return true
	}
	if castCallWords[name] && tokenAtOr(toks, k+1).isPunct("(") && callPosition(tokenAtOr(toks, k-1)) {
		return true
	}
	if !tidbReserved[name] {
		return false
	}
	prev, next := tokenAtOr(toks, k-1), tokenAtOr(toks, k+1)
	switch {
	case isAs(prev) && !next.isPunct("("), prev.isPunct("."), next.isPunct("."):
		return true
	case pgNotName[name]:
		return false
	case wordIn(prev, relationWords) || (k == 1 && prev.isWord("update")):
		return true
	case next.isPunct("("):
		return false
	}
	return !keywordUse(toks, k)
}

// tokenAtOr returns toks[k], or a zero raw token when k is out of range.
func tokenAtOr(toks []Token, k int) Token {
	if k < 0 || k >= len(toks) {
		return Token{Kind: tokRaw}
	}
	return toks[k]
}

func isAs(t Token) bool { return t.isWord("as") || (t.Kind == tokRaw && t.Text == "as") }

// keywordUse reports whether the Postgres unreserved or column-name
// keyword at toks[k] (not after AS, not a call) is used as a keyword.
func keywordUse(toks []Token, k int) bool {
	name, prev, next := toks[k].Text, tokenAtOr(toks, k-1), tokenAtOr(toks, k+1)
	isValue := func(t Token) bool { return t.Kind == TokNumber || t.Kind == TokParam }
	switch name {
	case "rows", "range", "groups": // window frames; OFFSET n ROWS; FETCH FIRST n ROWS ONLY
		return next.isWord("between") || next.isWord("unbounded") || next.isWord("current") ||
			next.isWord("only") || isValue(next) || isValue(prev) ||
			next.Kind == tokRaw && next.Text == "interval" // a wrapped frame offset (rewriteFrameOffsets)
	case "row": // FETCH FIRST ROW ONLY; CURRENT ROW
		return next.isWord("only") || isValue(prev) || prev.isWord("first") || prev.isWord("next") ||
			prev.isWord("current")
	case "partition": // PARTITION BY
		return next.isWord("by")
	case "over": // f(x) OVER w
		return prev.isPunct(")")
	case "recursive": // WITH RECURSIVE
		return prev.isWord("with")
	}
	return grammarWords[name]
}
