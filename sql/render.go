package sql

import (
	"regexp"
	"strings"
)

// rendered is the text handed to the TiDB parser, with what is needed to
// map its offsets back to the user's query.
type rendered struct {
	text   string
	toks   []Token     // the tokens rendered
	starts []int       // starts[k]: offset of toks[k] in text
	params map[int]int // offset of each '?' in text -> its $N
}

// render writes tokens as TiDB SQL: one space between tokens (none around
// '.'), identifiers quoted when TiDB would read them as something else,
// strings in standard '..' form, $N as '?'.
func render(toks []Token) *rendered {
	r := &rendered{toks: toks, starts: make([]int, len(toks)), params: map[int]int{}}
	var b strings.Builder
	for k, t := range toks {
		if k > 0 && spaceBetween(toks[k-1], t) {
			b.WriteByte(' ')
		}
		r.starts[k] = b.Len()
		if t.Kind == TokParam {
			r.params[b.Len()] = t.N
		}
		b.WriteString(renderToken(toks, k))
	}
	r.text = b.String()
	return r
}

// spaceBetween reports whether the rendering separates a and b: not
// around '.', and not between a name and '(' (TiDB, like MySQL without
// IGNORE_SPACE, reads "count (" as an identifier, not a call).
func spaceBetween(a, b Token) bool {
	if a.isPunct(".") || b.isPunct(".") {
		return false
	}
	isName := a.Kind == TokIdent || (a.Kind == tokRaw && strings.HasPrefix(a.Text, markerPrefix))
	return !(b.isPunct("(") && isName)
}

func renderToken(toks []Token, k int) string {
	t := toks[k]
	switch t.Kind {
	case TokIdent:
		if t.Quoted || needsQuotes(t.Text, k+1 < len(toks) && toks[k+1].isPunct("(")) {
			return quoteIdent(t.Text)
		}
		return t.Text
	case TokString:
		return renderString(t)
	case TokParam:
		return "?"
	}
	return t.Text
}

func renderString(t Token) string {
	switch t.Prefix {
	case 'B':
		return "b'" + t.Text + "'"
	case 'X':
		return "x'" + t.Text + "'"
	}
	return "'" + strings.ReplaceAll(t.Text, "'", "''") + "'"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

var plainIdent = regexp.MustCompile(`^[a-z][a-z0-9_$]*$`)

// needsQuotes reports whether an unquoted (already folded) identifier must
// be quoted for TiDB: it is not plain ASCII, starts with '_' (TiDB reads
// _utf8mb4'..' as a charset introducer), or is a word TiDB reserves that
// Postgres does not (unless it is called as a function, like mod(a, b)).
func needsQuotes(name string, call bool) bool {
	if !plainIdent.MatchString(name) {
		return true
	}
	return !call && tidbOnlyReserved[name]
}

// tidbOnlyReserved are words TiDB reserves that are plain identifiers in
// Postgres and never keywords in the SQL the rewrite hands to TiDB.
var tidbOnlyReserved = wordSet(`add alter call cascade change continue convert cursor cume_dist
	database databases day_hour day_microsecond day_minute day_second delayed dense_rank describe
	distinctrow div dual elseif enclosed escaped exit explain first_value float4 float8 force
	fulltext generated high_priority hour_microsecond hour_minute hour_second if ignore index infile
	int1 int2 int3 int4 int8 iterate key keys kill lag last_value lead leave linear lines load lock
	long longblob longtext low_priority match maxvalue mediumblob mediumint mediumtext middleint
	minute_microsecond minute_second mod no_write_to_binlog nth_value ntile optimize option
	optionally outfile percent_rank procedure rank read regexp release rename repeat replace require
	restrict revoke rlike row_number second_microsecond show spatial sql sql_big_result
	sql_buffer_result sql_cache sql_calc_found_rows sql_no_cache sql_small_result sqlexception
	sqlstate sqlwarning ssl starting stored straight_join terminated tidb_current_tso tinyblob
	tinyint tinytext trigger unlock unsigned until usage use utc_date utc_time utc_timestamp
	varbinary varcharacter virtual while write xor year_month zerofill`)

// tokenAt returns the index of the token covering text offset off, or
// len(toks) when off is past the last token.
func (r *rendered) tokenAt(off int) int {
	k := len(r.starts) - 1
	for k >= 0 && r.starts[k] > off {
		k--
	}
	if k < 0 {
		return 0
	}
	if off >= r.starts[k]+len(renderToken(r.toks, k)) && k == len(r.toks)-1 {
		return len(r.toks)
	}
	return k
}
