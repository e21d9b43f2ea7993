package expr

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// This file holds a small DSL for building expressions in tests. Each node
// also renders the equivalent Postgres SQL, which is how the expected
// strings in these tests were checked against a real Postgres 15.

type node interface {
	build() (Expr, error)
	sql() string
}

// lit is a literal: typ "" is an untyped string literal, "null" an untyped
// NULL; otherwise a value of that type (parsed, as Postgres's 'v'::typ).
type litNode struct{ v, typ string }

func lit(v, typ string) node { return litNode{v, typ} }
func null() node             { return litNode{"", "null"} }
func str(v string) node      { return litNode{v, ""} }
func i4(n int) node          { return litNode{strconv.Itoa(n), "int4"} }
func num(v string) node      { return litNode{v, "numeric"} }

func (l litNode) build() (Expr, error) {
	switch l.typ {
	case "":
		return NewConst(l.v, types.TUnknown), nil
	case "null":
		return NewConst(nil, types.TUnknown), nil
	}
	t := typeNamed(l.typ)
	v, err := types.Parse(l.v, t)
	if err != nil {
		return nil, err
	}
	return NewConst(v, t), nil
}

func (l litNode) sql() string {
	switch l.typ {
	case "":
		return quote(l.v)
	case "null":
		return "NULL"
	}
	return "(" + quote(l.v) + "::" + l.typ + ")"
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// typeNamed parses a type name with optional modifiers: numeric(5,2),
// varchar(3), int4 ...
func typeNamed(name string) types.Type {
	base, mods, _ := strings.Cut(strings.TrimSuffix(name, ")"), "(")
	id, ok := types.ByName(base)
	if !ok {
		panic("unknown type " + name)
	}
	t := types.Type{ID: id}
	if mods != "" {
		parts := strings.Split(mods, ",")
		n, _ := strconv.Atoi(parts[0])
		if id == types.IDVarchar {
			t.Width = n
		} else {
			t.Precision = n
			if len(parts) > 1 {
				t.Scale, _ = strconv.Atoi(parts[1])
			}
		}
	}
	return t
}

type binNode struct {
	op   string
	l, r node
}

func bin(l node, op string, r node) node { return binNode{op, l, r} }

func (b binNode) build() (Expr, error) {
	l, err := b.l.build()
	if err != nil {
		return nil, err
	}
	r, err := b.r.build()
	if err != nil {
		return nil, err
	}
	return Binary(b.op, l, r)
}

func (b binNode) sql() string { return "(" + b.l.sql() + " " + b.op + " " + b.r.sql() + ")" }

type unNode struct {
	op string
	e  node
}

func un(op string, e node) node { return unNode{op, e} }

func (u unNode) build() (Expr, error) {
	e, err := u.e.build()
	if err != nil {
		return nil, err
	}
	return Unary(u.op, e)
}

func (u unNode) sql() string { return "(" + u.op + " " + u.e.sql() + ")" }

type castNode struct {
	e      node
	typ    string
	assign bool
}

func cast_(e node, typ string) node { return castNode{e: e, typ: typ} }

func (c castNode) build() (Expr, error) {
	e, err := c.e.build()
	if err != nil {
		return nil, err
	}
	if c.assign {
		return AssignCast(e, typeNamed(c.typ))
	}
	return Cast(e, typeNamed(c.typ))
}

func (c castNode) sql() string { return "CAST(" + c.e.sql() + " AS " + c.typ + ")" }

type fnNode struct {
	name string
	args []node
}

func fn(name string, args ...node) node { return fnNode{name, args} }

func (f fnNode) build() (Expr, error) {
	args, err := buildAll(f.args)
	if err != nil {
		return nil, err
	}
	return Func(f.name, args)
}

func (f fnNode) sql() string {
	if f.name == "extract" {
		return "extract(" + f.args[0].(litNode).v + " from " + f.args[1].sql() + ")"
	}
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.sql()
	}
	return f.name + "(" + strings.Join(parts, ", ") + ")"
}

func buildAll(ns []node) ([]Expr, error) {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		e, err := n.build()
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// result builds and evaluates n on an empty row, rendering the value as
// psql would, "NULL", or "ERROR <sqlstate> <message>".
func result(n node) string {
	e, err := n.build()
	if err != nil {
		return errString(err)
	}
	v, err := e.Eval(nil)
	if err != nil {
		return errString(err)
	}
	if v == nil {
		return "NULL"
	}
	return types.Format(v, e.Type())
}

func errString(err error) string {
	return fmt.Sprintf("ERROR %s %s", pgerr.Code(err), err.Error())
}

// exprCase is one expression and what Postgres 15 shows for it.
type exprCase struct {
	n    node
	want string
}

func runCases(t *testing.T, cases []exprCase) {
	t.Helper()
	for _, c := range cases {
		if got := result(c.n); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.n.sql(), got, c.want)
		}
	}
}
