package sql

import (
	"reflect"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/sql/literal"
)

func parseOne(t *testing.T, q string) *Statement {
	t.Helper()
	stmts, err := NewParser().Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements", q, len(stmts))
	}
	return stmts[0]
}

func TestParseStatements(t *testing.T) {
	stmts, err := NewParser().Parse("SELECT 1;  ;\n select 2 ; -- trailing")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Fatalf("got %d statements", len(stmts))
	}
	if stmts[1].Text != "select 2" || stmts[1].Offset != 14 {
		t.Errorf("second statement %q @%d", stmts[1].Text, stmts[1].Offset)
	}
	for _, q := range []string{"", "  ", "-- c", "/* c */ ; ;"} {
		st := parseOne(t, q)
		if _, ok := st.Node.(*EmptyStmt); !ok {
			t.Errorf("Parse(%q) = %T, want EmptyStmt", q, st.Node)
		}
	}
}

func TestParseDMLKinds(t *testing.T) {
	for q, want := range map[string]any{
		"select 1":                                     &SelectStmt{},
		"with x as (select 1) select * from x":         &SelectStmt{},
		"select 1 union all select 2":                  &SelectStmt{},
		"insert into t (a, b) values ($1, $2), (3, 4)": &InsertStmt{},
		"insert into t select * from u":                &InsertStmt{},
		"update t set a = a + 1 where b = $1":          &UpdateStmt{},
		"delete from t where a is not null":            &DeleteStmt{},
	} {
		st := parseOne(t, q)
		if reflect.TypeOf(st.Node) != reflect.TypeOf(want) {
			t.Errorf("Parse(%q) = %T, want %T", q, st.Node, want)
		}
	}
	// MySQL-only syntax is a syntax error, as in Postgres.
	_, err := NewParser().Parse("replace into t values (1)")
	if pe := asPgErr(t, err); pe.Code != "42601" || pe.Position != 1 {
		t.Errorf("replace: %v", pe)
	}
	// Statements TiDB parses but the front end does not support.
	_, err = NewParser().Parse("select 1; analyze table t")
	if pe := asPgErr(t, err); pe.Code != "0A000" || pe.Position != 11 {
		t.Errorf("analyze: %v @%d", pe, pe.Position)
	}
}

// collectParams returns the Order of each placeholder in AST order.
type paramCollector struct{ orders []int }

func (c *paramCollector) Enter(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*literal.ParamMarkerExpr); ok {
		c.orders = append(c.orders, p.Order)
	}
	return n, false
}
func (c *paramCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func TestParamOrder(t *testing.T) {
	st := parseOne(t, "select $2 + $1, $2 from t where a = $3 limit $4")
	c := &paramCollector{}
	st.Node.(*SelectStmt).AST.Accept(c)
	if want := []int{1, 0, 1, 2, 3}; !reflect.DeepEqual(c.orders, want) {
		t.Errorf("orders %v, want %v", c.orders, want)
	}
	if st.NumParams != 4 {
		t.Errorf("NumParams %d", st.NumParams)
	}
}

func TestLiterals(t *testing.T) {
	st := parseOne(t, "select 1, 9223372036854775808, 1.50, 1e5, 'a''b', E'\\t', null, true, 123456789012345678901234567890")
	want := []any{int64(1), uint64(9223372036854775808), literal.Decimal("1.50"), 1e5, "a'b", "\t", nil, true,
		literal.Decimal("123456789012345678901234567890")}
	fields := st.Node.(*SelectStmt).AST.(*ast.SelectStmt).Fields.Fields
	for i, f := range fields {
		v, ok := f.Expr.(*literal.ValueExpr)
		if !ok {
			t.Fatalf("field %d is %T", i, f.Expr)
		}
		if !reflect.DeepEqual(v.Value(), want[i]) {
			t.Errorf("field %d = %#v (%v), want %#v", i, v.Value(), v.Kind(), want[i])
		}
	}
}

func TestTableFuncs(t *testing.T) {
	st := parseOne(t, "select x from generate_series(1, $1 + 1) as g(x) join tumble(bids, ts, interval '2 minutes') w on true")
	if len(st.TableFuncs) != 2 {
		t.Fatalf("TableFuncs %v", st.TableFuncs)
	}
	gs, tb := st.TableFuncs[0], st.TableFuncs[1]
	if gs.Name != "generate_series" || len(gs.Args) != 2 || !reflect.DeepEqual(gs.Columns, []string{"x"}) {
		t.Errorf("generate_series: %+v", gs)
	}
	if tb.Name != "tumble" || len(tb.Args) != 3 || tb.Columns != nil {
		t.Errorf("tumble: %+v", tb)
	}
	if col, ok := tb.Args[0].(*ast.ColumnNameExpr); !ok || col.Name.Name.O != "bids" {
		t.Errorf("tumble arg 0: %#v", tb.Args[0])
	}
	if call, ok := tb.Args[2].(*ast.FuncCallExpr); !ok || call.FnName.O != markerCast {
		t.Errorf("tumble arg 2: %#v", tb.Args[2])
	}
	c := &paramCollector{}
	gs.Args[1].Accept(c)
	if !reflect.DeepEqual(c.orders, []int{0}) || st.NumParams != 1 {
		t.Errorf("param in table function args: %v", c.orders)
	}
	sel := st.Node.(*SelectStmt).AST.(*ast.SelectStmt)
	join := sel.From.TableRefs
	left := join.Left.(*ast.TableSource)
	if left.Source.(*ast.TableName).Name.O != "__sdb_tf_0" || left.AsName.O != "g" {
		t.Errorf("left source %+v", left)
	}
}

func TestFullJoinAST(t *testing.T) {
	st := parseOne(t, "select * from a full join b on a.x = b.x")
	join := st.Node.(*SelectStmt).AST.(*ast.SelectStmt).From.TableRefs
	if join.Tp != ast.LeftJoin {
		t.Fatalf("join type %v", join.Tp)
	}
	and, ok := join.On.Expr.(*ast.BinaryOperationExpr)
	if !ok {
		t.Fatalf("on %T", join.On.Expr)
	}
	if call, ok := and.L.(*ast.FuncCallExpr); !ok || call.FnName.O != markerFullJoin {
		t.Errorf("on left %#v", and.L)
	}
}

func TestQuotedIdentCase(t *testing.T) {
	st := parseOne(t, `select "MixedCase", Folded from "T"`)
	sel := st.Node.(*SelectStmt).AST.(*ast.SelectStmt)
	got := []string{
		sel.Fields.Fields[0].Expr.(*ast.ColumnNameExpr).Name.Name.O,
		sel.Fields.Fields[1].Expr.(*ast.ColumnNameExpr).Name.Name.O,
		sel.From.TableRefs.Left.(*ast.TableSource).Source.(*ast.TableName).Name.O,
	}
	if want := []string{"MixedCase", "folded", "T"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
}
