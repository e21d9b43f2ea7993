package sql

import "testing"

// TestRewrite pins the exact text handed to TiDB: the marker forms the
// binder undoes.
func TestRewrite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Identifier folding and quoting.
		{`SELECT Foo, "Bar", "x""y" FROM T`, `select foo , "Bar" , "x""y" from t`},
		{`select key, index, mod(a, 2), _x from t`, `select "key" , "index" , mod( a , 2 ) , "_x" from t`},
		{`select t.a, s.t.b from s.t`, `select t.a , s.t.b from s.t`},
		// Casts.
		{`select a::int`, `select __sdb_cast( a , 'int' )`},
		{`select a::int::text`, `select __sdb_cast( __sdb_cast( a , 'int' ) , 'text' )`},
		{`select a::timestamp with time zone`, `select __sdb_cast( a , 'timestamp with time zone' )`},
		{`select a::NUMERIC(10, 2), b::character varying(3), c::double precision, d::int[]`,
			`select __sdb_cast( a , 'numeric(10,2)' ) , __sdb_cast( b , 'character varying(3)' ) , __sdb_cast( c , 'double precision' ) , __sdb_cast( d , 'int[]' )`},
		{`select -1::int, (a+b)::text, f(x)::int, t.c::int, $1::bigint`,
			`select - __sdb_cast( 1 , 'int' ) , __sdb_cast( ( a + b ) , 'text' ) , __sdb_cast( f( x ) , 'int' ) , __sdb_cast( t.c , 'int' ) , __sdb_cast( ? , 'bigint' )`},
		{`select x::pg_catalog.regclass, 'a'::"MyType"`, `select __sdb_cast( x , 'regclass' ) , __sdb_cast( 'a' , 'MyType' )`},
		{`select case when a then 1 end::text`, `select __sdb_cast( case when a then 1 end , 'text' )`},
		{`select sum(x) over(partition by y)::int from t`, `select __sdb_cast( sum( x ) over( partition by y ) , 'int' ) from t`},
		{`select CAST(a AS integer), cast(b as timestamp(3) without time zone), cast(c::int as text)`,
			`select __sdb_cast( a , 'integer' ) , __sdb_cast( b , 'timestamp(3) without time zone' ) , __sdb_cast( __sdb_cast( c , 'int' ) , 'text' )`},
		// Function-style casts: a type keyword called in an expression is
		// quoted, a column's type with a modifier is not.
		{`select int4(a), text(1) || float8(b), x = numeric(y), pg_catalog.int8(z) where bool(c) and varchar(d) > ''`,
			`select "int4"( a ) , "text"( 1 ) || "float8"( b ) , x = "numeric"( y ) , "int8"( z ) where "bool"( c ) and "varchar"( d ) > ''`},
		{`create table t (a numeric(10, 2), b varchar(5), "c" numeric(3))`,
			`create table t( a numeric( 10 , 2 ) , b varchar( 5 ) , "c" numeric( 3 ) )`},
		// Typed literals.
		{`select DATE '2024-01-01', timestamptz 'x', TIMESTAMP WITH TIME ZONE 'y'`,
			`select __sdb_cast( '2024-01-01' , 'date' ) , __sdb_cast( 'x' , 'timestamptz' ) , __sdb_cast( 'y' , 'timestamp with time zone' )`},
		{`select interval '1 day', INTERVAL '2' hour`, `select __sdb_cast( '1 day' , 'interval' ) , __sdb_cast( '2 hour' , 'interval' )`},
		{`select date, t.date from t where date = '1'`, `select date , t.date from t where date = '1'`},
		// Strings.
		{`select E'a\'b', $$c'd$$, 'e''f'`, `select 'a''b' , 'c''d' , 'e''f'`},
		// Parameters.
		{`select $2, $1`, `select ? , ?`},
		// PostgreSQL's stddev and variance are plain calls (TiDB's are
		// the population forms); stddev_pop stays TiDB's aggregate.
		{`select stddev(DISTINCT x), variance(y), stddev_pop(z) from t`,
			`select "stddev"( x , "__sdb_agg_distinct"( ) ) , "variance"( y ) , stddev_pop( z ) from t`},
		// DISTINCT and ORDER BY in string_agg and array_agg, before FILTER.
		{`select array_agg(DISTINCT x), string_agg(s, ',' ORDER BY k DESC NULLS LAST, j) from t`,
			`select array_agg( x , "__sdb_agg_distinct"( ) ) , string_agg( s , ',' , "__sdb_agg_order"( k , 1 , 2 ) , "__sdb_agg_order"( j , 0 , 0 ) ) from t`},
		{`select array_agg(x order by f(x, y) asc) filter (where x > 1), array_agg(all y), count(distinct z)`,
			`select array_agg( x , "__sdb_agg_order"( f( x , y ) , 0 , 0 ) , "__sdb_agg_filter"( x > 1 ) ) , array_agg( y ) , count( distinct z )`},
		// Pattern operators.
		{`select a ~ 'x', b !~ 'y', ~1, c ~~ 'z', d !~~* 'w'`, `select a regexp 'x' , b not regexp 'y' , ~ 1 , c like 'z' , d not ilike 'w'`},
		{`select a ~* 'x' || y and b, c !~* 'q'`, `select a regexp __sdb_icase( 'x' || y ) and b , c not regexp __sdb_icase( 'q' )`},
		{`select c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default, pg_catalog.count(*)`, `select c.relname regexp '^(t)$' , count( * )`},
		{`select array[1, 2], array(select 1), x = any(a), x <> all(array[y]), x = any(select 1)`, `select __sdb_array_lit( 1 , 2 ) , __sdb_array( ( select 1 ) ) , x = __sdb_any( a ) , x <> __sdb_all( __sdb_array_lit( y ) ) , x = any( select 1 )`},
		{`select a[1], f(x)[i][j], b::int2[]`, `select __sdb_subscript( a , 1 ) , __sdb_subscript( __sdb_subscript( f( x ) , i ) , j ) , __sdb_cast( b , 'int2[]' )`},
		// IS [NOT] DISTINCT FROM.
		{`select a is distinct from b`, `select a <=> ( b ) is false`},
		{`select a is not distinct from b + 1 and c`, `select a <=> ( b + 1 ) and c`},
		{`select x where a = b is distinct from c = d, 2`, `select x where a = b <=> ( c = d ) is false , 2`},
		{`select a is distinct from b between 1 and 2 or c`, `select a <=> ( b between 1 and 2 ) is false or c`},
		// NULLS FIRST / LAST.
		{`select a from t order by a desc nulls first, f(b, c) nulls last`,
			`select a from t order by __sdb_nulls_first( a ) desc , __sdb_nulls_last( f( b , c ) )`},
		{`select rank() over(order by x nulls last) from t`, `select rank( ) over( order by __sdb_nulls_last( x ) ) from t`},
		// FULL JOIN.
		{`select * from a full outer join b on a.x = b.x or a.y = 1 where z`,
			`select * from a left join b on __sdb_full_join( ) and ( a.x = b.x or a.y = 1 ) where z`},
		{`select * from a full join (b join c on p) on q join d on r`,
			`select * from a left join ( b join c on p ) on __sdb_full_join( ) and ( q ) join d on r`},
		// Table functions.
		{`select * from generate_series(1, 3)`, `select * from __sdb_tf_0 as "generate_series"`},
		{`select x from generate_series(1, $1) AS g(x), t, tumble(t, ts, interval '1 minute') w`,
			`select x from __sdb_tf_0 as "g" , t , __sdb_tf_1 as "w"`},
		{`select * from t join pg_catalog.generate_series(1, 2) s on true`, `select * from t join __sdb_tf_0 as "s" on true`},
		{`select extract(year from ts), substring(a from 2) from t`, `select __sdb_extract( 'year' , ts ) , substring( a from 2 ) from t`},
		// extract: Postgres fields, written as words or strings.
		{`select extract(DOW from d), extract('Epoch' from ts + interval '1 day'), t.extract(x)`,
			`select __sdb_extract( 'dow' , d ) , __sdb_extract( 'epoch' , ts + __sdb_cast( '1 day' , 'interval' ) ) , t.extract( x )`},
		// LIMIT / OFFSET / FETCH.
		{`select a from t limit 2 offset 1`, `select a from t limit 2 offset 1`},
		{`select a from t limit 2`, `select a from t limit 2`},
		{`select a from t order by a offset 3`, `select a from t order by a limit 9223372036854775807 offset 3`},
		{`select a from t offset $1 rows`, `select a from t limit 9223372036854775807 offset ?`},
		{`select a from t offset 1 limit 2`, `select a from t limit 2 offset 1`},
		{`select a from t limit all`, `select a from t limit 9223372036854775807`},
		{`select a from t limit all offset 2 for update`, `select a from t limit 9223372036854775807 offset 2 for update`},
		{`select a from t fetch next row only`, `select a from t limit 1`},
		{`select a from t offset 1 row fetch first 5 rows only`, `select a from t limit 5 offset 1`},
		{`select * from (select a from t offset 1) s union select 1 offset 2`,
			`select * from( select a from t limit 9223372036854775807 offset 1 ) s union select 1 limit 9223372036854775807 offset 2`},
		{`select t.offset, 1 as limit from t`, `select t.offset , 1 as "limit" from t`},
		// IS [NOT] DISTINCT FROM a call of left/right.
		{`select a is distinct from left(b, 1), a is not distinct from right(b, 1) from t left join u on true`,
			`select a <=> ( left( b , 1 ) ) is false , a <=> ( right( b , 1 ) ) from t left join u on true`},
		{`select * from t join u on a is distinct from b left join v on true`,
			`select * from t join u on a <=> ( b ) is false left join v on true`},
		{`select(select count(*) from generate_series(1, 2)) from t`, `select( select count( * ) from __sdb_tf_0 as "generate_series" ) from t`},
	} {
		got, err := rewritten(t, tc.in)
		if err != nil {
			t.Errorf("rewrite(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("rewrite(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestRewriteErrors(t *testing.T) {
	for _, tc := range []struct {
		in, code, msg string
		pos           int
	}{
		{`select __sdb_cast(1, 'int')`, "42601", `identifier "__sdb_cast" is reserved: names starting with "__sdb_" are for internal use`, 8},
		{`select "__SDB_x" from t`, "42601", `identifier "__SDB_x" is reserved: names starting with "__sdb_" are for internal use`, 8},
		{`select 1 # 2`, "0A000", `operator is not supported: #`, 10},
		{`select 2 ^ 3`, "0A000", `operator is not supported: ^`, 10},
		{`select a ? b`, "42601", `syntax error at or near "?"`, 10},
		{`select a := 1`, "42601", `syntax error at or near ":"`, 10},
		{`select 'a' 'b'`, "42601", `syntax error at or near "'b'"`, 12},
		{`select ::int`, "42601", `syntax error at or near "::"`, 8},
		{`select * from a natural full join b`, "0A000", `NATURAL FULL JOIN is not supported`, 17},
		{`select * from a full join b using (x)`, "0A000", `FULL JOIN ... USING is not supported, use ON`, 29},
		{`select a from t limit -1`, "2201W", `LIMIT must not be negative`, 23},
		{`select a from t order by a limit 2 offset -1.5 rows`, "2201X", `OFFSET must not be negative`, 43},
		{`select a from t fetch first -3 rows only`, "2201W", `LIMIT must not be negative`, 29},
		{`select string_agg(s, ',' order by) from t`, "42601", `syntax error at or near ")"`, 34},
		{`select array_agg(distinct order by x) from t`, "42601", `syntax error at or near "order"`, 27},
	} {
		_, err := rewritten(t, tc.in)
		pe := asPgErr(t, err)
		if pe.Code != tc.code || pe.Message != tc.msg || pe.Position != tc.pos {
			t.Errorf("rewrite(%q) = %s %q @%d, want %s %q @%d", tc.in, pe.Code, pe.Message, pe.Position, tc.code, tc.msg, tc.pos)
		}
	}
}

// TestRewriteLimitErrors: malformed row-limiting clauses are syntax errors
// at the token Postgres reports.
func TestRewriteLimitErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`select a from t fetch first 2 rows`, `syntax error at end of input`},
		{`select a from t fetch first 2 only`, `syntax error at or near "only"`},
		{`select a from t fetch 2 rows only`, `syntax error at or near "fetch"`},
		{`select a from t limit 1 fetch first 2 rows only`, `syntax error at or near "fetch"`},
		{`select a from t offset 1 offset 2`, `syntax error at or near "offset"`},
	} {
		_, err := rewritten(t, tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.in, err, tc.want)
		}
	}
}
