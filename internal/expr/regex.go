package expr

import (
	"regexp"
	"strings"
	"sync"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The POSIX regular expression operators: ~ (matches), ~* (matches,
// case-insensitively) and their negations !~ and !~*, and the regexp_*
// functions (regex_funcs.go). Patterns are read with Go's regexp syntax,
// which agrees with PostgreSQL's advanced regular expressions on the
// common constructs (anchors, classes, groups, alternation, quantifiers);
// as in PostgreSQL, '.' and bracket expressions match a newline, and ^
// and $ match only at the ends of the string, unless the 'n' flag says
// otherwise. Back references (\1 in a pattern) are not supported.

// InvalidRegex is the SQLSTATE of a malformed pattern.
const InvalidRegex = "2201B"

func init() {
	for _, op := range []string{"~", "!~", "~*", "!~*"} {
		addBinary(op, tText, tText, tBool, regexMatch(op))
	}
}

func regexMatch(op string) evalFn {
	icase := op == "~*" || op == "!~*"
	neg := op[0] == '!'
	return func(a []types.Datum) (types.Datum, error) {
		re, err := compileRegex(a[1].(string), regexOpts{icase: icase})
		if err != nil {
			return nil, err
		}
		return re.MatchString(a[0].(string)) != neg, nil
	}
}

// regexCache keeps compiled patterns; it is cleared when it grows large.
var regexCache struct {
	sync.Mutex
	m map[regexKey]*regexp.Regexp
}

type regexKey struct {
	pattern string
	opts    regexOpts
}

// regexOpts are the options of a pattern, from a function's flags
// (parseRegexFlags).
type regexOpts struct {
	icase     bool // i: case-insensitive
	noDotNL   bool // n, p: '.' does not match a newline
	multiline bool // n, w: ^ and $ match at line boundaries
	literal   bool // q: the pattern is a literal string
	expanded  bool // x: whitespace and #-comments in the pattern are ignored
}

const regexCacheMax = 256

func compileRegex(pattern string, o regexOpts) (*regexp.Regexp, error) {
	k := regexKey{pattern, o}
	regexCache.Lock()
	re, ok := regexCache.m[k]
	regexCache.Unlock()
	if ok {
		return re, nil
	}
	src := pattern
	switch {
	case o.literal:
		src = regexp.QuoteMeta(src)
	case o.expanded:
		src = unexpandRegex(src)
	}
	flags := ""
	if !o.noDotNL {
		flags += "s"
	}
	if o.multiline {
		flags += "m"
	}
	if o.icase {
		flags += "i"
	}
	prefix := ""
	if flags != "" {
		prefix = "(?" + flags + ")"
	}
	re, err := regexp.Compile(prefix + src)
	if err != nil {
		// The message quotes the pattern: the user's, not with our flags.
		msg := strings.Replace(err.Error(), "`"+prefix, "`", 1)
		return nil, pgerr.New(InvalidRegex, "invalid regular expression: %s", msg)
	}
	regexCache.Lock()
	if regexCache.m == nil || len(regexCache.m) >= regexCacheMax {
		regexCache.m = map[regexKey]*regexp.Regexp{}
	}
	regexCache.m[k] = re
	regexCache.Unlock()
	return re, nil
}

// unexpandRegex removes what an expanded pattern ('x' flag) ignores:
// white space, and comments from # to the end of a line, outside
// bracket expressions and escapes.
func unexpandRegex(p string) string {
	var b []byte
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b = append(b, c, p[i+1])
			i++
			continue
		case inBracket:
			if c == ']' {
				inBracket = false
			}
		case c == '[':
			inBracket = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		}
		b = append(b, c)
	}
	return string(b)
}
