package sql

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestRewrite pins the exact text handed to TiDB: the marker forms the
// binder undoes.
func TestRewrite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A frame offset other than a plain number is wrapped for TiDB.
		{`select sum(x) over (order by t range between interval '1 hour' preceding and 2 following) from t`,
			`select sum( x ) over( order by t range between interval ( __sdb_cast( '1 hour' , 'interval' ) ) second_microsecond preceding and 2 following ) from t`},
		{`select sum(x) over (order by t rows 1 + 1 preceding) from t`,
			`select sum( x ) over( order by t rows interval ( 1 + 1 ) second_microsecond preceding ) from t`},
		// WITHIN GROUP becomes a marker argument of a plain call.
		{`select percentile_cont(0.5) within group (order by x desc), mode() within group (order by y) from t`,
			`select "percentile_cont"( 0.5 , "__sdb_agg_within"( x , 1 , 0 ) ) , "mode"( "__sdb_agg_within"( y , 0 , 0 ) ) from t`},
		{`select percentile_disc(0.5) within group (order by x) filter (where y > 0) from t`,
			`select "percentile_disc"( 0.5 , "__sdb_agg_within"( x , 0 , 0 ) , "__sdb_agg_filter"( y > 0 ) ) from t`},
		// TiDB's own aggregates with an ORDER BY, or a DISTINCT its grammar
		// lacks, become plain calls with markers.
		{`select count(x order by y), sum(distinct x), bit_xor(distinct x), bit_and(x) from t`,
			`select "count"( x , "__sdb_agg_order"( y , 0 , 0 ) ) , sum( distinct x ) , "bit_xor"( x , "__sdb_agg_distinct"( ) ) , bit_and( x ) from t`},
		// An aggregate the parser reads as a plain call, over a window,
		// goes inside one of its own (the binder undoes it); FILTER first.
		{`select corr(y, x) over w, pg_catalog.string_agg(s, ',') filter (where k > 0) over (order by k) from t`,
			`select max( "__sdb_window_agg"( 'corr' , y , x ) ) over w , max( "__sdb_window_agg"( 'string_agg' , case when( k > 0 ) then( s ) end , ',' ) ) over( order by k ) from t`},
		// Grouping sets expand into their list.
		{`select a from t group by rollup(a, (b, c)) having true`,
			`select a from t group by "__sdb_grouping_sets"( "__sdb_gset"( a , b , c ) , "__sdb_gset"( a ) , "__sdb_gset"( ) ) having true`},
		{`select 1 from t group by a, cube(b, c)`,
			`select 1 from t group by "__sdb_grouping_sets"( "__sdb_gset"( a , b , c ) , "__sdb_gset"( a , b ) , "__sdb_gset"( a , c ) , "__sdb_gset"( a ) )`},
		{`select 1 from t group by grouping sets ((a, b), rollup(c), ()), ()`,
			`select 1 from t group by "__sdb_grouping_sets"( "__sdb_gset"( a , b ) , "__sdb_gset"( c ) , "__sdb_gset"( ) , "__sdb_gset"( ) )`},
		{`select 1 from t group by a, (b) order by 1`, `select 1 from t group by a , ( b ) order by 1`},
		// Identifier folding and quoting.
		{`SELECT Foo, "Bar", "x""y" FROM T`, `select foo , "Bar" , "x""y" from t`},
		{`select key, index, mod(a, 2), _x from t`, `select "key" , "index" , "mod"( a , 2 ) , "_x" from t`},
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
		{`select a[2:3], a[:n + 1][x:], array[[1, 2], [3]], 2 * -x ^ 2 ^ y`, `select __sdb_subscript( a , __sdb_slice( 2 , 3 ) ) , __sdb_subscript( __sdb_subscript( a , __sdb_slice( __sdb_nobound( ) , n + 1 ) ) , __sdb_slice( x , __sdb_nobound( ) ) ) , __sdb_array_lit( __sdb_array_lit( 1 , 2 ) , __sdb_array_lit( 3 ) ) , 2 * power( power( - x , 2 ) , y )`},
		{`select x between symmetric a + 1 and b, y not between asymmetric 1 and 2`, `select x between __sdb_symmetric( a + 1 ) and b , y not between 1 and 2`},
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
		// AT TIME ZONE is PostgreSQL's timezone(zone, x): tighter than +,
		// looser than ::, chains from the left.
		{`select ts at time zone 'UTC', a + t.b AT TIME ZONE z from t`,
			`select timezone( 'UTC' , ts ) , a + timezone( z , t.b ) from t`},
		{`select x::timestamp at time zone 'a' at time zone 'b', (x at time zone 'a') at time zone f(z)`,
			`select timezone( 'b' , timezone( 'a' , __sdb_cast( x , 'timestamp' ) ) ) , timezone( f( z ) , ( timezone( 'a' , x ) ) )`},
		{`select x at time zone (y at time zone 'a')::text, now() at time zone interval '+05:30'`,
			`select timezone( __sdb_cast( ( timezone( 'a' , y ) ) , 'text' ) , x ) , timezone( __sdb_cast( '+05:30' , 'interval' ) , now( ) )`},
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
		// JSON operators: __sdb_op('op', left, right), by PostgreSQL's
		// precedence (the "any other operator" level, left-associative).
		{`select j -> 'a', j ->> 'b', j #> '{a,b}', j #>> '{a}', j #- '{a}'`,
			`select "__sdb_op"( '->' , j , 'a' ) , "__sdb_op"( '->>' , j , 'b' ) , "__sdb_op"( '#>' , j , '{a,b}' ) , "__sdb_op"( '#>>' , j , '{a}' ) , "__sdb_op"( '#-' , j , '{a}' )`},
		{`select j @> '{"a":1}', j <@ k, j ? 'a', j ?| array['a', 'b'], j ?& $1 from t`,
			`select "__sdb_op"( '@>' , j , '{"a":1}' ) , "__sdb_op"( '<@' , j , k ) , "__sdb_op"( '?' , j , 'a' ) , "__sdb_op"( '?|' , j , __sdb_array_lit( 'a' , 'b' ) ) , "__sdb_op"( '?&' , j , ? ) from t`},
		{`select j->'a'->>'b', j #> '{a}' #>> '{}', t.j->'a'->'b'->>0 from t`,
			`select "__sdb_op"( '->>' , "__sdb_op"( '->' , j , 'a' ) , 'b' ) , "__sdb_op"( '#>>' , "__sdb_op"( '#>' , j , '{a}' ) , '{}' ) , "__sdb_op"( '->>' , "__sdb_op"( '->' , "__sdb_op"( '->' , t.j , 'a' ) , 'b' ) , 0 ) from t`},
		{`select j -> 'a' = '1', j ->> 'a' <> k ->> 'b', j -> 'a' is null, j ->> 'a' isnull`,
			`select "__sdb_op"( '->' , j , 'a' ) = '1' , "__sdb_op"( '->>' , j , 'a' ) <> "__sdb_op"( '->>' , k , 'b' ) , "__sdb_op"( '->' , j , 'a' ) is null , "__sdb_op"( '->>' , j , 'a' ) isnull`},
		{`select j #>> '{a,b}' || 'x', a || b -> 'k', 'x' || j ->> 'a', j -> 'a' || 'b' -> 'c'`,
			`select "__sdb_op"( '#>>' , j , '{a,b}' ) || 'x' , "__sdb_op"( '->' , a || b , 'k' ) , "__sdb_op"( '->>' , 'x' || j , 'a' ) , "__sdb_op"( '->' , "__sdb_op"( '->' , j , 'a' ) || 'b' , 'c' )`},
		// A row of one element is the element (TiDB has no ROW(x)).
		{`select row(1) < row(a), row(1, 2) = row(a, b), row() from t`, `select( 1 ) < ( a ) , row( 1 , 2 ) = row( a , b ) , row( ) from t`},
		// OVERLAPS: a call of the function it stands for.
		{`select (a, b) overlaps row(c, d + 1) from t`, `select overlaps( a , b , c , d + 1 ) from t`},
		// A frame's EXCLUDE: a marker leading its window's PARTITION BY.
		{`select sum(x) over (order by x rows 1 preceding exclude group), sum(x) over (partition by p rows unbounded preceding exclude no others) from t`,
			`select sum( x ) over( partition by __sdb_frame_exclude( 'group' ) order by x rows 1 preceding ) , sum( x ) over( partition by p rows unbounded preceding ) from t`},
		// Named arguments: a marker call per argument.
		{`select f(1, a => 2, b := g(c => (3, 4)))`,
			`select f( 1 , __sdb_named_arg( 'a' , 2 ) , __sdb_named_arg( 'b' , g( __sdb_named_arg( 'c' , ( 3 , 4 ) ) ) ) )`},
		// The bitwise operators are of that level too: 4 | 1 & 2 is (4 | 1) & 2.
		{`select 4 | 1 & 2, a << 1 + 1 >> b`,
			`select "__sdb_op"( '&' , "__sdb_op"( '|' , 4 , 1 ) , 2 ) , "__sdb_op"( '>>' , "__sdb_op"( '<<' , a , 1 + 1 ) , b )`},
		// Prefix operators: the operand extends over + - * / %.
		{`select |/ 25 + 11, ||/ x, @ - 5 * 2, |/ |/ 16`,
			`select "__sdb_prefix_op"( '|/' , 25 + 11 ) , "__sdb_prefix_op"( '||/' , x ) , "__sdb_prefix_op"( '@' , - 5 * 2 ) , "__sdb_prefix_op"( '|/' , "__sdb_prefix_op"( '|/' , 16 ) )`},
		{`select j -> 1 + 2, j -> n * 2 - 1, a + 1 -> 'k', - x -> 'a', j -> -1`,
			`select "__sdb_op"( '->' , j , 1 + 2 ) , "__sdb_op"( '->' , j , n * 2 - 1 ) , "__sdb_op"( '->' , a + 1 , 'k' ) , "__sdb_op"( '->' , - x , 'a' ) , "__sdb_op"( '->' , j , - 1 )`},
		{`select x::jsonb -> 'a', j ->> 'a'::int, (j ->> 'a')::int, jsonb '{"a":1}' @> j, j['a'] -> 'b'`,
			`select "__sdb_op"( '->' , __sdb_cast( x , 'jsonb' ) , 'a' ) , "__sdb_op"( '->>' , j , __sdb_cast( 'a' , 'int' ) ) , __sdb_cast( ( "__sdb_op"( '->>' , j , 'a' ) ) , 'int' ) , "__sdb_op"( '@>' , __sdb_cast( '{"a":1}' , 'jsonb' ) , j ) , "__sdb_op"( '->' , __sdb_subscript( j , 'a' ) , 'b' )`},
		{`select 1 from t where not j ? 'a' and j @> '{"a":1}' or k <@ l`,
			`select 1 from t where not "__sdb_op"( '?' , j , 'a' ) and "__sdb_op"( '@>' , j , '{"a":1}' ) or "__sdb_op"( '<@' , k , l )`},
		{`select j ->> 'a' between 'x' and 'y', j ->> 'a' not in ('x'), j ->> 'a' like 'x%', j ->> 'a' ~ 'x'`,
			`select "__sdb_op"( '->>' , j , 'a' ) between 'x' and 'y' , "__sdb_op"( '->>' , j , 'a' ) not in( 'x' ) , "__sdb_op"( '->>' , j , 'a' ) like 'x%' , "__sdb_op"( '->>' , j , 'a' ) regexp 'x'`},
		{`select j ->> 'a' is distinct from k ->> 'b', j ->> 'a' = any(array['x'])`,
			`select "__sdb_op"( '->>' , j , 'a' ) <=> ( "__sdb_op"( '->>' , k , 'b' ) ) is false , "__sdb_op"( '->>' , j , 'a' ) = __sdb_any( __sdb_array_lit( 'x' ) )`},
		// Operands: parenthesized, calls, subqueries, CASE, parameters; nesting.
		{`select (j -> 'a') -> 'b', (j) -> 'a', f(j, 1) ->> 0, s.f(x) -> 'k', (select j from t) -> 'a', $1::jsonb ? $2`,
			`select "__sdb_op"( '->' , ( "__sdb_op"( '->' , j , 'a' ) ) , 'b' ) , "__sdb_op"( '->' , ( j ) , 'a' ) , "__sdb_op"( '->>' , f( j , 1 ) , 0 ) , "__sdb_op"( '->' , s.f( x ) , 'k' ) , "__sdb_op"( '->' , ( select j from t ) , 'a' ) , "__sdb_op"( '?' , __sdb_cast( ? , 'jsonb' ) , ? )`},
		{`select 1 + 2 # 3 # x, s ^@ 'a' and t`, `select "__sdb_op"( '#' , "__sdb_op"( '#' , 1 + 2 , 3 ) , x ) , "__sdb_op"( '^@' , s , 'a' ) and t`},
		{`select j -> (k ->> 'a'), j -> f(k -> 'b'), coalesce(j -> 'a', k #> '{b}'), length(j ->> 'a')`,
			`select "__sdb_op"( '->' , j , ( "__sdb_op"( '->>' , k , 'a' ) ) ) , "__sdb_op"( '->' , j , f( "__sdb_op"( '->' , k , 'b' ) ) ) , coalesce( "__sdb_op"( '->' , j , 'a' ) , "__sdb_op"( '#>' , k , '{b}' ) ) , length( "__sdb_op"( '->>' , j , 'a' ) )`},
		{`select case when j ? 'a' then j -> 'a' else j end -> 'x', case j ->> 'k' when 'a' then 1 end, j -> case when c then 'a' else 'b' end`,
			`select "__sdb_op"( '->' , case when "__sdb_op"( '?' , j , 'a' ) then "__sdb_op"( '->' , j , 'a' ) else j end , 'x' ) , case "__sdb_op"( '->>' , j , 'k' ) when 'a' then 1 end , "__sdb_op"( '->' , j , case when c then 'a' else 'b' end )`},
		{`select sum(x) over (partition by j -> 'a') -> 'b', extract(epoch from j ->> 'ts')`,
			`select "__sdb_op"( '->' , sum( x ) over( partition by "__sdb_op"( '->' , j , 'a' ) ) , 'b' ) , __sdb_extract( 'epoch' , "__sdb_op"( '->>' , j , 'ts' ) )`},
		// Clauses.
		{`select j->'a' x, j->'b' as y from t where j ? 'k' group by j->'a' having count(*) > 1 order by j->>'a' desc nulls first`,
			`select "__sdb_op"( '->' , j , 'a' ) x , "__sdb_op"( '->' , j , 'b' ) as y from t where "__sdb_op"( '?' , j , 'k' ) group by "__sdb_op"( '->' , j , 'a' ) having count( * ) > 1 order by __sdb_nulls_first( "__sdb_op"( '->>' , j , 'a' ) ) desc`},
		{`select * from t join u on t.j -> 'a' = u.j -> 'b', jsonb_array_elements(t.j -> 'a') e where e.value ? 'k'`,
			`select * from t join u on "__sdb_op"( '->' , t.j , 'a' ) = "__sdb_op"( '->' , u.j , 'b' ) , __sdb_tf_0 as "e" where "__sdb_op"( '?' , e.value , 'k' )`},
		{`select array_agg(j -> 'a' order by j ->> 'b'), count(*) filter (where j ? 'a') from t`,
			`select array_agg( "__sdb_op"( '->' , j , 'a' ) , "__sdb_agg_order"( "__sdb_op"( '->>' , j , 'b' ) , 0 , 0 ) ) , count( case when( "__sdb_op"( '?' , j , 'a' ) ) then( 1 ) end ) from t`},
		{`update t set x = j -> 'a' where j ? 'b'`, `update t set x = "__sdb_op"( '->' , j , 'a' ) where "__sdb_op"( '?' , j , 'b' )`},
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
		{`select 3 |/ 16`, "0A000", `operator is not supported: |/`, 10},
		{`select |/`, "42601", `syntax error at end of input`, 10},
		{`select # 2`, "42601", `syntax error at or near "#"`, 8},
		{`select 2 ^`, "42601", `syntax error at or near "^"`, 10},
		{`select ? b`, "42601", `syntax error at or near "?"`, 8},
		{`select a ?? b`, "42601", `syntax error at or near "??"`, 10},
		// JSON operators have no prefix forms, and need a right operand.
		{`select -> 'a'`, "42601", `syntax error at or near "->"`, 8},
		{`select 1 from t where ?| array['a']`, "42601", `syntax error at or near "?|"`, 23},
		{`select f(#>> '{a}')`, "42601", `syntax error at or near "#>>"`, 10},
		{`select not @> j`, "42601", `syntax error at or near "@>"`, 12},
		{`select j -> -> 'a'`, "42601", `syntax error at or near "->"`, 13},
		{`select j <@`, "42601", `syntax error at end of input`, 12},
		{`select j #- from t`, "42601", `syntax error at or near "from"`, 13},
		{`select f(j ?&)`, "42601", `syntax error at or near ")"`, 14},
		{`select j ? any(array['a'])`, "0A000", `operator ? with ANY (...) is not supported`, 12},
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

// TestJSONOpsParse: the JSON operator marker is a call the TiDB parser
// reads, wherever expressions stand, and maps back to the operator.
func TestJSONOpsParse(t *testing.T) {
	q := `select 1, j -> 'a' ->> 'b' from t`
	st := parseOne(t, q)
	call, ok := st.Node.(*SelectStmt).AST.(*ast.SelectStmt).Fields.Fields[1].Expr.(*ast.FuncCallExpr)
	if !ok || call.FnName.O != JSONOpFunc || len(call.Args) != 3 {
		t.Fatalf("field 1: %#v", st.Node.(*SelectStmt).AST.(*ast.SelectStmt).Fields.Fields[1].Expr)
	}
	inner, ok := call.Args[1].(*ast.FuncCallExpr)
	if !ok || inner.FnName.O != JSONOpFunc {
		t.Errorf("left operand %#v", call.Args[1])
	}
	if pos, ok := st.SourceOffset(call.OriginTextPosition()); !ok || q[pos:pos+3] != "->>" {
		t.Errorf("SourceOffset %d %v", pos, ok)
	}
	for _, q := range []string{
		`select j -> 'a' as x, j ?| array['a'] from t where j @> '{"a":1}' and not j ? 'b' group by 1 order by j #>> '{a}'`,
		`select * from t join u on t.j #> '{a}' = u.j -> 'b', jsonb_each(t.j -> 'c') e`,
		`create materialized view v as select j ->> 'a' as a, count(*) from t where j <@ $1 group by j ->> 'a'`,
		`create table t (a jsonb default '{}'::jsonb #- '{x}', b int)`,
		`insert into t values ('{}'::jsonb -> 'a') returning j ?& array['a']`,
		`update t set x = j -> 'a' where (j -> 'b') ? 'c'`,
	} {
		if _, err := NewParser().Parse(q); err != nil {
			t.Errorf("Parse(%q): %v", q, err)
		}
	}
}
