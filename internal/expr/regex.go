package expr

import (
	"regexp"
	"sync"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The POSIX regular expression operators: ~ (matches), ~* (matches,
// case-insensitively) and their negations !~ and !~*. Patterns are read
// with Go's regexp syntax, which agrees with Postgres's advanced regular
// expressions on the common constructs (anchors, classes, groups,
// alternation, quantifiers).

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
		re, err := compileRegex(a[1].(string), icase)
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
	icase   bool
}

const regexCacheMax = 256

func compileRegex(pattern string, icase bool) (*regexp.Regexp, error) {
	k := regexKey{pattern, icase}
	regexCache.Lock()
	re, ok := regexCache.m[k]
	regexCache.Unlock()
	if ok {
		return re, nil
	}
	src := pattern
	if icase {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, pgerr.New(InvalidRegex, "invalid regular expression: %v", err)
	}
	regexCache.Lock()
	if regexCache.m == nil || len(regexCache.m) >= regexCacheMax {
		regexCache.m = map[regexKey]*regexp.Regexp{}
	}
	regexCache.m[k] = re
	regexCache.Unlock()
	return re, nil
}
