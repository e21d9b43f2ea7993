package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// json and jsonb: casts, operators and functions, over package jsonb. A
// jsonb Datum is its normal form's text, a json Datum its input text;
// operators parse them. The json type's operators (-> ->> #> #>>) work
// on its text as written (json_funcs.go), as PostgreSQL's do.

// catUser is the category of json and jsonb (pg_type.typcategory 'U').
const catUser = 'U'

func isJSON(t types.Type) bool { return t.ID == types.IDJSON || t.ID == types.IDJSONB }

// jsonCastLevel decides castLevel for json and jsonb: json and jsonb
// convert to each other in assignment, jsonb to bool and the numbers
// explicitly; text conversions are the string category's.
func jsonCastLevel(from, to types.ID) (castContext, bool, bool) {
	f, t := types.Type{ID: from}, types.Type{ID: to}
	switch {
	case !isJSON(f) && !isJSON(t):
		return 0, false, false
	case isJSON(f) && isJSON(t):
		return ctxAssign, true, true
	case from == types.IDJSONB && (to == types.IDBool || t.IsNumeric()):
		return ctxExplicit, true, true
	case isJSON(f) && category(to) == catString, isJSON(t) && category(from) == catString:
		return 0, false, false // the string category's rules
	}
	return 0, false, true
}

// jsonConverter converts jsonb to json and back, and jsonb scalars to
// bool and numbers; nil for other conversions.
func jsonConverter(from, to types.Type) convertFn {
	switch {
	case from.ID == types.IDJSON && to.ID == types.IDJSONB:
		return func(v types.Datum) (types.Datum, error) { return types.Parse(v.(string), to) }
	case from.ID == types.IDJSONB && to.ID == types.IDJSON:
		return func(v types.Datum) (types.Datum, error) { return v, nil }
	case from.ID == types.IDJSONB && to.ID == types.IDBool:
		return func(v types.Datum) (types.Datum, error) {
			j := parseJSONB(v)
			if b, ok := j.Bool(); ok {
				return b, nil
			}
			return nil, jsonbCastError(j, to)
		}
	case from.ID == types.IDJSONB && to.IsNumeric():
		conv := converter(types.TNumeric, to, true)
		return func(v types.Datum) (types.Datum, error) {
			j := parseJSONB(v)
			d, ok := j.Num()
			if !ok {
				return nil, jsonbCastError(j, to)
			}
			return conv(d)
		}
	}
	return nil
}

// jsonbCastError is PostgreSQL's error for a cast of a jsonb of the wrong
// kind.
func jsonbCastError(j jsonb.Value, to types.Type) error {
	kind := j.Typeof()
	if kind == "number" {
		kind = "numeric"
	}
	return pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", kind, to)
}

// parseJSONB reads a stored jsonb (always valid: it is a normal form).
func parseJSONB(v types.Datum) jsonb.Value {
	j, err := jsonb.Parse(v.(string))
	if err != nil {
		panic("expr: a jsonb datum that does not parse: " + err.Error())
	}
	return j
}

// jsonOf reads a json or jsonb Datum.
func jsonOf(v types.Datum, t types.Type) (jsonb.Value, error) {
	if t.ID == types.IDJSONB {
		return parseJSONB(v), nil
	}
	return jsonb.Parse(v.(string))
}

// jsonBinary builds the operators with a json or jsonb operand, and the
// JSON-only operators; ok is false when it does not apply.
func jsonBinary(op string, l, r Expr) (Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	switch op {
	case "->", "->>", "#>", "#>>":
		if !isJSON(lt) {
			return nil, true, operatorError(op, []types.Type{lt, rt}, resolveNone)
		}
		e, err := jsonGet(op, l, r)
		return e, true, err
	case "?", "?|", "?&", "#-", "@>", "<@":
		if (op == "@>" || op == "<@") && (lt.ID == types.IDArray || rt.ID == types.IDArray) {
			return nil, false, nil // array containment
		}
		if lt.ID != types.IDJSONB && !(lt.ID == types.IDUnknown && rt.ID == types.IDJSONB) {
			return nil, true, operatorError(op, []types.Type{lt, rt}, resolveNone)
		}
		e, err := jsonbOp(op, l, r)
		return e, true, err
	}
	if op == "||" && (lt.IsString() || rt.IsString()) {
		return nil, false, nil // jsonb || text: anytextcat (concatOp)
	}
	if lt.ID != types.IDJSONB && rt.ID != types.IDJSONB {
		if (isJSON(lt) || isJSON(rt)) && op != "||" {
			return nil, true, operatorError(op, []types.Type{lt, rt}, resolveNone)
		}
		return nil, false, nil
	}
	switch op {
	case "=", "<>", "<", "<=", ">", ">=", "||":
		l, r, err := bothJSONB(op, l, r)
		if err != nil {
			return nil, true, err
		}
		if op == "||" {
			return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TJSONB,
				fn: func(a []types.Datum) (types.Datum, error) {
					return jsonb.Concat(parseJSONB(a[0]), parseJSONB(a[1])).String(), nil
				}}, true, nil
		}
		return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TBool,
			fn: func(a []types.Datum) (types.Datum, error) {
				return cmpResult(op, jsonb.Compare(parseJSONB(a[0]), parseJSONB(a[1]))), nil
			}}, true, nil
	case "-":
		if lt.ID != types.IDJSONB {
			return nil, true, operatorError(op, []types.Type{lt, rt}, resolveNone)
		}
		e, err := jsonbDelete(l, r)
		return e, true, err
	}
	return nil, true, operatorError(op, []types.Type{lt, rt}, resolveNone)
}

// cmpResult applies a comparison operator to a three-way result.
func cmpResult(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// bothJSONB brings an untyped literal operand to jsonb; both must then be
// jsonb.
func bothJSONB(op string, l, r Expr) (Expr, Expr, error) {
	var err error
	if l.Type().ID == types.IDUnknown {
		l, err = coerce(l, types.TJSONB)
	} else if r.Type().ID == types.IDUnknown {
		r, err = coerce(r, types.TJSONB)
	}
	if err != nil {
		return nil, nil, err
	}
	if l.Type().ID != types.IDJSONB || r.Type().ID != types.IDJSONB {
		return nil, nil, operatorError(op, []types.Type{l.Type(), r.Type()}, resolveNone)
	}
	return l, r, nil
}

// textArrayArg coerces a path or key-list operand to text[].
func textArrayArg(op string, l, r Expr) (Expr, error) {
	t := types.ArrayOf(types.IDText)
	if r.Type() == t {
		return r, nil
	}
	if r.Type().ID == types.IDUnknown {
		return coerce(r, t)
	}
	if r.Type().ID == types.IDArray && r.Type().Elem == types.IDVarchar {
		return castIn(r, t, ctxImplicit)
	}
	return nil, operatorError(op, []types.Type{l.Type(), r.Type()}, resolveNone)
}

// textList reads a text[] Datum; a NULL element is an error where
// PostgreSQL's is.
func textList(v types.Datum) ([]string, []bool, error) {
	elems, err := types.ParseArray(v.(string), types.TText)
	if err != nil {
		return nil, nil, err
	}
	out, nulls := make([]string, len(elems)), make([]bool, len(elems))
	for i, e := range elems {
		if e == nil {
			nulls[i] = true
			continue
		}
		out[i] = e.(string)
	}
	return out, nulls, nil
}

// jsonGet builds -> and ->> (by key or index) and #> and #>> (by path).
func jsonGet(op string, l, r Expr) (Expr, error) {
	lt := l.Type()
	res := lt
	if strings.HasSuffix(op, ">>") {
		res = types.TText
	}
	var get func(j jsonb.Value, k types.Datum) (jsonb.Value, bool, error)
	var err error
	switch {
	case op[0] == '#':
		if r, err = textArrayArg(op, l, r); err != nil {
			return nil, err
		}
		get = func(j jsonb.Value, k types.Datum) (jsonb.Value, bool, error) {
			path, nulls, err := textList(k)
			if err != nil {
				return jsonb.Value{}, false, err
			}
			for _, n := range nulls {
				if n {
					return jsonb.Value{}, false, nil
				}
			}
			v, ok := j.Path(path)
			return v, ok, nil
		}
	case r.Type().IsInteger():
		if r, err = coerce(r, types.TInt32); err != nil {
			return nil, err
		}
		get = func(j jsonb.Value, k types.Datum) (jsonb.Value, bool, error) {
			v, ok := j.Elem(int(k.(int64)))
			return v, ok, nil
		}
	default:
		if r, err = coerce(r, types.TText); err != nil {
			return nil, operatorError(op, []types.Type{lt, r.Type()}, resolveNone)
		}
		get = func(j jsonb.Value, k types.Datum) (jsonb.Value, bool, error) {
			v, ok := j.Field(k.(string))
			return v, ok, nil
		}
	}
	// jsonb -> and ->> by key or index read the stored normal form
	// directly, without parsing the whole value.
	fast := lt.ID == types.IDJSONB && op[0] == '-'
	return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: res,
		fn: func(a []types.Datum) (types.Datum, error) {
			if fast {
				var v string
				var ok bool
				s := a[0].(string)
				switch k := a[1].(type) {
				case string:
					if res.ID == types.IDText {
						v, ok = jsonb.FieldTextCanonical(s, k)
					} else {
						v, ok = jsonb.FieldCanonical(s, k)
					}
				case int64:
					if res.ID == types.IDText {
						v, ok = jsonb.ElemTextCanonical(s, int(k))
					} else {
						v, ok = jsonb.ElemCanonical(s, int(k))
					}
				}
				if !ok {
					return nil, nil
				}
				return strings.Clone(v), nil // v may view s
			}
			if lt.ID == types.IDJSON { // json's text as written
				return jsonWrittenGet(op, a[0].(string), a[1], res.ID == types.IDText)
			}
			j, err := jsonOf(a[0], lt)
			if err != nil {
				return nil, err
			}
			v, ok, err := get(j, a[1])
			if err != nil || !ok {
				return nil, err
			}
			if res.ID == types.IDText {
				s, ok := v.Text()
				if !ok {
					return nil, nil
				}
				return s, nil
			}
			return v.String(), nil
		}}, nil
}

// jsonbOp builds ? ?| ?& #- @> <@.
func jsonbOp(op string, l, r Expr) (Expr, error) {
	var err error
	switch op {
	case "@>", "<@":
		if l, r, err = bothJSONB(op, l, r); err != nil {
			return nil, err
		}
		return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TBool,
			fn: func(a []types.Datum) (types.Datum, error) {
				x, y := parseJSONB(a[0]), parseJSONB(a[1])
				if op == "<@" {
					x, y = y, x
				}
				return jsonb.Contains(x, y), nil
			}}, nil
	case "?":
		if r, err = coerce(r, types.TText); err != nil {
			return nil, operatorError(op, []types.Type{l.Type(), r.Type()}, resolveNone)
		}
		return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: types.TBool,
			fn: func(a []types.Datum) (types.Datum, error) {
				return parseJSONB(a[0]).Exists(a[1].(string)), nil
			}}, nil
	}
	if r, err = textArrayArg(op, l, r); err != nil {
		return nil, err
	}
	typ := types.TBool
	if op == "#-" {
		typ = types.TJSONB
	}
	return &call{name: op, style: styleInfix, args: []Expr{l, r}, typ: typ,
		fn: func(a []types.Datum) (types.Datum, error) {
			keys, nulls, err := textList(a[1])
			if err != nil {
				return nil, err
			}
			j := parseJSONB(a[0])
			switch op {
			case "#-":
				v, err := j.DeletePathNulls(keys, nulls)
				if err != nil {
					return nil, err
				}
				return v.String(), nil
			case "?|":
				return jsonb.ExistsAny(j, nonNull(keys, nulls)), nil
			}
			return jsonb.ExistsAll(j, nonNull(keys, nulls)), nil
		}}, nil
}

func nonNull(keys []string, nulls []bool) []string {
	out := keys[:0:0]
	for i, k := range keys {
		if !nulls[i] {
			out = append(out, k)
		}
	}
	return out
}

// jsonbDelete builds jsonb - text, jsonb - text[] and jsonb - integer.
func jsonbDelete(l, r Expr) (Expr, error) {
	rt := r.Type()
	var del func(j jsonb.Value, k types.Datum) (jsonb.Value, error)
	var err error
	switch {
	case rt.IsInteger():
		if r, err = coerce(r, types.TInt32); err != nil {
			return nil, err
		}
		del = func(j jsonb.Value, k types.Datum) (jsonb.Value, error) { return j.DeleteIndex(int(k.(int64))) }
	case rt.ID == types.IDArray:
		if r, err = textArrayArg("-", l, r); err != nil {
			return nil, err
		}
		del = func(j jsonb.Value, k types.Datum) (jsonb.Value, error) {
			keys, nulls, err := textList(k)
			if err != nil {
				return jsonb.Value{}, err
			}
			return j.DeleteKeys(nonNull(keys, nulls))
		}
	default:
		if r, err = coerce(r, types.TText); err != nil {
			return nil, operatorError("-", []types.Type{l.Type(), rt}, resolveNone)
		}
		del = func(j jsonb.Value, k types.Datum) (jsonb.Value, error) { return j.DeleteKey(k.(string)) }
	}
	return &call{name: "-", style: styleInfix, args: []Expr{l, r}, typ: types.TJSONB,
		fn: func(a []types.Datum) (types.Datum, error) {
			v, err := del(parseJSONB(a[0]), a[1])
			if err != nil {
				return nil, err
			}
			return v.String(), nil
		}}, nil
}

// ToJSONB converts a SQL value of type t to jsonb, as to_jsonb does.
func ToJSONB(v types.Datum, t types.Type) (jsonb.Value, error) {
	if v == nil {
		return jsonb.NullValue(), nil
	}
	switch t.ID {
	case types.IDJSON, types.IDJSONB:
		return jsonb.Parse(v.(string))
	case types.IDBool:
		return jsonb.FromBool(v.(bool)), nil
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return jsonb.FromNumber(apd.New(v.(int64), 0)), nil
	case types.IDFloat32, types.IDFloat64:
		f := v.(float64)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return jsonb.FromString(types.Format(v, t)), nil
		}
		d, _, err := apd.NewFromString(types.Format(v, t))
		if err != nil {
			return jsonb.Value{}, err
		}
		return jsonb.FromNumber(d), nil
	case types.IDNumeric:
		d := v.(*apd.Decimal)
		if d.Form != apd.Finite {
			return jsonb.FromString(types.Format(v, t)), nil
		}
		return jsonb.FromNumber(d), nil
	case types.IDDate:
		return jsonb.FromString(types.Format(v, t)), nil
	case types.IDTimestamp, types.IDTimestampTZ:
		return jsonb.FromString(isoTimestamp(v.(types.Timestamp), t.ID == types.IDTimestampTZ)), nil
	case types.IDArray:
		a, err := types.ParseArrayValue(v.(string), t.ElemType())
		if err != nil {
			return jsonb.Value{}, err
		}
		vals := make([]jsonb.Value, len(a.Elems))
		for i, e := range a.Elems {
			if vals[i], err = ToJSONB(e, t.ElemType()); err != nil {
				return jsonb.Value{}, err
			}
		}
		return nestJSONB(vals, a.Dims), nil
	}
	return jsonb.FromString(types.Format(v, t)), nil
}

// nestJSONB is the jsonb array of vals in the shape dims: nested arrays
// for an array of several dimensions, as to_jsonb makes them.
func nestJSONB(vals []jsonb.Value, dims []int) jsonb.Value {
	if len(dims) < 2 {
		return jsonb.NewArray(vals)
	}
	n := len(vals) / dims[0]
	rows := make([]jsonb.Value, dims[0])
	for i := range rows {
		rows[i] = nestJSONB(vals[i*n:(i+1)*n], dims[1:])
	}
	return jsonb.NewArray(rows)
}

// JSONBArray is the jsonb array of vals, of type t, in their order (as
// jsonb_agg over a window frame builds it).
func JSONBArray(vals []types.Datum, t types.Type) (types.Datum, error) {
	js := make([]jsonb.Value, len(vals))
	for i, v := range vals {
		j, err := ToJSONB(v, t)
		if err != nil {
			return nil, err
		}
		js[i] = j
	}
	return jsonb.NewArray(js).String(), nil
}

// JSONArray is json_agg's value over vals, of type t, in their order, as
// PostgreSQL's json_agg_transfn prints it: [1, 2, null], each value as
// to_json gives it (json as written), and before each non-NULL array
// after the first row a newline and a space: [[1,2], \n [3]]. A value
// to_json cannot render is its text as a JSON string.
func JSONArray(vals []types.Datum, t types.Type) types.Datum {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
			if v != nil && t.ID == types.IDArray {
				b.WriteString("\n ")
			}
		}
		j, err := toJSONText(v, t)
		if err != nil {
			j = jsonb.FromString(types.Format(v, t)).String()
		}
		b.WriteString(j)
	}
	b.WriteByte(']')
	return b.String()
}

// isoTimestamp is a timestamp as JSON prints it: ISO 8601 with a T.
func isoTimestamp(ts types.Timestamp, tz bool) string {
	s := types.Format(ts, types.Type{ID: types.IDTimestamp})
	if types.IsInfinite(ts) {
		return s
	}
	bc := strings.HasSuffix(s, " BC")
	s = strings.TrimSuffix(s, " BC")
	s = strings.Replace(s, " ", "T", 1)
	if tz {
		s += "+00:00"
	}
	if bc {
		s += " BC"
	}
	return s
}

func init() {
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		a := args[0]
		if a.Type().ID == types.IDUnknown {
			return nil, errUnknownPolymorphic() // to_jsonb(anyelement)
		}
		t := a.Type()
		return &call{name: name, style: styleFunc, args: []Expr{a}, typ: types.TJSONB,
			fn: func(v []types.Datum) (types.Datum, error) {
				j, err := ToJSONB(v[0], t)
				if err != nil {
					return nil, err
				}
				return j.String(), nil
			}}, nil
	}, "to_jsonb")
	register(jsonbBuild(true), "jsonb_build_object")
	register(jsonbBuild(false), "jsonb_build_array")
	register(overloads(fn1(types.IDJSONB, tText, jsonbFn(func(j jsonb.Value) (types.Datum, error) {
		return j.Typeof(), nil
	}))), "jsonb_typeof")
	register(overloads(fn1(types.IDJSONB, tInt4, jsonbFn(func(j jsonb.Value) (types.Datum, error) {
		n, err := j.ArrayLength()
		return int64(n), err
	}))), "jsonb_array_length")
	register(overloads(fn1(types.IDJSONB, types.IDJSONB, jsonbFn(func(j jsonb.Value) (types.Datum, error) {
		return j.StripNulls().String(), nil
	}))), "jsonb_strip_nulls")
	register(overloads(fn1(types.IDJSONB, tText, jsonbFn(func(j jsonb.Value) (types.Datum, error) {
		return j.Pretty(), nil
	}))), "jsonb_pretty")
	register(jsonbExtractPath(false), "jsonb_extract_path")
	register(jsonbExtractPath(true), "jsonb_extract_path_text")
	register(jsonbSet(false), "jsonb_set")
	register(jsonbSet(true), "jsonb_insert")
}

// jsonbFn adapts a function of one jsonb.
func jsonbFn(f func(jsonb.Value) (types.Datum, error)) evalFn {
	return func(a []types.Datum) (types.Datum, error) { return f(parseJSONB(a[0])) }
}

// buildArgs checks the arguments of a [json|jsonb]_build_object (object,
// named fn) or _array: alternating keys and values for an object; an
// untyped literal is text.
func buildArgs(object bool, args []Expr, fn string) ([]Expr, error) {
	if object && len(args)%2 != 0 {
		e := pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements")
		e.Hint = "The arguments of " + fn + "() must consist of alternating keys and values."
		return nil, e
	}
	cargs := make([]Expr, len(args))
	for i, a := range args {
		cargs[i] = a
		if a.Type().ID == types.IDUnknown {
			var err error
			if cargs[i], err = coerce(a, types.TText); err != nil {
				return nil, err
			}
		}
	}
	return cargs, nil
}

// jsonbBuild builds jsonb_build_object(k1, v1, ...) or
// jsonb_build_array(v1, ...): values of any type, NULL as JSON null.
func jsonbBuild(object bool) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		cargs, err := buildArgs(object, args, "jsonb_build_object")
		if err != nil {
			return nil, err
		}
		ts := exprTypes(cargs)
		return &call{name: name, style: styleFunc, args: cargs, typ: types.TJSONB, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				if !object {
					vals := make([]jsonb.Value, len(a))
					for i, v := range a {
						j, err := ToJSONB(v, ts[i])
						if err != nil {
							return nil, err
						}
						vals[i] = j
					}
					return jsonb.NewArray(vals).String(), nil
				}
				keys := make([]string, 0, len(a)/2)
				vals := make([]jsonb.Value, 0, len(a)/2)
				for i := 0; i < len(a); i += 2 {
					if a[i] == nil {
						return nil, pgerr.New(pgerr.NullValueNotAllowed, "argument %d: key must not be null", i+1)
					}
					k, err := objectKey(a[i], ts[i])
					if err != nil {
						return nil, err
					}
					j, err := ToJSONB(a[i+1], ts[i+1])
					if err != nil {
						return nil, err
					}
					keys, vals = append(keys, k), append(vals, j)
				}
				return jsonb.NewObject(keys, vals).String(), nil
			}}, nil
	}
}

// jsonbExtractPath builds jsonb_extract_path[_text](j, VARIADIC path).
func jsonbExtractPath(text bool) funcBuilder {
	return extractPath(types.TJSONB, 1, text, func(doc string, path []string) (types.Datum, error) {
		v, ok := parseJSONB(doc).Path(path)
		if !ok {
			return nil, nil
		}
		if text {
			s, ok := v.Text()
			if !ok {
				return nil, nil
			}
			return s, nil
		}
		return v.String(), nil
	})
}

// extractPath builds a [json|jsonb]_extract_path[_text](doc, VARIADIC
// path) of at least minArgs arguments over documents of type doc: get
// returns the value at path (NULL when the document, or a path element,
// is NULL).
func extractPath(doc types.Type, minArgs int, text bool, get func(doc string, path []string) (types.Datum, error)) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		if len(args) < minArgs {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		j, err := coerce(args[0], doc)
		if err != nil {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		cargs := []Expr{j}
		for _, a := range args[1:] {
			c, err := coerce(a, types.TText)
			if err != nil {
				return nil, functionError(name, exprTypes(args), resolveNone)
			}
			cargs = append(cargs, c)
		}
		typ := doc
		if text {
			typ = types.TText
		}
		return &call{name: name, style: styleFunc, args: cargs, typ: typ, nonStrict: true,
			fn: func(a []types.Datum) (types.Datum, error) {
				if a[0] == nil {
					return nil, nil
				}
				path := make([]string, len(a)-1)
				for i, p := range a[1:] {
					if p == nil {
						return nil, nil
					}
					path[i] = p.(string)
				}
				return get(a[0].(string), path)
			}}, nil
	}
}

// jsonbSet builds jsonb_set(target, path, new [, create_missing]) or
// jsonb_insert(target, path, new [, insert_after]).
func jsonbSet(insert bool) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		if len(args) != 3 && len(args) != 4 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		want := []types.Type{types.TJSONB, types.ArrayOf(types.IDText), types.TJSONB, types.TBool}
		cargs := make([]Expr, len(args))
		for i, a := range args {
			c, err := coerce(a, want[i])
			if err != nil {
				return nil, functionError(name, exprTypes(args), resolveNone)
			}
			cargs[i] = c
		}
		return &call{name: name, style: styleFunc, args: cargs, typ: types.TJSONB,
			fn: func(a []types.Datum) (types.Datum, error) {
				path, nulls, err := textList(a[1])
				if err != nil {
					return nil, err
				}
				flag := !insert // create_missing defaults to true, insert_after to false
				if len(a) == 4 {
					flag = a[3].(bool)
				}
				j, nv := parseJSONB(a[0]), parseJSONB(a[2])
				var v jsonb.Value
				if insert {
					v, err = j.InsertNulls(path, nulls, nv, flag)
				} else {
					v, err = j.SetNulls(path, nulls, nv, flag)
				}
				if err != nil {
					return nil, err
				}
				return v.String(), nil
			}}, nil
	}
}
