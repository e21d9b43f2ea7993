package expr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// ScaleCounts counts a group's numeric inputs by display scale (digits
// after the point), so that a sum that retracts knows the scale
// PostgreSQL gives a sum over the inputs that remain: the largest of
// theirs. (1.50 + 2.5 is 4.00; delete 1.50 and the sum is 2.5, where an
// exact decimal subtraction leaves 2.50.)
type ScaleCounts map[int32]int64

// scaleOf is d's display scale.
func scaleOf(d *apd.Decimal) int32 { return max(0, -d.Exponent) }

// add counts d (delta 1) or uncounts it (delta -1); NaN and infinities
// have no scale.
func (s ScaleCounts) add(d *apd.Decimal, delta int64) {
	if d.Form != apd.Finite {
		return
	}
	sc := scaleOf(d)
	if s[sc] += delta; s[sc] == 0 {
		delete(s, sc)
	}
}

// maxScale is the largest scale counted; ok is false when none is.
func (s ScaleCounts) maxScale() (sc int32, ok bool) {
	for k := range s {
		if !ok || k > sc {
			sc, ok = k, true
		}
	}
	return sc, ok
}

// rescale returns d with display scale sc, which the exact value needs no
// more digits than (d is a sum of values with scale at most sc).
func rescale(d *apd.Decimal, sc int32) *apd.Decimal {
	if d.Form != apd.Finite || d.Exponent == -sc {
		return d
	}
	var r apd.Decimal
	ctx := apd.BaseContext.WithPrecision(uint32(d.NumDigits()) + uint32(max(sc+d.Exponent, 0)) + 1)
	if _, err := ctx.Quantize(&r, d, -sc); err != nil {
		return d
	}
	return &r
}

// String encodes the counts as "scale:count" pairs in scale order, as
// they are kept in a view's state.
func (s ScaleCounts) String() string {
	keys := make([]int32, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", k, s[k])
	}
	return b.String()
}

// ParseScaleCounts decodes ScaleCounts.String's text.
func ParseScaleCounts(text string) (ScaleCounts, error) {
	s := ScaleCounts{}
	for _, f := range strings.Fields(text) {
		k, v, ok := strings.Cut(f, ":")
		sc, err1 := strconv.ParseInt(k, 10, 32)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("expr: bad scale counts %q", text)
		}
		s[int32(sc)] = n
	}
	return s, nil
}
