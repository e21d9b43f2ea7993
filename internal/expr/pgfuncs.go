package expr

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// Functions of Postgres's system catalogs that do not need the catalog
// itself: quoting, type names from OIDs, encodings, sizes. The ones that
// read catalog objects streamdb does not have (comments, stored
// expressions, rules, triggers, functions, statistics objects) yield
// NULL, which is what Postgres returns when the object has none.

func init() {
	register(overloads(fn1(tText, tText, quoteIdent)), "quote_ident")
	register(overloads(fn1(tText, tText, quoteLiteral)), "quote_literal")
	register(overloads(fn1(tInt4, tText, encodingToChar)), "pg_encoding_to_char")
	register(overloads(fn1(tInt8, tText, sizePretty)), "pg_size_pretty")
	register(formatType, "format_type")
	register(overloads(
		fn2(tText, types.IDOid, tText, identity),
		fn3(tText, types.IDOid, tBool, tText, identity),
	), "pg_get_expr")
	register(nullFunc(types.TText, 1, 2), "obj_description", "shobj_description", "col_description",
		"pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments",
		"pg_get_ruledef", "pg_get_triggerdef", "pg_get_statisticsobjdef_columns", "pg_get_functiondef")
	register(pgTypeof, "pg_typeof")
}

// pgTypeof builds pg_typeof(x): the regtype of x's type, whatever x's
// value (NULL too): unknown for a string literal or a bare NULL, the type
// without its modifiers (character varying for varchar(10)).
func pgTypeof(name string, args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	oid := int64(args[0].Type().OID())
	return &call{name: name, style: styleFunc, args: args, typ: types.Type{ID: types.IDRegtype}, nonStrict: true,
		fn: func([]types.Datum) (types.Datum, error) { return oid, nil }}, nil
}

// nullFunc builds a function of nmin to nmax arguments of any type that
// yields NULL of type t.
func nullFunc(t types.Type, nmin, nmax int) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		if len(args) < nmin || len(args) > nmax {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return &call{name: name, style: styleFunc, args: args, typ: t, nonStrict: true,
			fn: func([]types.Datum) (types.Datum, error) { return nil, nil }}, nil
	}
}

// quoteKeywords are the Postgres 15 keywords that are not unreserved:
// quote_ident quotes them.
var quoteKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization
		between bigint binary bit boolean both case cast char character check coalesce collate collation
		column concurrently constraint create cross current_catalog current_date current_role
		current_schema current_time current_timestamp current_user dec decimal default deferrable desc
		distinct do else end except exists extract false fetch float for foreign freeze from full grant
		greatest group grouping having ilike in initially inner inout int integer intersect interval into
		is isnull join lateral leading least left like limit localtime localtimestamp national natural
		nchar none normalize not notnull null nullif numeric offset on only or order out outer overlaps
		overlay placing position precision primary real references returning right row select
		session_user setof similar smallint some substring symmetric table tablesample then time
		timestamp to trailing treat trim true union unique user using values varchar variadic verbose
		when where window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
		xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		m[w] = true
	}
	return m
}()

// QuoteIdent quotes s as an identifier when it needs it, as quote_ident
// does.
func QuoteIdent(s string) string {
	safe := s != "" && !quoteKeywords[s]
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c == '_' || (i > 0 && c >= '0' && c <= '9')
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func quoteIdent(a []types.Datum) (types.Datum, error) { return QuoteIdent(a[0].(string)), nil }

// quoteLiteral quotes a string as a literal, as quote_literal does: a
// string with backslashes becomes an E'...' literal with them doubled.
func quoteLiteral(a []types.Datum) (types.Datum, error) {
	s := strings.ReplaceAll(a[0].(string), "'", "''")
	if strings.Contains(s, `\`) {
		return `E'` + strings.ReplaceAll(s, `\`, `\\`) + "'", nil
	}
	return "'" + s + "'", nil
}

func encodingToChar(a []types.Datum) (types.Datum, error) {
	switch a[0].(int64) {
	case 0:
		return "SQL_ASCII", nil
	case 6:
		return "UTF8", nil
	}
	return "", nil
}

// sizePretty renders a byte count as pg_size_pretty does: bytes below
// 10 kB, then kB, MB, GB, TB, PB, each rounded half away from zero.
func sizePretty(a []types.Datum) (types.Datum, error) {
	size := a[0].(int64)
	const limit = 10 * 1024
	if abs64(size) < limit {
		return fmt.Sprintf("%d bytes", size), nil
	}
	size >>= 9 // one extra bit for rounding
	for _, unit := range []string{"kB", "MB", "GB", "TB"} {
		if abs64(size) < limit*2-1 {
			return fmt.Sprintf("%d %s", halfRounded(size), unit), nil
		}
		size >>= 10
	}
	return fmt.Sprintf("%d PB", halfRounded(size)), nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func halfRounded(n int64) int64 {
	if n < 0 {
		return (n - 1) / 2
	}
	return (n + 1) / 2
}

// formatType builds format_type(type_oid, typmod): the SQL name of the
// type with its modifier; NULL typmod is none.
func formatType(name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	oid, err := coerce(args[0], types.Type{ID: types.IDOid})
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	mod, err := coerce(args[1], types.TInt32)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return &call{name: name, style: styleFunc, args: []Expr{oid, mod}, typ: types.TText, nonStrict: true,
		fn: func(a []types.Datum) (types.Datum, error) {
			if a[0] == nil {
				return nil, nil
			}
			if a[1] == nil {
				return FormatTypeName(uint32(a[0].(int64))), nil
			}
			return FormatType(uint32(a[0].(int64)), int32(a[1].(int64))), nil
		}}, nil
}

// FormatTypeName is format_type(oid, NULL), the name regtype prints:
// FormatType without a modifier, but character for bpchar (whose
// format_type(oid, -1), bpchar, differs from character, which means
// character(1)), and character[] for its array.
func FormatTypeName(oid uint32) string {
	switch oid {
	case types.TBpchar.OID():
		return "character"
	case types.ArrayOf(types.IDBpchar).OID():
		return "character[]"
	}
	return FormatType(oid, -1)
}

// FormatType is format_type(oid, typmod): "???" for an unknown type.
// The catalog's pseudo-types and system types (types.CatalogType) print
// as format_type prints them.
func FormatType(oid uint32, typmod int32) string {
	t, ok := types.TypeByOID(oid)
	if !ok {
		if ct, ok := types.CatalogTypeByOID(oid); ok {
			return ct.Display
		}
		return "???"
	}
	return WithTypmod(t, typmod).String()
}

// WithTypmod applies a Postgres atttypmod to t (varchar length, numeric
// precision and scale).
func WithTypmod(t types.Type, typmod int32) types.Type {
	if t.ID == types.IDTime && typmod >= 0 && typmod <= 6 {
		t.Precision = int(typmod) + 1
		return t
	}
	if typmod < 4 {
		return t
	}
	switch t.ID {
	case types.IDVarchar, types.IDBpchar:
		t.Width = int(typmod - 4)
	case types.IDNumeric:
		t.Precision, t.Scale = int((typmod-4)>>16&0xffff), int((typmod-4)&0xffff)
	}
	return t
}

// Typmod is t's atttypmod: -1 when it has no modifier.
func Typmod(t types.Type) int32 { return t.Typmod() }
