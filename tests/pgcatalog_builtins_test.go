package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pg_proc and pg_operator list the functions and operators a query can
// use; these tests hold them to it by calling every one with arguments of
// its declared types and checking the type of the result, so that the
// catalog cannot claim what streamdb does not do.

// pseudoArgs are the types a test passes for a polymorphic parameter (and
// expects back for a polymorphic result), and for the system types
// streamdb reads as others.
var pseudoArgs = map[string]string{
	`"any"`: "integer", "anyelement": "integer", "anynonarray": "integer", "anycompatible": "integer",
	"anyarray": "integer[]", "anycompatiblearray": "integer[]",
	"name": "text", "name[]": "text[]", "pg_node_tree": "text",
}

// catalogTypeNames maps each type OID pg_type lists to the name a cast
// in a test query uses.
func catalogTypeNames(t *testing.T, conn *pgx.Conn) map[uint32]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT oid, pg_catalog.format_type(oid, NULL) FROM pg_catalog.pg_type")
	if err != nil {
		t.Fatal(err)
	}
	names := map[uint32]string{}
	for rows.Next() {
		var oid uint32
		var name string
		if err := rows.Scan(&oid, &name); err != nil {
			t.Fatal(err)
		}
		if p, ok := pseudoArgs[name]; ok {
			name = p
		}
		names[oid] = name
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// oidList reads an oidvector or oid[] in its text form.
func oidList(t *testing.T, s string) []uint32 {
	t.Helper()
	s = strings.Trim(s, "{}")
	if s == "" {
		return nil
	}
	var out []uint32
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			t.Fatalf("oid list %q: %v", s, err)
		}
		out = append(out, uint32(n))
	}
	return out
}

// resultTypes runs query and returns the format_type names of its result
// columns.
func resultTypes(conn *pgx.Conn, names map[uint32]string, query string) ([]string, error) {
	rows, err := conn.Query(context.Background(), query)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, f := range rows.FieldDescriptions() {
		got = append(got, names[f.DataTypeOID])
	}
	for rows.Next() {
	}
	return got, rows.Err()
}

// pgProcRow is what TestPgProcCallable reads of a pg_proc row.
type pgProcRow struct {
	oid                 uint32
	name, kind          string
	retset              bool
	ret, variadic       uint32
	args, all, modes    string
	directArgs          int // an ordered-set aggregate's direct arguments; -1 for other functions
	argNames, wantTypes []string
	variadicElem        string // the variadic element type's name
}

// anyOID is the pseudo-type "any", of concat's VARIADIC "any".
const anyOID = 2276

func readPgProc(t *testing.T, conn *pgx.Conn, names map[uint32]string) []pgProcRow {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT oid, proname, prokind, proretset, prorettype, provariadic,
		proargtypes::text, coalesce(proallargtypes::text, ''), coalesce(proargmodes::text, ''),
		coalesce((SELECT aggnumdirectargs FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid = p.oid AND a.aggkind = 'o'), -1)
		FROM pg_catalog.pg_proc p ORDER BY oid`)
	if err != nil {
		t.Fatal(err)
	}
	var out []pgProcRow
	for rows.Next() {
		var p pgProcRow
		if err := rows.Scan(&p.oid, &p.name, &p.kind, &p.retset, &p.ret, &p.variadic, &p.args, &p.all, &p.modes, &p.directArgs); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		p := &out[i]
		for _, a := range oidList(t, p.args) {
			p.argNames = append(p.argNames, names[a])
		}
		p.variadicElem = names[p.variadic]
		p.wantTypes = []string{names[p.ret]}
		if names[p.ret] == "record" { // the OUT arguments are the columns
			p.wantTypes = nil
			all, modes := oidList(t, p.all), strings.Split(strings.Trim(p.modes, "{}"), ",")
			for j, a := range all {
				if modes[j] == "o" {
					p.wantTypes = append(p.wantTypes, names[a])
				}
			}
		}
	}
	return out
}

// callQuery is a query calling p with NULLs of its argument types.
func (p pgProcRow) callQuery() string {
	args := make([]string, len(p.argNames))
	for i, a := range p.argNames {
		args[i] = "NULL::" + a
	}
	switch {
	case p.variadic == anyOID && (p.name == "jsonb_build_object" || p.name == "json_build_object"):
		args = []string{"'k'::text", "NULL::integer"} // a key must not be NULL
	case p.name == "jsonb_object_agg" || p.name == "json_object_agg":
		args = []string{"'k'::text", "NULL::integer"} // a key must not be NULL
	case p.name == "array_fill":
		args[1] = "ARRAY[1]" // the dimensions must not be NULL, in PostgreSQL too
		if len(args) == 3 {
			args[2] = "ARRAY[1]"
		}
	case p.variadic == anyOID:
		// The fixed arguments, then two values of different types.
		args = append(args[:len(args)-1], "NULL::integer", "NULL::text")
	case p.variadic != 0:
		// The fixed arguments, then two elements of the variadic array.
		args = args[:len(args)-1]
		elem := p.variadicElem
		args = append(args, "NULL::"+elem, "NULL::"+elem)
	case p.kind == "a" && len(args) == 0:
		args = []string{"*"}
	}
	call := fmt.Sprintf("%s(%s)", p.name, strings.Join(args, ", "))
	if p.directArgs >= 0 {
		// An ordered-set aggregate: the rest are WITHIN GROUP's.
		call = fmt.Sprintf("%s(%s) WITHIN GROUP (ORDER BY %s)", p.name, strings.Join(args[:p.directArgs], ", "),
			strings.Join(args[p.directArgs:], ", "))
	}
	switch {
	case p.name == "extract": // extract(field FROM source), in PostgreSQL too
		call = fmt.Sprintf("extract(year FROM %s)", args[1])
	case p.name == "position": // position(substring IN string)
		call = fmt.Sprintf("position(%s IN %s)", args[1], args[0])
	}
	switch {
	case p.retset:
		return "SELECT * FROM " + call
	case p.kind == "a":
		return "SELECT " + call + " FROM (SELECT 1 AS one) AS s"
	}
	return "SELECT " + call
}

// TestPgProcCallable calls every function and aggregate pg_proc lists.
func TestPgProcCallable(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	names := catalogTypeNames(t, conn)
	procs := readPgProc(t, conn, names)
	if len(procs) < 200 {
		t.Fatalf("pg_proc has %d rows", len(procs))
	}
	for _, p := range procs {
		q := p.callQuery()
		got, err := resultTypes(conn, names, q)
		switch {
		case err != nil:
			t.Errorf("pg_proc %d %s(%s): %s: %v", p.oid, p.name, strings.Join(p.argNames, ", "), q, err)
		case fmt.Sprint(got) != fmt.Sprint(p.wantTypes):
			t.Errorf("pg_proc %d %s(%s): %s returns %v, pg_proc says %v", p.oid, p.name, strings.Join(p.argNames, ", "), q, got, p.wantTypes)
		}
	}
}

// TestPgOperatorCallable applies every operator pg_operator lists.
func TestPgOperatorCallable(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	names := catalogTypeNames(t, conn)
	rows, err := conn.Query(context.Background(), `SELECT oid, oprname, oprkind, oprleft, oprright, oprresult FROM pg_catalog.pg_operator ORDER BY oid`)
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		oid                uint32
		name, kind         string
		left, right, resul uint32
	}
	var ops []op
	for rows.Next() {
		var o op
		if err := rows.Scan(&o.oid, &o.name, &o.kind, &o.left, &o.right, &o.resul); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ops) < 200 {
		t.Fatalf("pg_operator has %d rows", len(ops))
	}
	for _, o := range ops {
		q := fmt.Sprintf("SELECT NULL::%s %s NULL::%s", names[o.left], o.name, names[o.right])
		if o.kind == "l" {
			q = fmt.Sprintf("SELECT %s NULL::%s", o.name, names[o.right])
		}
		got, err := resultTypes(conn, names, q)
		switch {
		case err != nil:
			t.Errorf("pg_operator %d: %s: %v", o.oid, q, err)
		case len(got) != 1 || got[0] != names[o.resul]:
			t.Errorf("pg_operator %d: %s returns %v, pg_operator says %s", o.oid, q, got, names[o.resul])
		}
	}
}

// binaryCoercible reports whether values of types a and b are stored
// alike, as a cast function's argument and result may differ from the
// cast's types: integer, oid and the reg* types; text and varchar.
func binaryCoercible(a, b string) bool {
	class := func(s string) string {
		switch {
		case s == "integer" || s == "oid" || strings.HasPrefix(s, "reg"):
			return "oid"
		case s == "character varying" || s == "character":
			return "text" // as PostgreSQL's pg_cast: text -> character is binary
		case s == "cidr":
			return "inet"
		}
		return s
	}
	return class(a) == class(b)
}

// TestPgCastFunctions: every cast pg_cast does by function names a
// function of pg_proc from its source type to its target type (or types
// stored alike), and every cast works explicitly.
func TestPgCastFunctions(t *testing.T) {
	db := openMem(t)
	conn := pgxConnect(t, startServer(t, db), pgx.QueryExecModeCacheStatement)
	names := catalogTypeNames(t, conn)
	rows, err := conn.Query(context.Background(), `SELECT c.castsource, c.casttarget, c.castmethod,
		coalesce(p.prorettype, 0), coalesce(p.proargtypes::text, '')
		FROM pg_catalog.pg_cast c LEFT JOIN pg_catalog.pg_proc p ON p.oid = c.castfunc`)
	if err != nil {
		t.Fatal(err)
	}
	type cast struct {
		src, dst, ret uint32
		method, args  string
	}
	var casts []cast
	for rows.Next() {
		var c cast
		if err := rows.Scan(&c.src, &c.dst, &c.method, &c.ret, &c.args); err != nil {
			t.Fatal(err)
		}
		casts = append(casts, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(casts) < 50 {
		t.Fatalf("pg_cast has %d rows", len(casts))
	}
	for _, c := range casts {
		what := names[c.src] + " -> " + names[c.dst]
		switch {
		case c.method == "f" && c.ret == 0:
			t.Errorf("cast %s: its function is not in pg_proc", what)
		case c.method == "f" && (!binaryCoercible(names[c.ret], names[c.dst]) || !binaryCoercible(names[c.src], names[oidList(t, c.args)[0]])):
			t.Errorf("cast %s: its function is from %s to %s", what, c.args, names[c.ret])
		}
		q := fmt.Sprintf("SELECT CAST(NULL::%s AS %s)", names[c.src], names[c.dst])
		if got, err := resultTypes(conn, names, q); err != nil || len(got) != 1 || got[0] != names[c.dst] {
			t.Errorf("cast %s: %s: %v, %v", what, q, got, err)
		}
	}
}
