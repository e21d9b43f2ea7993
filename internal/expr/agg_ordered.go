package expr

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// The ordered-set aggregates percentile_cont, percentile_disc and mode
// are list aggregates: their items are the rows' WITHIN GROUP keys (a
// view keeps them in a state table, as string_agg's), and the value is
// computed from the sorted list. Their direct argument, the fraction, is
// a constant the binder checked (0 to 1) and passes as text (Sep): "0.5",
// an array "{0.25,NULL,0.5}" for the array forms, or "" for NULL.

// OrderedSetDirect encodes an ordered-set aggregate's direct argument
// for Sep: fractions (nil for NULL), as an array when array is true.
func OrderedSetDirect(fracs []*float64, array bool) string {
	f := func(p *float64) string {
		if p == nil {
			return "NULL"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	if !array {
		if len(fracs) != 1 || fracs[0] == nil {
			return ""
		}
		return f(fracs[0])
	}
	parts := make([]string, len(fracs))
	for i, p := range fracs {
		parts[i] = f(p)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// parseOrderedSetDirect decodes OrderedSetDirect's text.
func parseOrderedSetDirect(s string) (fracs []*float64, array, null bool) {
	if s == "" {
		return nil, false, true
	}
	one := func(t string) *float64 {
		if t == "NULL" {
			return nil
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil
		}
		return &v
	}
	if !strings.HasPrefix(s, "{") {
		return []*float64{one(s)}, false, false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if inner == "" {
		return nil, true, false
	}
	for _, t := range strings.Split(inner, ",") {
		fracs = append(fracs, one(t))
	}
	return fracs, true, false
}

// orderedSetResultType is the result type of an ordered-set aggregate of
// a key of type arg (percentile_cont's already double precision or
// interval), an array of it for the array forms.
func orderedSetResultType(k AggKind, arg types.Type, array bool) (types.Type, error) {
	t := arg
	switch k {
	case AggPercentileCont:
		if arg.ID != types.IDFloat64 && arg.ID != types.IDInterval {
			return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
		}
	default:
		switch {
		case arg.ID == types.IDUnknown:
			return types.Type{}, errUnknownPolymorphic() // of anyelement
		case arg.ID == types.IDArray || arg.ID == types.IDJSON:
			// PostgreSQL sorts arrays too; one level of arrays here.
			if array {
				return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
			}
		}
		if t.IsString() {
			t = types.TText
		}
	}
	if array {
		return types.ArrayOf(t.ID), nil
	}
	return types.Type{ID: t.ID, Elem: t.Elem}, nil
}

// OrderedSetResultType is orderedSetResultType for the binder.
func OrderedSetResultType(k AggKind, arg types.Type, array bool) (types.Type, error) {
	return orderedSetResultType(k, arg, array)
}

// orderedSetAgg is the value of ordered-set aggregate kind over items
// (NULL keys are ignored) in the order of their key (order, one key), with
// direct argument direct and keys of type elem. It is NULL over no rows.
func orderedSetAgg(kind AggKind, items []ListItem, order []ListOrder, direct string, elem types.Type) types.Datum {
	items = slices.DeleteFunc(items, func(it ListItem) bool { return it.Value == nil })
	if len(items) == 0 {
		return nil
	}
	o := ListOrder{Type: elem}
	if len(order) > 0 {
		o = order[0]
	}
	// Equal values that print apart (1.0 and 1.00, '1 mon' and '30 days')
	// go in the order of their text, so that the value picked is the
	// same whatever order the rows came in (a table's scan, a view's
	// state), as ListAgg's ties.
	slices.SortFunc(items, func(a, b ListItem) int {
		if c := compareOrdered(a.Value, b.Value, o); c != 0 {
			return c
		}
		return strings.Compare(types.Format(a.Value, elem), types.Format(b.Value, elem))
	})
	if kind == AggMode {
		return modeOf(items, elem)
	}
	fracs, array, null := parseOrderedSetDirect(direct)
	if null {
		return nil
	}
	one := func(f *float64) types.Datum {
		if f == nil {
			return nil
		}
		if kind == AggPercentileDisc {
			return percentileDisc(items, *f)
		}
		return percentileCont(items, *f, elem)
	}
	if !array {
		return one(fracs[0])
	}
	vals := make([]types.Datum, len(fracs))
	for i, f := range fracs {
		vals[i] = one(f)
	}
	t := elem
	if kind == AggPercentileDisc && elem.IsString() {
		t = types.TText
	}
	return ArrayFromValues(vals, t)
}

// modeOf is the most frequent of the sorted items' values, the first in
// their order among equally frequent ones, as PostgreSQL's mode.
func modeOf(items []ListItem, elem types.Type) types.Datum {
	best, bestN := items[0].Value, 0
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && Compare(items[i].Value, items[j].Value, elem) == 0 {
			j++
		}
		if j-i > bestN {
			best, bestN = items[i].Value, j-i
		}
		i = j
	}
	return best
}

// percentileDisc is the first value whose position in the order is at
// least the fraction f of the rows, as PostgreSQL's percentile_disc.
func percentileDisc(items []ListItem, f float64) types.Datum {
	row := int(math.Ceil(f * float64(len(items))))
	row = max(row, 1)
	return items[min(row, len(items))-1].Value
}

// percentileCont interpolates linearly between the two values around the
// fraction f of the rows, as PostgreSQL's percentile_cont (of double
// precision or interval).
func percentileCont(items []ListItem, f float64, elem types.Type) types.Datum {
	pos := f * float64(len(items)-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	a, b := items[int(lo)].Value, items[int(hi)].Value
	if lo == hi {
		return a
	}
	p := pos - lo
	if elem.ID == types.IDInterval {
		x, y := a.(types.Interval), b.(types.Interval)
		diff, err := intervalAdd(y, x, true)
		if err != nil {
			return nil
		}
		mul, err := intervalScale(diff.(types.Interval), p, false)
		if err != nil {
			return nil
		}
		r, err := intervalAdd(x, mul.(types.Interval), false)
		if err != nil {
			return nil
		}
		return r
	}
	x, y := a.(float64), b.(float64)
	return x + (y-x)*p
}

// ArrayValues returns the elements of array value v of type t.
func ArrayValues(v types.Datum, t types.Type) ([]types.Datum, error) { return elemsOf(v, t) }
