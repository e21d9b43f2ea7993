package expr

import (
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// Set-returning functions of one result column besides unnest and
// generate_series: jsonb_array_elements[_text], jsonb_object_keys (and
// their json forms), regexp_split_to_table and regexp_matches. Like
// PostgreSQL's they are strict: a NULL argument yields no rows.

// SetFunc is a bound set-returning function: its arguments, coerced,
// its result type and the function giving the values for one call.
type SetFunc struct {
	Name string
	Args []Expr
	Type types.Type
	Fn   func(args []types.Datum) ([]types.Datum, error)
}

// IsSetFunc reports whether name is one of these set-returning functions.
func IsSetFunc(name string) bool {
	_, ok := setFuncs[name]
	return ok
}

type setFuncDef struct {
	sigs [][]types.Type
	typ  types.Type
	fn   func(args []types.Datum) ([]types.Datum, error)
}

var setFuncs = map[string]setFuncDef{
	"jsonb_array_elements":      {sigs: [][]types.Type{{types.TJSONB}}, typ: types.TJSONB, fn: jsonElements(false)},
	"jsonb_array_elements_text": {sigs: [][]types.Type{{types.TJSONB}}, typ: types.TText, fn: jsonElements(true)},
	"jsonb_object_keys":         {sigs: [][]types.Type{{types.TJSONB}}, typ: types.TText, fn: jsonKeys},
	"json_array_elements":       {sigs: [][]types.Type{{types.TJSON}}, typ: types.TJSON, fn: jsonElements(false)},
	"json_array_elements_text":  {sigs: [][]types.Type{{types.TJSON}}, typ: types.TText, fn: jsonElements(true)},
	"json_object_keys":          {sigs: [][]types.Type{{types.TJSON}}, typ: types.TText, fn: jsonKeys},
	"regexp_split_to_table": {sigs: [][]types.Type{{types.TText, types.TText}, {types.TText, types.TText, types.TText}},
		typ: types.TText, fn: regexpSplitRows},
	"regexp_matches": {sigs: [][]types.Type{{types.TText, types.TText}, {types.TText, types.TText, types.TText}},
		typ: types.ArrayOf(types.IDText), fn: regexpMatchRows},
}

// BindSetFunc binds a call of the set-returning function name.
func BindSetFunc(name string, args []Expr) (*SetFunc, error) {
	def, ok := setFuncs[name]
	if !ok {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	for _, sig := range def.sigs {
		if len(sig) != len(args) {
			continue
		}
		coerced := make([]Expr, len(args))
		fits := true
		for i, a := range args {
			c, err := coerce(a, sig[i])
			if err != nil {
				fits = false
				break
			}
			coerced[i] = c
		}
		if fits {
			return &SetFunc{Name: name, Args: coerced, Type: def.typ, Fn: strictSet(def.fn)}, nil
		}
	}
	return nil, functionError(name, exprTypes(args), resolveNone)
}

func strictSet(fn func([]types.Datum) ([]types.Datum, error)) func([]types.Datum) ([]types.Datum, error) {
	return func(a []types.Datum) ([]types.Datum, error) {
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
	var out []types.Datum
	for _, m := range findAll(re, s, 0) {
		out = append(out, types.FormatArray(groups(s, m), types.TText))
		if !g {
			break
		}
	}
	return out, nil
}
