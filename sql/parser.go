package sql

import (
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	"github.com/streamdb/streamdb/internal/pgerr"

	// The TiDB parser needs a driver for its literal nodes.
	_ "github.com/streamdb/streamdb/sql/literal"
)

// sqlMode is the TiDB SQL mode the rewritten text is written for.
const sqlMode = mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes

// Parser parses Postgres query strings. It wraps one TiDB parser and is not
// safe for concurrent use: keep one per session.
type Parser struct {
	tidb *parser.Parser
}

// NewParser returns a Parser.
func NewParser() *Parser {
	p := parser.New()
	p.SetSQLMode(sqlMode)
	p.EnableWindowFunc(true)
	return &Parser{tidb: p}
}

// Parse parses every statement of query. Empty statements (";;") are
// dropped; a query with nothing but whitespace and comments yields one
// EmptyStmt. Errors are *pgerr.Error values whose Position is a 1-based
// character offset into query; the first error stops the parse, as
// Postgres parses a whole query string before running any of it.
func (p *Parser) Parse(query string) ([]*Statement, error) {
	toks, err := Lex(query)
	if err != nil {
		return nil, err
	}
	spans := splitTokens(query, toks)
	out := make([]*Statement, 0, len(spans))
	for _, sp := range spans {
		if len(sp.toks) == 0 {
			continue
		}
		st, err := p.parseSpan(query, sp)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return []*Statement{emptyStatement(query, spans)}, nil
	}
	return out, nil
}

func emptyStatement(query string, spans []Span) *Statement {
	st := &Statement{Node: &EmptyStmt{}, Offset: len(query)}
	if len(spans) > 0 {
		st.Text, st.Offset = spans[0].Text, spans[0].Offset
	}
	return st
}

// parseSpan parses the statement of one span.
func (p *Parser) parseSpan(query string, sp Span) (*Statement, error) {
	s := &stmtParser{p: p, query: query, st: &Statement{Text: sp.Text, Offset: sp.Offset}}
	s.st.NumParams = maxParam(sp.toks)
	node, err := s.parse(sp.toks)
	if err != nil {
		return nil, err
	}
	s.st.Node = node
	return s.st, nil
}

// stmtParser holds the state of parsing one statement.
type stmtParser struct {
	p     *Parser
	query string // the whole query string; token offsets index it
	st    *Statement
	last  *rendered // the text last handed to the TiDB parser
}

// parse dispatches on the statement's first words: the statements the
// front end parses itself, and everything else to the TiDB parser.
func (s *stmtParser) parse(toks []Token) (Node, error) {
	c := newCursor(s.query, toks)
	switch first := toks[0]; {
	case first.isWord("create"):
		return s.parseCreate(c)
	case first.isWord("drop"):
		return parseDrop(c)
	case first.isWord("show"):
		return parseShow(c)
	case first.isWord("set"):
		return parseSet(c)
	case first.isWord("reset"):
		return parseReset(c)
	case isTransactionWord(first):
		return parseTransaction(c)
	case first.isWord("flush"):
		return parseFlush(c)
	case first.isWord("explain"):
		return s.parseExplain(c)
	case first.isWord("alter"):
		return s.parseAlter(c)
	case first.isWord("cancel"):
		return parseCancel(c)
	case first.isWord("wait"):
		return parseWait(c)
	case first.isWord("copy"):
		return s.parseCopy(c)
	case first.isWord("declare"):
		return s.parseDeclare(c)
	case first.isWord("fetch"), first.isWord("move"):
		return parseFetch(c)
	case first.isWord("close"):
		return parseClose(c)
	case first.isWord("describe"), first.isWord("desc"):
		return parseDescribe(c)
	case first.isWord("comment"):
		return parseComment(c)
	case first.isWord("truncate"):
		return parseTruncate(c)
	case first.isWord("prepare"):
		return s.parsePrepare(c)
	case first.isWord("execute"):
		return s.parseExecute(c)
	case first.isWord("deallocate"):
		return parseDeallocate(c)
	case first.isWord("refresh"):
		return parseRefresh(c)
	}
	return s.parseDML(toks)
}

// ParseExpr parses one scalar expression written in Postgres syntax (a
// column's stored DEFAULT).
func ParseExpr(text string) (ast.ExprNode, error) {
	stmts, err := NewParser().Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	if len(stmts) == 1 {
		if sel, ok := stmts[0].Node.(*SelectStmt); ok {
			if s, ok := sel.AST.(*ast.SelectStmt); ok && s.From == nil && len(s.Fields.Fields) == 1 && s.Fields.Fields[0].Expr != nil {
				return s.Fields.Fields[0].Expr, nil
			}
		}
	}
	return nil, pgerr.New(pgerr.SyntaxError, "not one expression: %s", text)
}
