package binder

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindTableFunc binds the table function the front end replaced by the
// table name __sdb_tf_N. A function returning one column names it after
// the alias when there is one, as Postgres does.
func (b *binder) bindTableFunc(tn *ast.TableName, alias string) (*rel, error) {
	i, ok := tableFuncIndex(tn.Name.O)
	if !ok || i >= len(b.st.TableFuncs) {
		return nil, pgerr.New(pgerr.Internal, "binder: unknown table function marker %q", tn.Name.O)
	}
	tf := b.st.TableFuncs[i]
	if tf.Name == "unnest" && len(tf.Args) > 1 {
		return b.bindMultiUnnest(tf, alias)
	}
	switch {
	case expr.JSONToRecordFuncs[tf.Name] && tf.ColumnTypes == nil:
		err := pgerr.New(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\"")
		return nil, b.at(err, nil, tf.Name)
	case !expr.JSONToRecordFuncs[tf.Name] && tf.ColumnTypes != nil:
		err := pgerr.New(pgerr.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
		return nil, b.at(err, nil, tf.Name)
	}
	var node planner.Node
	var err error
	lateral := false
	name := tf.Name
	if expr.IsSetFunc(name) || expr.JSONToRecordFuncs[name] || populateRecordFuncs[name] != "" {
		name = "unnest" // bound like it, as the function it names
	}
	switch name {
	case "generate_series", "unnest":
		c := &exprCtx{scope: &scope{}, clause: "functions in FROM"}
		if b.lateralScope != nil {
			c.scope = b.lateralScope
		}
		var args []expr.Expr
		if tf.Name == "unnest" {
			var un *planner.Unnest
			un, err = b.bindUnnestOver(c, tf.Args)
			if err == nil {
				node, args = un, []expr.Expr{un.Arg}
			}
		} else if populateRecordFuncs[tf.Name] != "" {
			var un *planner.Unnest
			un, err = b.bindPopulateRecord(c, tf)
			if err == nil {
				node, args = un, un.Set.Args
			}
		} else if expr.JSONToRecordFuncs[tf.Name] {
			var un *planner.Unnest
			un, err = b.bindJSONToRecord(c, tf)
			if err == nil {
				node, args = un, un.Set.Args
			}
		} else if expr.IsSetFunc(tf.Name) {
			var un *planner.Unnest
			un, err = b.bindSetFuncOver(c, tf.Name, tf.Args)
			if err == nil {
				node, args = un, un.Set.Args
			}
		} else {
			var gs *planner.GenerateSeries
			gs, err = b.bindGenerateSeriesOver(c, tf.Args)
			if err == nil {
				node, args = gs, []expr.Expr{gs.Start, gs.Stop, gs.Step}
			}
		}
		// After other FROM items it runs over their rows (a ProjectSet),
		// whether or not it reads them: the same rows as a cross join,
		// and a shape views maintain.
		lateral = b.lateralScope != nil && len(args) > 0
	case "pg_options_to_table":
		return b.bindOptionsToTable(tf.Args, alias)
	case "tumble", "hop":
		r, err := b.bindWindow(tf.Name, tf.Args, alias)
		if err != nil {
			return nil, b.at(err, nil, tf.Name)
		}
		return r, nil
	default:
		err = pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", tf.Name)
	}
	if err != nil {
		return nil, b.at(err, nil, tf.Name)
	}
	table := firstNonEmpty(alias, tf.Name)
	cols, ord, err := b.tableFuncColumns(node.Columns(), tf, table)
	if err != nil {
		return nil, err
	}
	switch n := node.(type) {
	case *planner.GenerateSeries:
		n.Cols = cols
	case *planner.Unnest:
		n.Cols = cols
	}
	if !tf.Ordinality {
		return &rel{node: node, scope: scopeOf(cols, table), lateral: lateral}, nil
	}
	withOrd := append(slices.Clone(cols), planner.Column{Name: ord, Type: types.TInt64, Table: table})
	if lateral {
		return &rel{node: node, scope: scopeOf(withOrd, table), lateral: true, ordinality: true}, nil
	}
	return aloneFuncs(withOrd, table, node), nil
}

// aloneFuncs runs set-returning functions over one row (a hidden
// constant) as a ProjectSet, showing cols: the functions' columns and,
// when there is one more, the ordinal (WITH ORDINALITY).
func aloneFuncs(cols []planner.Column, table string, fns ...planner.Node) *rel {
	one := &planner.Values{Rows: [][]expr.Expr{{expr.NewConst(int64(0), types.TInt64)}},
		Cols: []planner.Column{{Name: "?column?", Type: types.TInt64, Hidden: true}}}
	ps := planner.NewProjectSet(one, fns...)
	exprs := make([]expr.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = expr.NewColumn(1+i, c.Type, c.Name)
	}
	out := &planner.Project{Input: ps, Exprs: exprs, Cols: cols}
	return &rel{node: out, scope: scopeOf(cols, table)}
}

// bindMultiUnnest binds unnest(a, b, ...) in FROM: the arrays' elements
// side by side, a shorter array's column NULL past its end (PostgreSQL's
// ROWS FROM (unnest(a), unnest(b), ...)), one column per array.
func (b *binder) bindMultiUnnest(tf *sql.TableFunc, alias string) (*rel, error) {
	c := &exprCtx{scope: &scope{}, clause: "functions in FROM"}
	if b.lateralScope != nil {
		c.scope = b.lateralScope
	}
	fns := make([]planner.Node, len(tf.Args))
	fnCols := make([]planner.Column, len(tf.Args))
	for i := range tf.Args {
		un, err := b.bindUnnestOver(c, tf.Args[i:i+1])
		if err != nil {
			return nil, b.at(err, nil, tf.Name)
		}
		fns[i] = un
		fnCols[i] = planner.Column{Name: "unnest", Type: un.Cols[0].Type}
	}
	table := firstNonEmpty(alias, tf.Name)
	cols, ord, err := b.tableFuncColumns(fnCols, tf, table)
	if err != nil {
		return nil, err
	}
	for i, f := range fns {
		f.(*planner.Unnest).Cols = cols[i : i+1]
	}
	withOrd := cols
	if tf.Ordinality {
		withOrd = append(slices.Clone(cols), planner.Column{Name: ord, Type: types.TInt64, Table: table})
	}
	if b.lateralScope != nil {
		return &rel{node: fns[0], fns: fns, scope: scopeOf(withOrd, table), lateral: true, ordinality: tf.Ordinality}, nil
	}
	return aloneFuncs(withOrd, table, fns...), nil
}

// tableFuncColumns names a table function's columns (fnCols) as
// PostgreSQL does: a function of one column after its alias, one
// returning a record (jsonb_each) after its OUT parameters; then the
// column aliases, in order, over them and the ordinal (named ord).
func (b *binder) tableFuncColumns(fnCols []planner.Column, tf *sql.TableFunc, table string) (cols []planner.Column, ord string, err error) {
	cols = make([]planner.Column, len(fnCols))
	for i, c := range fnCols {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type, Table: table}
	}
	if len(cols) == 1 {
		cols[0].Name = table
	}
	ord = "ordinality"
	width := len(cols)
	if tf.Ordinality {
		width++
	}
	if len(tf.Columns) > width {
		err := pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", table, width, len(tf.Columns))
		return nil, "", b.at(err, nil, tf.Columns[width])
	}
	for i, name := range tf.Columns {
		if i == len(cols) {
			ord = name
			break
		}
		cols[i].Name = name
	}
	return cols, ord, nil
}

// bindOptionsToTable binds pg_options_to_table(options): the name=value
// elements of a text[] of options as (option_name, option_value) rows.
func (b *binder) bindOptionsToTable(args []ast.ExprNode, alias string) (*rel, error) {
	un, err := b.bindUnnest(args)
	if err != nil {
		return nil, err
	}
	if un.Cols[0].Type.ID != types.IDText {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function pg_options_to_table(%s[]) does not exist", un.Cols[0].Type)
	}
	opt := expr.NewColumn(0, types.TText, "option")
	name, err := expr.Func("split_part", []expr.Expr{opt, expr.NewConst("=", types.TText), expr.NewConst(int64(1), types.TInt32)})
	if err != nil {
		return nil, err
	}
	pos, err := expr.Func("strpos", []expr.Expr{opt, expr.NewConst("=", types.TText)})
	if err != nil {
		return nil, err
	}
	if pos, err = expr.Binary("+", pos, expr.NewConst(int64(1), types.TInt32)); err != nil {
		return nil, err
	}
	value, err := expr.Func("substr", []expr.Expr{opt, pos})
	if err != nil {
		return nil, err
	}
	table := firstNonEmpty(alias, "pg_options_to_table")
	cols := []planner.Column{{Name: "option_name", Type: types.TText, Table: table}, {Name: "option_value", Type: types.TText, Table: table}}
	node := &planner.Project{Input: un, Exprs: []expr.Expr{name, value}, Cols: cols}
	return &rel{node: node, scope: scopeOf(cols, table)}, nil
}

// bindUnnest binds unnest(array): one row per element.
func (b *binder) bindUnnest(args []ast.ExprNode) (*planner.Unnest, error) {
	return b.bindUnnestOver(&exprCtx{scope: &scope{}, clause: "functions in FROM"}, args)
}

// bindUnnestOver binds unnest(array) with its argument over c's scope.
func (b *binder) bindUnnestOver(c *exprCtx, args []ast.ExprNode) (*planner.Unnest, error) {
	if len(args) != 1 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function unnest with %d arguments does not exist", len(args))
	}
	bound, err := b.bindArgs(c, args)
	if err != nil {
		return nil, err
	}
	t := bound[0].Type()
	if t.ID != types.IDArray {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function unnest(%s) does not exist", t)
	}
	return &planner.Unnest{Arg: bound[0], Cols: []planner.Column{{Type: t.ElemType()}}}, nil
}

// bindSetFuncOver binds one of expr's set-returning functions
// (jsonb_array_elements, regexp_split_to_table, ...) with its arguments
// over c's scope.
func (b *binder) bindSetFuncOver(c *exprCtx, name string, args []ast.ExprNode) (*planner.Unnest, error) {
	bound, err := b.bindArgs(c, args)
	if err != nil {
		return nil, err
	}
	sf, err := expr.BindSetFunc(name, bound)
	if err != nil {
		return nil, err
	}
	cols := make([]planner.Column, len(sf.Cols))
	for i, c := range sf.Cols {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	return &planner.Unnest{Arg: sf.Args[0], Set: sf, Cols: cols}, nil
}

// bindJSONToRecord binds jsonb_to_record and its kin (expr.
// JSONToRecordFuncs) with the columns of tf's column definition list.
func (b *binder) bindJSONToRecord(c *exprCtx, tf *sql.TableFunc) (*planner.Unnest, error) {
	bound, err := b.bindArgs(c, tf.Args)
	if err != nil {
		return nil, err
	}
	cols := make([]expr.SetCol, len(tf.Columns))
	for i, name := range tf.Columns {
		t, err := parseCastType(tf.ColumnTypes[i])
		if err != nil {
			return nil, err
		}
		cols[i] = expr.SetCol{Name: name, Type: t}
	}
	if len(bound) == 1 {
		want := types.TJSONB
		if strings.HasPrefix(tf.Name, "json_") {
			want = types.TJSON
		}
		if bound[0], err = b.decideParam(bound[0], want); err != nil {
			return nil, err
		}
	}
	sf, err := expr.BindJSONToRecord(tf.Name, bound, cols)
	if err != nil {
		return nil, err
	}
	pcols := make([]planner.Column, len(cols))
	for i, c := range cols {
		pcols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	return &planner.Unnest{Arg: sf.Args[0], Set: sf, Cols: pcols}, nil
}

// bindGenerateSeries binds generate_series(start, stop[, step]) over
// integers, or timestamps with an interval step.
func (b *binder) bindGenerateSeries(args []ast.ExprNode) (*planner.GenerateSeries, error) {
	return b.bindGenerateSeriesOver(&exprCtx{scope: &scope{}, clause: "functions in FROM"}, args)
}

// bindGenerateSeriesOver binds generate_series with its arguments over
// c's scope.
func (b *binder) bindGenerateSeriesOver(c *exprCtx, args []ast.ExprNode) (*planner.GenerateSeries, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args))
	}
	bound, err := b.bindArgs(c, args)
	if err != nil {
		return nil, err
	}
	if len(bound) == 3 && bound[2].Type().ID == types.IDUnknown && (isDateTime(bound[0].Type()) || isDateTime(bound[1].Type())) {
		// generate_series(timestamp, timestamp, '1 hour'): the only
		// overload the step's literal can be is the interval one.
		if bound[2], err = expr.Cast(bound[2], types.TInterval); err != nil {
			return nil, err
		}
	}
	if len(bound) == 3 && bound[2].Type().ID == types.IDInterval {
		return b.timestampSeries(bound)
	}
	return b.integerSeries(bound)
}

// isDateTime reports whether t is a date, timestamp or timestamptz.
func isDateTime(t types.Type) bool {
	return t.ID == types.IDDate || t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ
}

func (b *binder) integerSeries(args []expr.Expr) (*planner.GenerateSeries, error) {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
		if ts[i].ID == types.IDUnknown {
			ts[i] = types.TInt32
		}
	}
	t, err := expr.CommonType(ts)
	if err != nil {
		return nil, err
	}
	if !t.IsInteger() && t.ID != types.IDNumeric {
		names := make([]string, len(ts))
		for i, a := range ts {
			names[i] = a.String()
		}
		err := pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s) does not exist", strings.Join(names, ", "))
		err.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, err
	}
	if t.ID == types.IDInt16 {
		t = types.TInt32
	}
	out := make([]expr.Expr, 3)
	out[2] = expr.NewConst(int64(1), t)
	if t.ID == types.IDNumeric {
		if out[2], err = expr.Cast(expr.NewConst(int64(1), types.TInt32), t); err != nil {
			return nil, err
		}
	}
	for i, a := range args {
		if a, err = b.decideParam(a, t); err != nil {
			return nil, err
		}
		if out[i], err = castTo(a, t); err != nil {
			return nil, err
		}
	}
	return &planner.GenerateSeries{Start: out[0], Stop: out[1], Step: out[2], Cols: []planner.Column{{Type: t}}}, nil
}

func (b *binder) timestampSeries(args []expr.Expr) (*planner.GenerateSeries, error) {
	t := types.TTimestampTZ
	if args[0].Type().ID == types.IDTimestamp || args[1].Type().ID == types.IDTimestamp {
		t = types.TTimestamp
	}
	out := make([]expr.Expr, 2)
	for i := range out {
		a, err := b.decideParam(args[i], t)
		if err != nil {
			return nil, err
		}
		if out[i], err = castTo(a, t); err != nil {
			return nil, err
		}
	}
	return &planner.GenerateSeries{Start: out[0], Stop: out[1], Step: args[2], Cols: []planner.Column{{Type: t}}, Zone: b.zone}, nil
}
