package literal

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

func TestLiteralKinds(t *testing.T) {
	p := parser.New()
	stmt, err := p.ParseOneStmt("select 1, 18446744073709551615, 1.5, 2e3, 'x', null, true, x'0aff', b'101', 99999999999999999999999", "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind Kind
		val  any
	}{
		{KindInt64, int64(1)}, {KindUint64, uint64(18446744073709551615)}, {KindDecimal, Decimal("1.5")},
		{KindFloat64, 2e3}, {KindString, "x"}, {KindNull, nil}, {KindBool, true},
		{KindBytes, BinaryLiteral{0x0a, 0xff}}, {KindBytes, BinaryLiteral{0x05}},
		{KindDecimal, Decimal("99999999999999999999999")},
	}
	for i, f := range stmt.(*ast.SelectStmt).Fields.Fields {
		v := f.Expr.(*ValueExpr)
		if v.Kind() != want[i].kind || !reflect.DeepEqual(v.Value(), want[i].val) {
			t.Errorf("field %d: %v %#v, want %v %#v", i, v.Kind(), v.Value(), want[i].kind, want[i].val)
		}
	}
}

func TestRestore(t *testing.T) {
	p := parser.New()
	stmt, err := p.ParseOneStmt("select 1, 'it''s', null, true, 1.25, ? from t limit ?", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := stmt.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "SELECT 1,_UTF8MB4'it''s',NULL,TRUE,1.25,? FROM `t` LIMIT ?"; got != want && got != strings.ReplaceAll(want, "_UTF8MB4", "") {
		t.Errorf("restore %s", got)
	}
}

func TestParseHelpers(t *testing.T) {
	if _, err := ParseHex("x'abc'"); err == nil {
		t.Error("odd x'' accepted")
	}
	if b, err := ParseHex("0xabc"); err != nil || !reflect.DeepEqual(b, BinaryLiteral{0x0a, 0xbc}) {
		t.Errorf("0xabc: %v %v", b, err)
	}
	if _, err := ParseBit("b'102'"); err == nil {
		t.Error("bad bit accepted")
	}
	if _, err := ParseDecimal("1.2.3"); err == nil {
		t.Error("bad decimal accepted")
	}
	pm := NewParamMarkerExpr(7)
	pm.SetOrder(2)
	if pm.Order != 2 || pm.Offset != 7 || pm.Kind() != KindNull {
		t.Errorf("param %+v", pm)
	}
}
