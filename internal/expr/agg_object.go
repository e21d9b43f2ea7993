package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// jsonb_object_agg(key, value) and json_object_agg(key, value) are list
// aggregates (their value is rebuilt from the group's inputs, kept in a
// view's state) of one argument column: the binder packs key and value
// into one value with ObjectPair, and ObjectAgg reads them back.

// objectPairType is the type of ObjectPair's value: text[] [key, value],
// the key as the object's member name, the value as JSON text.
var objectPairType = types.ArrayOf(types.IDText)

// ObjectPair is the argument of aggregate k (AggJSONBObjectAgg or
// AggJSONObjectAgg) over key and value: the text[] [key, value], the key
// as PostgreSQL names the member (a boolean true, a timestamp in ISO
// 8601) and the value as to_json (json_object_agg, which keeps it as it
// prints) or to_jsonb (jsonb_object_agg) gives it, JSON null for NULL.
// When filter (a FILTER condition, or nil) is not true the pair is NULL,
// and the aggregate skips it. A NULL key is an error, "field name must
// not be null", as is an array or json key (22023): in a batch query it
// fails the query, as PostgreSQL's transition function does; in a view
// the pair is NULL (see the view errors of the README).
func ObjectPair(k AggKind, key, value, filter Expr) (Expr, error) {
	args := []Expr{key, value}
	for i, a := range args {
		if a.Type().ID == types.IDUnknown {
			c, err := coerce(a, types.TText)
			if err != nil {
				return nil, err
			}
			args[i] = c
		}
	}
	if filter != nil {
		args = append(args, filter)
	}
	kt, vt := args[0].Type(), args[1].Type()
	asJSON := k == AggJSONObjectAgg
	return &call{name: "object_pair", style: styleFunc, args: args, typ: objectPairType, nonStrict: true,
		fn: func(v []types.Datum) (types.Datum, error) {
			if len(v) > 2 && v[2] != true {
				return nil, nil // FILTER rejects the row
			}
			name, err := objectKey(v[0], kt)
			if err != nil {
				return nil, err
			}
			val, err := objectValue(v[1], vt, asJSON)
			if err != nil {
				return nil, err
			}
			return types.FormatArray([]types.Datum{name, val}, types.TText), nil
		}}, nil
}

// objectKey is a key's member name, as PostgreSQL's datum_to_json and
// datum_to_jsonb make it of a key.
func objectKey(v types.Datum, t types.Type) (string, error) {
	switch {
	case v == nil:
		return "", pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
	case t.ID == types.IDArray || isJSON(t):
		return "", pgerr.New(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	}
	return jsonScalarText(v, t), nil
}

// jsonScalarText is a scalar's text in JSON, unquoted: booleans as true
// and false, dates and timestamps in ISO 8601, others as they print.
func jsonScalarText(v types.Datum, t types.Type) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "true"
		}
		return "false"
	case types.Timestamp:
		return isoTimestamp(x, t.ID == types.IDTimestampTZ)
	}
	return types.Format(v, t)
}

// objectValue is a value as JSON text: to_json's (asJSON) or to_jsonb's.
func objectValue(v types.Datum, t types.Type, asJSON bool) (string, error) {
	if asJSON {
		return toJSONText(v, t)
	}
	j, err := ToJSONB(v, t)
	if err != nil {
		return "", err
	}
	return j.String(), nil
}

// toJSONText is v as to_json gives it (PostgreSQL's datum_to_json):
// json as written, numbers and booleans bare (NaN and infinities
// quoted), arrays as JSON arrays, other values as strings of their text.
func toJSONText(v types.Datum, t types.Type) (string, error) {
	switch {
	case v == nil:
		return "null", nil
	case isJSON(t):
		return v.(string), nil
	case t.ID == types.IDBool, t.IsInteger():
		return jsonScalarText(v, t), nil
	case t.IsNumeric():
		s := types.Format(v, t)
		if _, err := jsonb.FromNumberText(s); err == nil && s != "NaN" && !strings.HasSuffix(s, "Infinity") {
			return s, nil
		}
		return jsonb.FromString(s).String(), nil
	case t.ID == types.IDArray:
		return arrayToJSONText(v, t)
	}
	return jsonb.FromString(jsonScalarText(v, t)).String(), nil
}

// arrayToJSONText is an array as array_to_json gives it: [1,2,null].
func arrayToJSONText(v types.Datum, t types.Type) (string, error) {
	return arrayJSONText(v, t, ",")
}

// arrayJSONText is array_to_json(v): nested arrays for an array of
// several dimensions, sep between the items of the outermost one (",",
// or ",\n " pretty), "," within the others.
func arrayJSONText(v types.Datum, t types.Type, sep string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("expr: array value %T", v)
	}
	a, err := types.ParseArrayValue(s, t.ElemType())
	if err != nil {
		return "", err
	}
	texts := make([]string, len(a.Elems))
	for i, e := range a.Elems {
		if texts[i], err = toJSONText(e, t.ElemType()); err != nil {
			return "", err
		}
	}
	if len(a.Dims) == 0 {
		return "[]", nil
	}
	var b strings.Builder
	var level func(d int, items []string)
	level = func(d int, items []string) {
		b.WriteByte('[')
		n := len(items) / a.Dims[d]
		for i := 0; i < a.Dims[d]; i++ {
			switch {
			case i > 0 && d == 0:
				b.WriteString(sep)
			case i > 0:
				b.WriteByte(',')
			}
			if d+1 < len(a.Dims) {
				level(d+1, items[i*n:(i+1)*n])
			} else {
				b.WriteString(items[i])
			}
		}
		b.WriteByte(']')
	}
	level(0, texts)
	return b.String(), nil
}

// objectAggResultType is the type of k(pair): ObjectPair's text[] only.
func objectAggResultType(k AggKind, arg types.Type) (types.Type, error) {
	if arg != objectPairType {
		return types.Type{}, functionError(k.String(), []types.Type{arg}, resolveNone)
	}
	if k == AggJSONObjectAgg {
		return types.TJSON, nil
	}
	return types.TJSONB, nil
}

// ObjectAgg is the value of jsonb_object_agg or json_object_agg (kind)
// over items, whose values are ObjectPair's pairs: the items are sorted
// as ListAgg sorts them (by their ORDER BY keys, or by their pairs), and
// the object is ObjectFromPairs' of the pairs in that order. A NULL pair
// (one its FILTER rejects) is skipped; over no pair the result is NULL.
func ObjectAgg(kind AggKind, items []ListItem, order []ListOrder, distinct bool) (types.Datum, error) {
	items = slices.DeleteFunc(items, func(it ListItem) bool { return it.Value == nil })
	if len(items) == 0 {
		return nil, nil
	}
	items = sortListItems(items, order, distinct, objectPairType)
	pairs := make([]types.Datum, len(items))
	for i, it := range items {
		pairs[i] = it.Value
	}
	return ObjectFromPairs(kind, pairs)
}

// ObjectFromPairs is the object of ObjectPair's pairs in their order
// (NULL pairs skipped; NULL over none): jsonb_object_agg's (kind
// AggJSONBObjectAgg) normalized, a later value of a key replacing an
// earlier one; json_object_agg's as PostgreSQL prints it, { "a" : 1,
// "b" : 2 }, keeping the pairs' order and repeated keys.
func ObjectFromPairs(kind AggKind, pairs []types.Datum) (types.Datum, error) {
	var keys []string
	var vals []string
	for _, p := range pairs {
		if p == nil {
			continue
		}
		s, ok := p.(string)
		if !ok {
			return nil, fmt.Errorf("expr: %s of %T, not a pair", kind, p)
		}
		kv, err := types.ParseArray(s, types.TText)
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 {
			return nil, fmt.Errorf("expr: %s of %q, not a pair", kind, s)
		}
		k, ok1 := kv[0].(string)
		v, ok2 := kv[1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("expr: %s of %q, not a pair", kind, s)
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if kind == AggJSONObjectAgg {
		var b strings.Builder
		b.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonb.FromString(k).String())
			b.WriteString(" : ")
			b.WriteString(vals[i])
		}
		b.WriteString(" }")
		return b.String(), nil
	}
	js := make([]jsonb.Value, len(vals))
	for i, v := range vals {
		j, err := jsonb.Parse(v)
		if err != nil {
			return nil, err
		}
		js[i] = j
	}
	return jsonb.NewObject(keys, js).String(), nil
}
