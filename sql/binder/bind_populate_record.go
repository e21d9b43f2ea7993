package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// populateRecordFuncs are json[b]_populate_record[set](base, j) in FROM,
// each read as the json[b]_to_record[set](j) it names: base is NULL cast
// to a table's (or view's) row type, NULL::t, whose visible columns are
// the result's, in order, with their types (as PostgreSQL's composite
// type of a relation). A base record that is not NULL (whose fields
// would fill the keys j lacks) is 0A000.
var populateRecordFuncs = map[string]string{
	"json_populate_record": "json_to_record", "json_populate_recordset": "json_to_recordset",
	"jsonb_populate_record": "jsonb_to_record", "jsonb_populate_recordset": "jsonb_to_recordset",
}

// bindPopulateRecord binds one of populateRecordFuncs over c's scope.
func (b *binder) bindPopulateRecord(c *exprCtx, tf *sql.TableFunc) (*planner.Unnest, error) {
	if len(tf.Args) != 2 {
		return nil, b.at(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", tf.Name, len(tf.Args)), nil, tf.Name)
	}
	r, err := b.rowTypeOf(tf.Args[0], tf.Name)
	if err != nil {
		return nil, err
	}
	var cols []expr.SetCol
	for _, col := range r.Columns {
		if !col.Hidden {
			cols = append(cols, expr.SetCol{Name: col.Name, Type: col.Type})
		}
	}
	j, err := b.bindExpr(c, tf.Args[1])
	if err != nil {
		return nil, err
	}
	want := jsonArgType(tf.Name)
	if j, err = b.decideParam(j, want); err != nil {
		return nil, err
	}
	if j.Type().ID != want.ID {
		if j, err = expr.Coerce(j, want); err != nil {
			return nil, b.atNode(err, tf.Args[1])
		}
	}
	sf, err := expr.BindJSONToRecord(populateRecordFuncs[tf.Name], []expr.Expr{j}, cols)
	if err != nil {
		return nil, err
	}
	pcols := make([]planner.Column, len(cols))
	for i, c := range cols {
		pcols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	return &planner.Unnest{Arg: sf.Args[0], Set: sf, Cols: pcols}, nil
}

// rowTypeOf resolves the base argument of a populate function, NULL::t,
// to the relation t.
func (b *binder) rowTypeOf(n ast.ExprNode, fn string) (*catalog.Relation, error) {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		n = p.Expr
	}
	call, ok := n.(*ast.FuncCallExpr)
	if !ok || call.FnName.L != markerCast || len(call.Args) != 2 {
		err := pgerr.New(pgerr.FeatureNotSupported, "%s is supported with a first argument NULL::table only", fn)
		return nil, b.atNode(err, n)
	}
	tv, ok1 := call.Args[1].(ast.ValueExpr)
	v, ok2 := call.Args[0].(ast.ValueExpr)
	if !ok1 || !ok2 || v.GetValue() != nil {
		err := pgerr.New(pgerr.FeatureNotSupported, "%s is supported with a first argument NULL::table only", fn)
		return nil, b.atNode(err, n)
	}
	name, _ := tv.GetValue().(string)
	schema, rel := "", name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, rel = name[:i], name[i+1:]
	}
	r, ok := catalog.Lookup(b.cat, b.searchPath(), schema, rel)
	if !ok || r.Kind == catalog.KindIndex || r.Kind == catalog.KindSubscription || r.Kind == catalog.KindSink || r.Kind == catalog.KindSequence {
		if _, err := parseCastType(name); err == nil {
			err := pgerr.New("42804", "first argument of %s must be a row type", fn)
			return nil, b.atNode(err, n)
		}
		return nil, b.at(pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name), call, rel)
	}
	b.noteRef(r)
	return r, nil
}

// jsonArgType is the type of the JSON argument of a populate function.
func jsonArgType(fn string) types.Type {
	if strings.HasPrefix(fn, "jsonb_") {
		return types.TJSONB
	}
	return types.TJSON
}
