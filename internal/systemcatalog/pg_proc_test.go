package systemcatalog

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// pgSyntaxFuncs are functions streamdb knows by name that PostgreSQL has
// as syntax, not as pg_proc rows.
var pgSyntaxFuncs = map[string]bool{
	"coalesce": true, "nullif": true, "greatest": true, "least": true, "trim": true,
	"current_timestamp": true, "current_date": true, "localtimestamp": true, "current_time": true, "localtime": true,
}

// TestPgProcCoversFunctions: every function and aggregate the expression
// package knows is in pg_proc (tests/TestPgProcCallable checks the other
// way: that every pg_proc row can be called).
func TestPgProcCoversFunctions(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range pgFuncs {
		listed[f.name] = true
	}
	names := expr.FuncNames()
	for k := expr.AggCount; k <= expr.AggArrayAgg; k++ {
		if k != expr.AggCountStar {
			names = append(names, k.String())
		}
	}
	for _, name := range names {
		if !listed[name] && !pgSyntaxFuncs[name] {
			t.Errorf("function %s is not in pg_proc", name)
		}
	}
}

// TestPgCastContexts: pg_cast says in which context each cast is allowed
// as the expression package allows it.
func TestPgCastContexts(t *testing.T) {
	for _, c := range pgCasts {
		src, _ := types.TypeByOID(uint32(mustTypeOID(c.source, "cast")))
		dst, _ := types.TypeByOID(uint32(mustTypeOID(c.target, "cast")))
		if src == dst {
			continue
		}
		got, ok := expr.CastContext(src.ID, dst.ID)
		if !ok || got != c.context {
			t.Errorf("cast %s -> %s: pg_cast says %c, streamdb %c (exists: %v)", c.source, c.target, c.context, got, ok)
		}
	}
}

// TestPgFuncArgs: the signatures read from the argument lists.
func TestPgFuncArgs(t *testing.T) {
	for _, tc := range []struct {
		oid                  int64
		in, all, modes, argn string
	}{
		{870, "[25]", "[]", "[]", "[]"},
		{3058, "[2276]", "[2276]", "[v]", "[]"},
		{3846, "[23 23 23]", "[]", "[]", "[year month day]"},
		{2289, "[1009]", "[1009 25 25]", "[i o o]", "[options_array option_name option_value]"},
	} {
		f := pgFuncsByOID[tc.oid]
		sig := f.parsed
		if got := fmt.Sprint(sig.in); got != tc.in {
			t.Errorf("%s in = %s, want %s", f.name, got, tc.in)
		}
		if got := fmt.Sprint(sig.all); got != tc.all {
			t.Errorf("%s all = %s, want %s", f.name, got, tc.all)
		}
		if got := fmt.Sprint(sig.modes); got != tc.modes {
			t.Errorf("%s modes = %s, want %s", f.name, got, tc.modes)
		}
		if got := fmt.Sprint(sig.names); got != tc.argn {
			t.Errorf("%s names = %s, want %s", f.name, got, tc.argn)
		}
	}
}

// TestPgAggregateProcs: pg_aggregate has a row for each aggregate pg_proc
// lists, and for nothing else (init checks the rest).
func TestPgAggregateProcs(t *testing.T) {
	rows := map[int64]int{}
	for _, a := range pgAggregates {
		rows[a.fn]++
	}
	for _, f := range pgFuncs {
		switch {
		case f.kind == 'a' && rows[f.oid] != 1:
			t.Errorf("aggregate %s (%d) has %d pg_aggregate rows", f.name, f.oid, rows[f.oid])
		case f.kind != 'a' && rows[f.oid] != 0:
			t.Errorf("function %s (%d) is not an aggregate but has a pg_aggregate row", f.name, f.oid)
		}
	}
}

// TestRegprocNames: regproc prints a function with overloads qualified,
// as PostgreSQL does, and reads back the names it prints unqualified.
func TestRegprocNames(t *testing.T) {
	for _, tc := range []struct {
		oid  int64
		want string
	}{
		{2100, "pg_catalog.avg"},        // avg(bigint)
		{2335, "pg_catalog.array_agg"},  // overloaded in PostgreSQL only
		{870, "pg_catalog.lower"},       // likewise
		{936, `pg_catalog."substring"`}, // a keyword
		{745, `"current_user"`},         // a keyword, not overloaded
		{3846, "make_date"},             // one of its name
		{1219, "int8inc"},               // count(*)'s transition function
		{551, ""},                       // an operator's OID, no function's
		{177, "int4pl"},                 // an operator's
		{750, "array_in"},               // a type's input function
	} {
		got, ok := funcName(tc.oid)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("funcName(%d) = %q, %v; want %q", tc.oid, got, ok, tc.want)
		}
	}
	for _, name := range []string{"int8inc", "int4pl", "array_in", "make_date"} {
		oid, err := funcOIDByName(name)
		if err != nil {
			t.Errorf("funcOIDByName(%s): %v", name, err)
			continue
		}
		if got, _ := funcName(oid); got != name {
			t.Errorf("funcName(funcOIDByName(%s)) = %s", name, got)
		}
	}
}
