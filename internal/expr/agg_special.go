package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// SpecialCounts counts a sum's or avg's NaN, Infinity and -Infinity
// inputs (PostgreSQL's numeric accumulator keeps NaNcount, pInfcount and
// nInfcount), indexed by SpecialNaN, SpecialPosInf and SpecialNegInf.
type SpecialCounts [3]int64

// The kinds of special input SpecialCounts counts.
const (
	SpecialNaN = iota
	SpecialPosInf
	SpecialNegInf
)

// specialKindOf tells whether v, a numeric or float, is NaN or infinite,
// and which.
func specialKindOf(v types.Datum) (int, bool) {
	switch x := v.(type) {
	case *apd.Decimal:
		switch x.Form {
		case apd.NaN, apd.NaNSignaling:
			return SpecialNaN, true
		case apd.Infinite:
			if x.Negative {
				return SpecialNegInf, true
			}
			return SpecialPosInf, true
		}
	case float64:
		switch {
		case math.IsNaN(x):
			return SpecialNaN, true
		case math.IsInf(x, 1):
			return SpecialPosInf, true
		case math.IsInf(x, -1):
			return SpecialNegInf, true
		}
	}
	return 0, false
}

func (s SpecialCounts) total() int64 { return s[0] + s[1] + s[2] }

// IsZero reports whether no special input is counted.
func (s SpecialCounts) IsZero() bool { return s == SpecialCounts{} }

// result is the sum (or avg) of inputs that include these special ones,
// as a value of type result (numeric, else a float): NaN when one is NaN
// or both infinities are there, else the infinity there is; ok is false
// when none is counted.
func (s SpecialCounts) result(result types.Type) (types.Datum, bool) {
	var f float64
	switch {
	case s[SpecialNaN] > 0 || s[SpecialPosInf] > 0 && s[SpecialNegInf] > 0:
		f = math.NaN()
	case s[SpecialPosInf] > 0:
		f = math.Inf(1)
	case s[SpecialNegInf] > 0:
		f = math.Inf(-1)
	default:
		return nil, false
	}
	if result.ID != types.IDNumeric {
		return f, true
	}
	if math.IsNaN(f) {
		return &apd.Decimal{Form: apd.NaN}, true
	}
	return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}, true
}

// String encodes the counts as "nan,inf,-inf", as a view's state keeps
// them.
func (s SpecialCounts) String() string {
	return fmt.Sprintf("%d,%d,%d", s[0], s[1], s[2])
}

// ParseSpecialCounts decodes SpecialCounts.String's text.
func ParseSpecialCounts(text string) (SpecialCounts, error) {
	var s SpecialCounts
	parts := strings.Split(text, ",")
	if len(parts) != len(s) {
		return s, fmt.Errorf("expr: bad special counts %q", text)
	}
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return SpecialCounts{}, fmt.Errorf("expr: bad special counts %q", text)
		}
		s[i] = n
	}
	return s, nil
}
