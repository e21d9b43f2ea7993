package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The json type's functions, as PostgreSQL 15 has them: to_json,
// json_build_object, json_build_array, array_to_json, json_object,
// json_typeof, json_array_length, json_strip_nulls and
// json_extract_path[_text], with jsonb_object. A json value keeps its
// text: the functions that read one work on its text as written
// (package jsonb's Written*), and the ones that build one print it as
// PostgreSQL does ({"a" : 1, "b" : 2}, [1, "x"], [1,2]).

// arraySubscriptError is SQLSTATE 2202E.
const arraySubscriptError = "2202E"

func init() {
	register(toJSON, "to_json")
	register(jsonBuild(true), "json_build_object")
	register(jsonBuild(false), "json_build_array")
	register(arrayToJSON, "array_to_json")
	register(jsonObject(false), "json_object")
	register(jsonObject(true), "jsonb_object")
	register(overloads(fn1(types.IDJSON, tText, jsonTextFn(func(s string) (types.Datum, error) {
		return jsonb.WrittenTypeof(s), nil
	}))), "json_typeof")
	register(overloads(fn1(types.IDJSON, tInt4, jsonTextFn(func(s string) (types.Datum, error) {
		elems, ok := jsonb.WrittenElements(s)
		if !ok {
			if k := jsonb.WrittenKind(s); k != '{' {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
			}
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return int64(len(elems)), nil
	}))), "json_array_length")
	register(overloads(fn1(types.IDJSON, types.IDJSON, jsonTextFn(func(s string) (types.Datum, error) {
		if err := jsonb.CheckWritten(s); err != nil {
			return nil, err
		}
		return jsonb.WrittenStripNulls(s), nil
	}))), "json_strip_nulls")
	register(jsonExtractPath(false), "json_extract_path")
	register(jsonExtractPath(true), "json_extract_path_text")
}

// jsonTextFn adapts a function of one json's text.
func jsonTextFn(f func(string) (types.Datum, error)) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return f(a[0].(string)) }
}

// toJSON builds to_json(anyelement): the value as PostgreSQL's
// datum_to_json prints it (toJSONText).
func toJSON(name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	t := args[0].Type()
	if t.ID == types.IDUnknown {
		return nil, errUnknownPolymorphic()
	}
	return &call{name: name, style: styleFunc, args: args, typ: types.TJSON,
		fn: func(a []types.Datum) (types.Datum, error) { return toJSONText(a[0], t) }}, nil
}

// jsonBuild builds json_build_object(k1, v1, ...) ({"k1" : v1, ...}) or
// json_build_array(v1, ...) ([v1, ...]): values as to_json prints them,
// NULL as null; keys as their text, a NULL key an error.
func jsonBuild(object bool) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		cargs, err := buildArgs(object, args, "json_build_object")
		if err != nil {
			return nil, err
		}
		ts := exprTypes(cargs)
		return &call{name: name, style: styleFunc, args: cargs, typ: types.TJSON, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				var b strings.Builder
				if !object {
					b.WriteByte('[')
					for i, v := range a {
						if i > 0 {
							b.WriteString(", ")
						}
						s, err := toJSONText(v, ts[i])
						if err != nil {
							return nil, err
						}
						b.WriteString(s)
					}
					b.WriteByte(']')
					return b.String(), nil
				}
				b.WriteByte('{')
				for i := 0; i < len(a); i += 2 {
					if i > 0 {
						b.WriteString(", ")
					}
					if a[i] == nil {
						e := pgerr.New(pgerr.InvalidParameterValue, "argument %d cannot be null", i+1)
						e.Hint = "Object keys should be text."
						return nil, e
					}
					k, err := objectKey(a[i], ts[i])
					if err != nil {
						return nil, err
					}
					b.WriteString(jsonb.Quote(k))
					b.WriteString(" : ")
					v, err := toJSONText(a[i+1], ts[i+1])
					if err != nil {
						return nil, err
					}
					b.WriteString(v)
				}
				b.WriteByte('}')
				return b.String(), nil
			}}, nil
	}
}

// arrayToJSON builds array_to_json(anyarray [, pretty]): [1,2], or with
// pretty the elements on lines of their own ([1,\n 2]).
func arrayToJSON(name string, args []Expr) (Expr, error) {
	if len(args) != 1 && len(args) != 2 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	t := args[0].Type()
	switch {
	case t.ID == types.IDUnknown:
		return nil, errUnknownPolymorphic()
	case t.ID != types.IDArray:
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	cargs := []Expr{args[0]}
	if len(args) == 2 {
		p, err := coerce(args[1], types.TBool)
		if err != nil {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		cargs = append(cargs, p)
	}
	return &call{name: name, style: styleFunc, args: cargs, typ: types.TJSON,
		fn: func(a []types.Datum) (types.Datum, error) {
			if len(a) == 1 || a[1] != true {
				return arrayToJSONText(a[0], t)
			}
			return arrayJSONText(a[0], t, ",\n ")
		}}, nil
}

// jsonObject builds json_object(text[]) and json_object(keys text[],
// values text[]) (jsonb_object with asJSONB): an object of text values
// (NULL as null) from alternating keys and values, or from two arrays.
func jsonObject(asJSONB bool) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		if len(args) != 1 && len(args) != 2 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		cargs := make([]Expr, len(args))
		for i, a := range args {
			c, err := textArrayOf(a)
			if err != nil {
				return nil, functionError(name, exprTypes(args), resolveNone)
			}
			cargs[i] = c
		}
		typ := types.TJSON
		if asJSONB {
			typ = types.TJSONB
		}
		return &call{name: name, style: styleFunc, args: cargs, typ: typ,
			fn: func(a []types.Datum) (types.Datum, error) {
				keys, vals, nulls, err := objectArrays(a)
				if err != nil {
					return nil, err
				}
				if asJSONB {
					js := make([]jsonb.Value, len(vals))
					for i, v := range vals {
						js[i] = jsonb.FromString(v)
						if nulls[i] {
							js[i] = jsonb.NullValue()
						}
					}
					return jsonb.NewObject(keys, js).String(), nil
				}
				var b strings.Builder
				b.WriteByte('{')
				for i, k := range keys {
					if i > 0 {
						b.WriteString(", ")
					}
					b.WriteString(jsonb.Quote(k))
					b.WriteString(" : ")
					if nulls[i] {
						b.WriteString("null")
					} else {
						b.WriteString(jsonb.Quote(vals[i]))
					}
				}
				b.WriteByte('}')
				return b.String(), nil
			}}, nil
	}
}

// textArrayOf coerces e to text[] (an untyped literal, varchar[]).
func textArrayOf(e Expr) (Expr, error) {
	t := types.ArrayOf(types.IDText)
	if e.Type().ID == types.IDArray && e.Type().Elem == types.IDVarchar {
		return castIn(e, t, ctxImplicit)
	}
	return coerce(e, t)
}

// objectArrays reads json_object's arguments: the keys, the values and
// which values are NULL, with PostgreSQL's errors.
func objectArrays(a []types.Datum) (keys, vals []string, nulls []bool, err error) {
	if len(a) == 1 {
		all, allNulls, err := textList(a[0])
		if err != nil {
			return nil, nil, nil, err
		}
		if len(all)%2 != 0 {
			return nil, nil, nil, pgerr.New(arraySubscriptError, "array must have even number of elements")
		}
		for i := 0; i < len(all); i += 2 {
			if allNulls[i] {
				return nil, nil, nil, pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for object key")
			}
			keys, vals, nulls = append(keys, all[i]), append(vals, all[i+1]), append(nulls, allNulls[i+1])
		}
		return keys, vals, nulls, nil
	}
	ks, kNulls, err := textList(a[0])
	if err != nil {
		return nil, nil, nil, err
	}
	vs, vNulls, err := textList(a[1])
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case (len(ks) == 0) != (len(vs) == 0):
		return nil, nil, nil, pgerr.New(arraySubscriptError, "wrong number of array subscripts")
	case len(ks) != len(vs):
		return nil, nil, nil, pgerr.New(arraySubscriptError, "mismatched array dimensions")
	}
	for i := range ks {
		if kNulls[i] {
			return nil, nil, nil, pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for object key")
		}
	}
	return ks, vs, vNulls, nil
}

// jsonExtractPath builds json_extract_path[_text](from_json json,
// VARIADIC path_elems text[]): json #> path (#>> with text).
func jsonExtractPath(text bool) funcBuilder {
	return extractPath(types.TJSON, 2, text, func(doc string, path []string) (types.Datum, error) {
		return jsonWrittenPath(doc, path, text)
	})
}

// jsonWrittenPath is json #> path (#>> with text) over the json text s.
func jsonWrittenPath(s string, path []string, text bool) (types.Datum, error) {
	if err := jsonb.CheckWritten(s); err != nil {
		return nil, err
	}
	v, ok := jsonb.WrittenPath(s, path)
	if !ok {
		return nil, nil
	}
	return jsonWrittenResult(v, text), nil
}

func jsonWrittenResult(v string, text bool) types.Datum {
	if !text {
		return v
	}
	t, ok := jsonb.WrittenValueText(v)
	if !ok {
		return nil
	}
	return t
}

// jsonWrittenGet is json -> key, json -> index and json #> path (->>
// and #>> with text) over the json text s, as PostgreSQL's json
// operators read it: the value as written.
func jsonWrittenGet(op string, s string, k types.Datum, text bool) (types.Datum, error) {
	if op[0] == '#' {
		path, nulls, err := textList(k)
		if err != nil {
			return nil, err
		}
		for _, n := range nulls {
			if n {
				return nil, nil
			}
		}
		return jsonWrittenPath(s, path, text)
	}
	if err := jsonb.CheckWritten(s); err != nil {
		return nil, err
	}
	var v string
	var ok bool
	switch k := k.(type) {
	case string:
		v, ok = jsonb.WrittenField(s, k)
	case int64:
		v, ok = jsonb.WrittenElem(s, int(k))
	}
	if !ok {
		return nil, nil
	}
	return jsonWrittenResult(v, text), nil
}

// jsonWrittenKeys is json_object_keys: the keys as written, in order,
// duplicates kept.
func jsonWrittenKeys(a []types.Datum) ([]types.Datum, error) {
	s := a[0].(string)
	if err := jsonb.CheckWritten(s); err != nil {
		return nil, err
	}
	keys, ok := jsonb.WrittenKeys(s)
	if !ok {
		if jsonb.WrittenKind(s) == '[' {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call json_object_keys on an array")
		}
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call json_object_keys on a scalar")
	}
	out := make([]types.Datum, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out, nil
}

// jsonWrittenElements is json_array_elements (json_array_elements_text
// with text): the elements as written.
func jsonWrittenElements(text bool) func([]types.Datum) ([]types.Datum, error) {
	fn := "json_array_elements"
	if text {
		fn += "_text"
	}
	return func(a []types.Datum) ([]types.Datum, error) {
		s := a[0].(string)
		if text {
			if err := jsonb.CheckWritten(s); err != nil {
				return nil, err
			}
		}
		elems, ok := jsonb.WrittenElements(s)
		if !ok {
			if jsonb.WrittenKind(s) == '{' {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", fn)
			}
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a scalar", fn)
		}
		out := make([]types.Datum, len(elems))
		for i, e := range elems {
			out[i] = jsonWrittenResult(e, text)
		}
		return out, nil
	}
}
