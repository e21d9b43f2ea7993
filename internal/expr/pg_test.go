package expr

import (
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// Cases for the operators and functions of the system catalogs' types
// (oid, arrays) and the regular expression operators, checked against
// Postgres 15 like the others.

// typedNode is a literal of a type typeNamed does not know.
type typedNode struct {
	v    string
	t    types.Type
	text string
}

func arr(v string, elem types.ID) node {
	t := types.ArrayOf(elem)
	return typedNode{v, t, "(" + quote(v) + "::" + t.String() + ")"}
}

func oid(v string) node {
	return typedNode{v, types.Type{ID: types.IDOid}, "(" + quote(v) + "::oid)"}
}

func (n typedNode) build() (Expr, error) {
	v, err := types.Parse(n.v, n.t)
	if err != nil {
		return nil, err
	}
	return NewConst(v, n.t), nil
}

type anyNode struct {
	op  string
	x   node
	arr node
	all bool
}

func (a anyNode) build() (Expr, error) {
	x, err := a.x.build()
	if err != nil {
		return nil, err
	}
	arr, err := a.arr.build()
	if err != nil {
		return nil, err
	}
	return AnyAll(a.op, x, arr, a.all)
}

func (a anyNode) sql() string {
	q := "ANY"
	if a.all {
		q = "ALL"
	}
	return a.x.sql() + " " + a.op + " " + q + " (" + a.arr.sql() + ")"
}

type subscriptNode struct{ arr, idx node }

func (s subscriptNode) build() (Expr, error) {
	a, err := s.arr.build()
	if err != nil {
		return nil, err
	}
	i, err := s.idx.build()
	if err != nil {
		return nil, err
	}
	return Subscript(a, []SubscriptArg{{Lo: i}})
}

func (s subscriptNode) sql() string { return "(" + s.arr.sql() + ")[" + s.idx.sql() + "]" }

func (n typedNode) sql() string { return n.text }

var pgCases = []exprCase{
	{bin(str("abc"), "~", str("b")), "t"},
	{bin(str("abc"), "~", str("^b")), "f"},
	{bin(str("ABC"), "~*", str("b")), "t"},
	{bin(str("abc"), "!~", str("b")), "f"},
	{bin(str("ABC"), "!~*", str("x")), "t"},
	{bin(str("x"), "~", str("(")), "ERROR 2201B invalid regular expression: parentheses () not balanced"},
	{bin(null(), "~", str("x")), "NULL"},
	{bin(oid("16384"), "=", i4(16384)), "t"},
	{bin(oid("16384"), "=", str("16384")), "t"},
	{bin(oid("4294967295"), "=", i4(-1)), "t"},
	{bin(oid("1"), "+", i4(1)), "ERROR 42883 operator does not exist: oid + integer"},
	{cast_(oid("4294967295"), "int4"), "-1"},
	{cast_(oid("4294967295"), "int8"), "4294967295"},
	{bin(arr("{1,2}", types.IDInt32), "||", i4(3)), "{1,2,3}"},
	{bin(i4(0), "||", arr("{1,2}", types.IDInt32)), "{0,1,2}"},
	{bin(arr("{a}", types.IDText), "||", arr("{b,NULL}", types.IDText)), "{a,b,NULL}"},
	{bin(arr("{a}", types.IDText), "||", str("{c}")), "{a,c}"},
	{bin(arr("{1,2}", types.IDInt32), "=", str("{1,2}")), "t"},
	{bin(arr("{0}", types.IDOid), "=", str("{0}")), "t"},
	{subscriptNode{arr("{10,20,30}", types.IDInt32), i4(2)}, "20"},
	{subscriptNode{arr("{10,20,30}", types.IDInt32), i4(4)}, "NULL"},
	{subscriptNode{i4(1), i4(1)}, "ERROR 42804 cannot subscript type integer because it does not support subscripting"},
	{anyNode{"=", i4(2), arr("{1,2,3}", types.IDInt32), false}, "t"},
	{anyNode{"=", i4(5), arr("{1,2}", types.IDInt32), false}, "f"},
	{anyNode{"=", i4(1), arr("{NULL,2}", types.IDInt32), false}, "NULL"},
	{anyNode{"=", i4(2), arr("{NULL,2}", types.IDInt32), false}, "t"},
	{anyNode{"<>", i4(1), arr("{2,3}", types.IDInt32), true}, "t"},
	{anyNode{"<>", i4(1), arr("{}", types.IDInt32), true}, "t"},
	{anyNode{"=", str("d"), arr("{a,d}", types.IDText), false}, "t"},
	{anyNode{"=", oid("7"), str("{0}"), false}, "f"},
	{fn("array_to_string", arr("{x,NULL,z}", types.IDText), str(",")), "x,z"},
	{fn("array_to_string", arr("{x,NULL,z}", types.IDText), str(","), str("*")), "x,*,z"},
	{fn("array_upper", arr("{1,2,3}", types.IDInt32), i4(1)), "3"},
	{fn("array_length", arr("{}", types.IDInt32), i4(1)), "NULL"},
	{fn("cardinality", arr("{1,2}", types.IDInt32)), "2"},
	{fn("string_to_array", str("a,b,c"), str(",")), "{a,b,c}"},
	{fn("quote_ident", str("T")), `"T"`},
	{fn("quote_ident", str("select")), `"select"`},
	{fn("quote_ident", str("t_1")), "t_1"},
	{fn("format_type", i4(1043), i4(24)), "character varying(20)"},
	{fn("format_type", i4(1700), i4(655366)), "numeric(10,2)"},
	{fn("format_type", i4(1009), null()), "text[]"},
	{fn("format_type", i4(99999), null()), "???"},
	{fn("pg_size_pretty", lit("10239", "int8")), "10239 bytes"},
	{fn("pg_size_pretty", lit("12345678", "int8")), "12 MB"},
	{fn("pg_encoding_to_char", i4(6)), "UTF8"},
	{fn("obj_description", oid("1259"), str("pg_class")), "NULL"},
}

func TestPGCatalogFunctions(t *testing.T) { runCases(t, pgCases) }
