package expr

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ListOrder is one ORDER BY key of a list aggregate (string_agg,
// array_agg): the key's type and direction. NullsFirst is explicit, as
// Postgres defaults it: NULLS LAST for ASC, FIRST for DESC.
type ListOrder struct {
	Type       types.Type
	Desc       bool
	NullsFirst bool
}

// ListItem is one input row of a list aggregate: its value and its ORDER
// BY keys (one per ListOrder).
type ListItem struct {
	Value types.Datum
	Keys  []types.Datum
}

// ListAgg is the value of string_agg (kind AggStringAgg, delimiter sep) or
// array_agg (AggArrayAgg, of elem) over items, sorted by their ORDER BY
// keys (order), or without one by their values (ascending, NULL last),
// and rows still equal by their values' text. PostgreSQL leaves both the
// order without ORDER BY and the order of ties unspecified; sorting makes
// it the same in a batch query and in a view, whose inputs come in
// different orders (a table's scan goes vnode by vnode, a view's list
// input by key). DISTINCT keeps the first of equal values (1.0 before
// 1.00); PostgreSQL requires its ORDER BY keys to be the argument.
//
// jsonb_agg (AggJSONBAgg, of values of type elem) is array_agg's list as
// a jsonb array, each value as to_jsonb gives it; json_agg's
// (AggJSONAgg) is a json array as JSONArray prints it.
//
// The ordered-set aggregates are orderedSetAgg's.
//
// string_agg skips NULL values and array_agg, jsonb_agg and json_agg keep them
// (also under DISTINCT, once). Over no values the result is NULL. items
// is sorted in place. array_agg of arrays stacks them into an array of
// one more dimension (arrayAggArrays), the only case with an error.
//
// jsonb_object_agg and json_object_agg, list aggregates too, are
// ObjectAgg's.
func ListAgg(kind AggKind, items []ListItem, order []ListOrder, distinct bool, sep string, elem types.Type) (types.Datum, error) {
	if kind.IsOrderedSet() {
		return orderedSetAgg(kind, items, order, sep, elem), nil
	}
	if kind == AggStringAgg {
		items = slices.DeleteFunc(items, func(it ListItem) bool { return it.Value == nil })
	}
	if len(items) == 0 {
		return nil, nil
	}
	valType := types.TText
	if kind == AggArrayAgg || kind == AggJSONBAgg || kind == AggJSONAgg {
		valType = elem
	}
	items = sortListItems(items, order, distinct, valType)
	if kind == AggJSONAgg {
		vals := make([]types.Datum, len(items))
		for i, it := range items {
			vals[i] = it.Value
		}
		return JSONArray(vals, elem), nil
	}
	if kind == AggJSONBAgg {
		vals := make([]jsonb.Value, len(items))
		for i, it := range items {
			j, err := ToJSONB(it.Value, elem)
			if err != nil {
				j = jsonb.FromString(types.Format(it.Value, elem))
			}
			vals[i] = j
		}
		return jsonb.NewArray(vals).String(), nil
	}
	if kind == AggArrayAgg {
		vals := make([]types.Datum, len(items))
		for i, it := range items {
			vals[i] = it.Value
		}
		if elem.ID == types.IDArray {
			return arrayAggArrays(vals, elem)
		}
		return ArrayFromValues(vals, elem), nil
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it.Value.(string))
	}
	return b.String(), nil
}

// StackArrays is ARRAY(subquery) over arrays of type t: arrayAggArrays,
// or the empty array for no rows.
func StackArrays(vals []types.Datum, t types.Type) (types.Datum, error) {
	if len(vals) == 0 {
		return types.FormatArrayValue(types.ArrayValue{}, t.ElemType()), nil
	}
	return arrayAggArrays(vals, t)
}

// arrayAggArrays is array_agg over arrays of type t: one array of one
// more dimension, as PostgreSQL's array_agg(anyarray), with its errors
// for a NULL or empty input and for inputs of different dimensions.
func arrayAggArrays(vals []types.Datum, t types.Type) (types.Datum, error) {
	var out types.ArrayValue
	for i, v := range vals {
		if v == nil {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "cannot accumulate null arrays")
		}
		a, err := shapeOf(v, t)
		if err != nil {
			return nil, err
		}
		switch {
		case a.NDims() == 0:
			return nil, pgerr.New(codeArraySubscript, "cannot accumulate empty arrays")
		case i == 0:
			out.Dims = append([]int{len(vals)}, a.Dims...)
		case !slices.Equal(a.Dims, out.Dims[1:]):
			return nil, pgerr.New(codeArraySubscript, "cannot accumulate arrays of different dimensionality")
		}
		out.Elems = append(out.Elems, a.Elems...)
	}
	if len(out.Dims) > types.MaxArrayDims {
		return nil, pgerr.New("54000", "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(out.Dims), types.MaxArrayDims)
	}
	return types.FormatArrayValue(out, t.ElemType()), nil
}

// sortListItems sorts a list aggregate's items, of values of type
// valType, as ListAgg describes, and with distinct keeps the first of
// equal values.
func sortListItems(items []ListItem, order []ListOrder, distinct bool, valType types.Type) []ListItem {
	byText := func(a, b ListItem) int {
		if a.Value == nil || b.Value == nil {
			return compareOrdered(a.Value, b.Value, ListOrder{Type: valType})
		}
		return strings.Compare(types.Format(a.Value, valType), types.Format(b.Value, valType))
	}
	slices.SortStableFunc(items, func(a, b ListItem) int {
		if len(order) == 0 {
			if c := compareOrdered(a.Value, b.Value, ListOrder{Type: valType}); c != 0 {
				return c
			}
		}
		for i, o := range order {
			if c := compareOrdered(a.Keys[i], b.Keys[i], o); c != 0 {
				return c
			}
		}
		return byText(a, b)
	})
	if distinct {
		items = slices.CompactFunc(items, func(a, b ListItem) bool {
			if a.Value == nil || b.Value == nil {
				return a.Value == nil && b.Value == nil
			}
			return Compare(a.Value, b.Value, valType) == 0
		})
	}
	return items
}

// compareOrdered orders two values of a sort key.
func compareOrdered(a, b types.Datum, o ListOrder) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if o.NullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if o.NullsFirst {
			return 1
		}
		return -1
	}
	c := Compare(a, b, o.Type)
	if o.Desc {
		return -c
	}
	return c
}
