// Package literal builds the TiDB parser's literal nodes: it is streamdb's
// value-expression driver for the parser (named for what it makes, not
// to be confused with database/sql/driver).
//
// The TiDB parser (github.com/pingcap/tidb/pkg/parser) does not build literal
// nodes itself: it calls hooks in package ast (ast.NewValueExpr,
// ast.NewParamMarkerExpr, ast.NewDecimal, ast.NewHexLiteral,
// ast.NewBitLiteral) that a "driver" package installs from its init
// function. TiDB's own driver drags in its whole type system; this one keeps
// only what the binder needs: the literal's kind and its Go value.
//
// Importing this package (package sql does) installs the hooks. The values a
// *ValueExpr holds, by Kind:
//
//	KindNull     nil
//	KindBool     bool              TRUE / FALSE
//	KindInt64    int64             an integer literal that fits int64
//	KindUint64   uint64            an integer literal above math.MaxInt64
//	KindDecimal  Decimal           a literal with a '.' and no exponent (1.5, .5, 5.),
//	                               or an integer too long for uint64; its text as written
//	KindFloat64  float64           a literal with an exponent (1e5, 2.5E-3)
//	KindString   string            a string literal, escapes already decoded
//	KindBytes    BinaryLiteral     X'ff' / B'0101' literals (raw bytes)
//
// The front end never passes user text in other shapes, so the binder can
// switch on Kind exhaustively.
//
// A *ParamMarkerExpr is a '?' placeholder; Order is the zero-based index of
// the Postgres $N placeholder it stands for (N-1). The TiDB parser does not
// set Order; package sql does after parsing.
//
// Nothing here is safe to mutate concurrently, but each parse builds fresh
// nodes, so nodes from different sessions never share state.
package literal
