package expr

import (
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// Set-returning functions besides unnest and generate_series:
// jsonb_array_elements[_text], jsonb_object_keys, jsonb_each[_text] (and
// their json forms), regexp_split_to_table and regexp_matches. Like
// PostgreSQL's they are strict: a NULL argument yields no rows.
// jsonb_each and its kin return a record of two columns (PostgreSQL's OUT
// parameters key and value): in FROM they are two columns; in a select
// list, RecordText turns them into the record's text.

// SetFunc is a bound set-returning function: its arguments, coerced,
// its result columns and the function giving the rows of one call.
type SetFunc struct {
	Name string
	Args []Expr
	// Cols are the result's columns: one, or the OUT parameters of a
	// function returning a record (jsonb_each: key, value).
	Cols []SetCol
	// Fn gives the rows of one call, each of len(Cols) values.
	Fn func(args []types.Datum) ([][]types.Datum, error)
}

// SetCol is a result column of a set-returning function: a function of
// one column has no name of its own (its call or its alias names it).
type SetCol struct {
	Name string
	Type types.Type
}

// IsSetFunc reports whether name is one of these set-returning functions.
func IsSetFunc(name string) bool {
	_, ok := setFuncs[name]
	return ok
}

// rowsFn gives the rows of one call of a set-returning function.
type rowsFn = func(args []types.Datum) ([][]types.Datum, error)

type setFuncDef struct {
	sigs [][]types.Type
	cols []SetCol
	fn   rowsFn
	// bind, when set, binds a function of polymorphic arguments instead
	// of sigs, cols and fn.
	bind func(args []Expr) (*SetFunc, error)
}

// one is the result of a function of one column of type t.
func one(t types.Type) []SetCol { return []SetCol{{Type: t}} }

// keyValue is jsonb_each's result: key text, value of type t.
func keyValue(t types.Type) []SetCol {
	return []SetCol{{Name: "key", Type: types.TText}, {Name: "value", Type: t}}
}

var setFuncs = map[string]setFuncDef{
	"jsonb_array_elements":      {sigs: [][]types.Type{{types.TJSONB}}, cols: one(types.TJSONB), fn: column(jsonElements(false))},
	"jsonb_array_elements_text": {sigs: [][]types.Type{{types.TJSONB}}, cols: one(types.TText), fn: column(jsonElements(true))},
	"jsonb_object_keys":         {sigs: [][]types.Type{{types.TJSONB}}, cols: one(types.TText), fn: column(jsonKeys)},
	"jsonb_each":                {sigs: [][]types.Type{{types.TJSONB}}, cols: keyValue(types.TJSONB), fn: jsonbEach},
	"jsonb_each_text":           {sigs: [][]types.Type{{types.TJSONB}}, cols: keyValue(types.TText), fn: jsonbEachText},
	"json_array_elements":       {sigs: [][]types.Type{{types.TJSON}}, cols: one(types.TJSON), fn: column(jsonWrittenElements(false))},
	"json_array_elements_text":  {sigs: [][]types.Type{{types.TJSON}}, cols: one(types.TText), fn: column(jsonWrittenElements(true))},
	"json_object_keys":          {sigs: [][]types.Type{{types.TJSON}}, cols: one(types.TText), fn: column(jsonWrittenKeys)},
	"json_each":                 {sigs: [][]types.Type{{types.TJSON}}, cols: keyValue(types.TJSON), fn: jsonEach(false)},
	"json_each_text":            {sigs: [][]types.Type{{types.TJSON}}, cols: keyValue(types.TText), fn: jsonEach(true)},
	"regexp_split_to_table": {sigs: [][]types.Type{{types.TText, types.TText}, {types.TText, types.TText, types.TText}},
		cols: one(types.TText), fn: column(regexpSplitRows)},
	"regexp_matches": {sigs: [][]types.Type{{types.TText, types.TText}, {types.TText, types.TText, types.TText}},
		cols: one(types.ArrayOf(types.IDText)), fn: column(regexpMatchRows)},
	"generate_subscripts": {bind: bindGenerateSubscripts},
}

// BindSetFunc binds a call of the set-returning function name.
func BindSetFunc(name string, args []Expr) (*SetFunc, error) {
	def, ok := setFuncs[name]
	if !ok {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	if def.bind != nil {
		return def.bind(args)
	}
	for _, sig := range def.sigs {
		if coerced, ok := coerceSig(args, sig); ok {
			return &SetFunc{Name: name, Args: coerced, Cols: def.cols, Fn: strictSet(def.fn)}, nil
		}
	}
	return nil, functionError(name, exprTypes(args), resolveNone)
}

// coerceSig coerces args to the parameter types sig, if they fit.
func coerceSig(args []Expr, sig []types.Type) ([]Expr, bool) {
	if len(sig) != len(args) {
		return nil, false
	}
	coerced := make([]Expr, len(args))
	for i, a := range args {
		c, err := coerce(a, sig[i])
		if err != nil {
			return nil, false
		}
		coerced[i] = c
	}
	return coerced, true
}

// column turns the values of a function of one column into its rows
// (sharing one backing array).
func column(fn func([]types.Datum) ([]types.Datum, error)) rowsFn {
	return func(a []types.Datum) ([][]types.Datum, error) {
		vals, err := fn(a)
		if err != nil || len(vals) == 0 {
			return nil, err
		}
		rows := make([][]types.Datum, len(vals))
		for i := range vals {
			rows[i] = vals[i : i+1 : i+1]
		}
		return rows, nil
	}
}

func strictSet(fn rowsFn) rowsFn {
	return func(a []types.Datum) ([][]types.Datum, error) {
		for _, v := range a {
			if v == nil {
				return nil, nil
			}
		}
		return fn(a)
	}
}

func jsonElements(text bool) func([]types.Datum) ([]types.Datum, error) {
	return func(a []types.Datum) ([]types.Datum, error) {
		j, err := jsonb.Parse(a[0].(string))
		if err != nil {
			return nil, err
		}
		elems, err := j.Elements()
		if err != nil {
			return nil, err
		}
		out := make([]types.Datum, len(elems))
		for i, e := range elems {
			if !text {
				out[i] = e.String()
				continue
			}
			if s, ok := e.Text(); ok {
				out[i] = s
			}
		}
		return out, nil
	}
}

func jsonKeys(a []types.Datum) ([]types.Datum, error) {
	j, err := jsonb.Parse(a[0].(string))
	if err != nil {
		return nil, err
	}
	keys, err := j.Keys()
	if err != nil {
		return nil, err
	}
	out := make([]types.Datum, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out, nil
}

// pairs returns rows of two columns, (a[i], b[i]), sharing one backing
// array.
func pairs(n int, at func(i int) (types.Datum, types.Datum)) [][]types.Datum {
	flat := make([]types.Datum, 2*n)
	rows := make([][]types.Datum, n)
	for i := range rows {
		flat[2*i], flat[2*i+1] = at(i)
		rows[i] = flat[2*i : 2*i+2 : 2*i+2]
	}
	return rows
}

// jsonbEach is jsonb_each: an object's keys and values, in jsonb's key
// order.
func jsonbEach(a []types.Datum) ([][]types.Datum, error) {
	j, err := jsonb.Parse(a[0].(string))
	if err != nil {
		return nil, err
	}
	keys, vals, err := j.Each()
	if err != nil {
		return nil, err
	}
	return pairs(len(keys), func(i int) (types.Datum, types.Datum) { return keys[i], vals[i].String() }), nil
}

// jsonbEachText is jsonb_each_text: the values as text, JSON null as
// SQL NULL.
func jsonbEachText(a []types.Datum) ([][]types.Datum, error) {
	j, err := jsonb.Parse(a[0].(string))
	if err != nil {
		return nil, err
	}
	keys, texts, valid, err := j.EachText()
	if err != nil {
		return nil, err
	}
	return pairs(len(keys), func(i int) (types.Datum, types.Datum) {
		if !valid[i] {
			return keys[i], nil
		}
		return keys[i], texts[i]
	}), nil
}

// jsonEach is json_each (json_each_text with text): the members as
// written, in order, duplicates kept (jsonb.Members).
func jsonEach(text bool) rowsFn {
	return func(a []types.Datum) ([][]types.Datum, error) {
		keys, vals, err := jsonb.Members(a[0].(string))
		if err != nil {
			return nil, err
		}
		return pairs(len(keys), func(i int) (types.Datum, types.Datum) {
			if !text {
				return keys[i], vals[i]
			}
			if t, ok := jsonb.WrittenText(vals[i]); ok {
				return keys[i], t
			}
			return keys[i], nil
		}), nil
	}
}

// regexpSplitRows is regexp_split_to_table: regexp_split_to_array's
// pieces as rows.
func regexpSplitRows(a []types.Datum) ([]types.Datum, error) {
	arr, err := regexpSplit(a)
	if err != nil {
		return nil, err
	}
	return types.ParseArray(arr.(string), types.TText)
}

// regexpMatchRows is regexp_matches(string, pattern [, flags]): the
// captured groups of the first match, or of every match with the 'g'
// flag, one text[] per match.
func regexpMatchRows(a []types.Datum) ([]types.Datum, error) {
	re, g, err := regexArgs(a, 2, "regexp_matches()", true)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	limit := 1
	if g {
		limit = 0
	}
	ms, err := findN(re, s, 0, limit)
	if err != nil {
		return nil, err
	}
	var out []types.Datum
	for _, m := range ms {
		out = append(out, types.FormatArray(groups(s, m), types.TText))
		if !g {
			break
		}
	}
	return out, nil
}
