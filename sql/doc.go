package sql

// This file documents the design of the front end; the package comment
// (with the marker conventions) is in stmt.go.
//
// # Pipeline
//
// Parse(query) runs, for the whole query string:
//
//  1. Lex (lexer.go, escape.go): a Postgres lexer with
//     standard_conforming_strings on. Tokens carry byte offsets into the
//     query; identifiers are folded (unquoted) or kept (quoted); string
//     values are decoded (E'..' escapes, '' quotes, $tag$ bodies, 'a'\n'b'
//     continuation). Comments are dropped.
//  2. Split (split.go) at ';' tokens; empty statements are dropped.
//  3. Dispatch on the first words (parser.go). The front end parses itself
//     CREATE TABLE / MATERIALIZED VIEW (ddl_create.go), DROP (ddl_drop.go),
//     SHOW / SET / RESET (set_show.go), transactions and FLUSH
//     (transaction.go), EXPLAIN (explain.go), COPY (copy.go), and the
//     stream operator commands ALTER ... PAUSE|RESUME|SET, CANCEL JOBS,
//     WAIT (stream_ops.go, node types in stmt_ext.go), using a token
//     cursor (cursor.go).
//  4. Everything else is rewritten (rewrite*.go, tablefunc.go), rendered as
//     TiDB SQL (render.go) and parsed by the TiDB parser (tidb.go, dml.go).
//     Expressions inside front-end statements (DEFAULT, table function
//     arguments) go the same way, as SELECT e1, e2, ...
//
// # Rewrite passes, in order
//
//	rewriteNamedArgs   f(a => x, b := y) -> f(__sdb_named_arg('a', x), __sdb_named_arg('b', y))
//	checkTokens        reject __sdb_ identifiers, operators TiDB reads differently
//	                   (# comment, ^ xor, ? placeholder, @ variable, :=), adjacent strings;
//	                   the JSON operators (#>, ?, @>, ...) pass, for rewriteJSONOps
//	rewriteFirstLast   first_value(x ORDER BY k) -> (array_agg(x ORDER BY k))[1]; last_value
//	                   the same with each key reversed (RisingWave's aggregates)
//	rewriteAggOrder    string_agg|array_agg(DISTINCT x .. ORDER BY k DESC NULLS FIRST) ->
//	                   array_agg(x, .., __sdb_agg_distinct(), __sdb_agg_order(k, 1, 1))
//	rewriteAggFilter   agg(x) FILTER (WHERE c) -> agg(CASE WHEN (c) THEN (x) END)
//	                   (count(*): THEN 1)
//	rewriteWindowAggs  corr(y, x) OVER w -> max(__sdb_window_agg('corr', y, x)) OVER w
//	                   (the aggregates TiDB reads as plain calls; see WindowAggFunc)
//	rewritePgSyntax    OPERATOR(pg_catalog.~) -> ~ ; drop COLLATE "default"/"C"/"POSIX";
//	                   pg_catalog.f(...) -> f(...)
//	rewriteArrays      ARRAY[a, b] -> __sdb_array_lit(a, b); ARRAY(SELECT ..) -> __sdb_array((SELECT ..));
//	                   x op ANY|SOME|ALL (arr) -> x op __sdb_any|__sdb_all(arr) (not over a subquery)
//	rewriteOperators   ~ -> regexp, !~ -> not regexp, ~* / !~* -> [not] regexp __sdb_icase(pattern),
//	                   ~~ / ~~* -> like / ilike (+ not)
//	rewriteRowOfOne    ROW(x) -> (x) (TiDB has no row of one element)
//	rewriteDistinct    a IS [NOT] DISTINCT FROM b -> a <=> (b) [is false]
//	                   (the right operand ends at a clause keyword; left(/right( are calls)
//	rewriteCasts       ::, CAST(.. AS ..), typed literals -> __sdb_cast(x, 'type')
//	rewriteOverlaps    (a, b) OVERLAPS [ROW](c, d) -> overlaps(a, b, c, d)
//	rewriteFrameOffsets / rewriteFrameExclude  frame offsets as expressions; EXCLUDE m ->
//	                   a leading PARTITION BY __sdb_frame_exclude('m') of its window
//	rewriteSubscripts  x[i] -> __sdb_subscript(x, i) (after the casts took type names' [])
//	rewriteAtTimeZone  x AT TIME ZONE z -> timezone(z, x) (PostgreSQL's own reading; the
//	                   operands are the primaries around it, chains left-associative)
//	rewritePrefixOps   |/ x, ||/ x, @ x -> __sdb_prefix_op('|/', x) (the operand extends over + - * / %)
//	rewriteJSONOps     a -> b, ->>, #>, #>>, #-, @>, <@, ?, ?|, ?& and the bitwise # & | << >>
//	                   -> __sdb_op('->', a, b)
//	                   (Postgres precedence: operands extend over :: [] + - * / %,
//	                   left-associative with || and each other)
//	rewriteSimilar     a [NOT] SIMILAR TO b [ESCAPE e] -> __sdb_[not_]similar(a, b [, e])
//	                   (operands extend over every operator but comparisons, as LIKE's);
//	                   substring(s SIMILAR p ESCAPE e) -> substring(s, p, e)
//	rewriteNullsOrder  e [ASC|DESC] NULLS FIRST|LAST -> __sdb_nulls_first|last(e) [ASC|DESC]
//	rewriteTemporalJoin  JOIN t FOR SYSTEM_TIME AS OF PROCTIME() d ON c -> JOIN t d ON
//	                   __sdb_temporal_join() AND (c) (runs first, after checkTokens)
//	rewriteFullJoin    FULL JOIN .. ON c -> LEFT JOIN .. ON __sdb_full_join() AND (c)
//	rewriteValues      VALUES (..), (..) as a query -> VALUES ROW(..), ROW(..)
//	rewriteConcat      concat(..) -> __sdb_concat(..) (TiDB reads a || b as concat too)
//	rewriteExtract     extract(field FROM x) -> __sdb_extract('field', x) (dow, epoch, ...)
//	rewriteLimit       OFFSET n [ROWS] / LIMIT ALL / FETCH FIRST|NEXT [c] ROWS ONLY, in any
//	                   order -> LIMIT c OFFSET n (no count: LIMIT 9223372036854775807,
//	                   which the binder reads as no limit)
//	(then, as the statement is parsed, with the tokens in context)
//	rewriteTableFuncs  f(args) [AS] a[(cols)] in FROM -> __sdb_tf_N AS "a" (cols may be a
//	                   column definition list, (a int, b text), kept as TableFunc.ColumnTypes)
//	rewriteDerivedColumns  (SELECT ..) [AS] s(p, q) -> LATERAL (SELECT ..) AS s(__sdb_derived, p, q);
//	                   t [AS] x(a) -> LATERAL (SELECT * FROM t) AS x(__sdb_derived, a)
//
// Each pass is linear in the statement (edits are collected and applied
// once), so a bulk INSERT with thousands of casts stays cheap.
//
// # Positions
//
// Every token the rewrite synthesizes carries the Pos/End of the user token
// it stands for. render records where each token lands in the TiDB text;
// a TiDB error ("line 1 column 15 near "...") is mapped back through that
// table to the user's token, and reported as Postgres does:
// `syntax error at or near "tok"` or `syntax error at end of input`, with
// Position the 1-based character offset in the whole query string. The
// same table maps each '?' to its $N so ParamMarkerExpr.Order is N-1 (the
// TiDB parser itself leaves Order unset), and Statement.SourceOffset maps
// an AST node's offset (OriginTextPosition) back to the user's token, for
// the binder's error positions.
//
// # Rendering
//
// Tokens are joined by one space, except around '.' and between a name and
// '(' (TiDB, like MySQL, reads "count (" as an identifier). Strings are
// written '..' with '' (NO_BACKSLASH_ESCAPES), so a decoded E'..' value
// survives. Unquoted identifiers that TiDB reserves but Postgres reads as
// names where they stand (key, rank, groups, interval, a label after AS,
// a name next to '.'; the rules and word lists are in keywords.go, after
// Postgres 15's keyword categories) and any starting with '_' or holding
// non-ASCII are quoted; the binder must compare names on CIStr.O (as
// written), since unquoted names are already folded to lower case.
//
// # Concurrency
//
// A Parser owns one TiDB parser and must not be shared between goroutines.
// Lex and Split are pure functions.
