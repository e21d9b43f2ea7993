package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// Named arguments, f(name => value) or f(name := value), for the
// functions whose parameters PostgreSQL names (pg_proc.proargnames): the
// arguments are put in parameter order, positional ones first, and a
// parameter not given takes its default. A function without named
// parameters, an unknown name, a name given twice or a positional
// argument after a named one are PostgreSQL's errors.

// namedParam is a parameter of a function that takes named arguments:
// its default (nil: none), or omit when a trailing parameter not given
// is left out (an overload without it: make_timestamptz's timezone).
type namedParam struct {
	name string
	def  expr.Expr
	omit bool
}

func params(names ...string) []namedParam {
	out := make([]namedParam, len(names))
	for i, n := range names {
		out[i] = namedParam{name: n}
	}
	return out
}

func withDefault(ps []namedParam, name string, def expr.Expr) []namedParam {
	return append(ps, namedParam{name: name, def: def})
}

func int4Const(v int64) expr.Expr { return expr.NewConst(v, types.TInt32) }

// namedParams are the functions streamdb has whose parameters
// PostgreSQL 15 names, with their names and defaults.
var namedParams = func() map[string][]namedParam {
	zero := int4Const(0)
	interval := []namedParam{}
	for _, n := range []string{"years", "months", "weeks", "days", "hours", "mins"} {
		interval = withDefault(interval, n, zero)
	}
	interval = withDefault(interval, "secs", expr.NewConst(float64(0), types.TFloat64))
	jsonbIn := params("jsonb_in", "path", "replacement")
	return map[string][]namedParam{
		"make_interval":            interval,
		"make_date":                params("year", "month", "day"),
		"make_time":                params("hour", "min", "sec"),
		"make_timestamp":           params("year", "month", "mday", "hour", "min", "sec"),
		"make_timestamptz":         append(params("year", "month", "mday", "hour", "min", "sec"), namedParam{name: "timezone", omit: true}),
		"jsonb_set":                withDefault(jsonbIn, "create_if_missing", expr.NewConst(true, types.TBool)),
		"jsonb_insert":             withDefault(params("jsonb_in", "path", "replacement"), "insert_after", expr.NewConst(false, types.TBool)),
		"jsonb_array_element":      params("from_json", "element_index"),
		"jsonb_array_element_text": params("from_json", "element_index"),
		"jsonb_object_field":       params("from_json", "field_name"),
		"jsonb_object_field_text":  params("from_json", "field_name"),
		"json_array_element":       params("from_json", "element_index"),
		"json_array_element_text":  params("from_json", "element_index"),
		"json_object_field":        params("from_json", "field_name"),
		"json_object_field_text":   params("from_json", "field_name"),
		"parse_ident":              withDefault(params("str"), "strict", expr.NewConst(true, types.TBool)),
	}
}()

// namedArg returns the name and value of a NamedArgFunc marker call.
func namedArg(n ast.ExprNode) (string, ast.ExprNode, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != sql.NamedArgFunc || len(f.Args) != 2 {
		return "", nil, false
	}
	v, ok := f.Args[0].(ast.ValueExpr)
	if !ok {
		return "", nil, false
	}
	name, _ := v.GetValue().(string)
	return name, f.Args[1], true
}

func hasNamedArgs(args []ast.ExprNode) bool {
	for _, a := range args {
		if _, _, ok := namedArg(a); ok {
			return true
		}
	}
	return false
}

// bindNamedArgs binds the arguments of a call of name with named ones.
func (b *binder) bindNamedArgs(c *exprCtx, name string, n *ast.FuncCallExpr) ([]expr.Expr, error) {
	ps := namedParams[name]
	slots := make([]expr.Expr, len(ps))
	var written []string // the call's argument types, for the error
	seenNamed := false
	for i, a := range n.Args {
		pname, val, named := namedArg(a)
		if !named {
			if seenNamed {
				return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "positional argument cannot follow named argument"), a)
			}
			val = a
		}
		seenNamed = seenNamed || named
		e, err := b.bindExpr(c, val)
		if err != nil {
			return nil, err
		}
		if named {
			written = append(written, pname+" => "+e.Type().String())
		} else {
			written = append(written, e.Type().String())
		}
		at := i
		if named {
			at = -1
			for k, p := range ps {
				if p.name == pname {
					at = k
				}
			}
		}
		switch {
		case at < 0 || at >= len(ps):
			slots = nil
		case slots[at] != nil:
			return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "argument name %q used more than once", pname), a)
		}
		if slots == nil {
			break
		}
		slots[at] = e
	}
	if slots != nil {
		if args, ok := fillDefaults(ps, slots); ok {
			return args, nil
		}
	}
	err := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(written, ", "))
	err.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
	return nil, b.at(err, n, n.FnName.O)
}

// fillDefaults completes the arguments in slots with the parameters'
// defaults; ok is false when a parameter without one is missing.
func fillDefaults(ps []namedParam, slots []expr.Expr) ([]expr.Expr, bool) {
	end := len(slots)
	for end > 0 && slots[end-1] == nil && ps[end-1].omit {
		end--
	}
	args := slots[:end]
	for i, a := range args {
		if a == nil {
			if ps[i].def == nil {
				return nil, false
			}
			args[i] = ps[i].def
		}
	}
	return args, true
}
