package sql

import (
	"fmt"
	"strings"
	"testing"
)

func tokString(toks []Token) string {
	var parts []string
	for _, t := range toks {
		kind := map[TokenKind]string{TokIdent: "id", TokString: "str", TokNumber: "num", TokParam: "param",
			TokOp: "op", TokPunct: "p"}[t.Kind]
		switch {
		case t.Kind == TokIdent && t.Quoted:
			kind = "qid"
		case t.Kind == TokString && t.Prefix != 0:
			kind = "str" + string(t.Prefix)
		}
		parts = append(parts, fmt.Sprintf("%s:%s@%d", kind, t.Text, t.Pos))
	}
	return strings.Join(parts, " ")
}

func TestLex(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT Foo, "Bar"`, `id:select@0 id:foo@7 p:,@10 qid:Bar@12`},
		{`"a""b"`, `qid:a"b@0`},
		{`'it''s'`, `str:it's@0`},
		{`E'a\nb\'c\x41\101\u00e9'`, "strE:a\nb'cAAé@0"},
		{`e'\\'`, `strE:\@0`},
		{`'a\n'`, `str:a\n@0`},
		{"'a'\n  'b'", `str:ab@0`},
		{`$$it's$$ $tag$a$$b$tag$`, `str$:it's@0 str$:a$$b@9`},
		{`1 1.5 .5 5. 1e5 1.5E-3 1.e3`, `num:1@0 num:1.5@2 num:.5@6 num:5.@9 num:1e5@12 num:1.5E-3@16 num:1.e3@23`},
		{`$1 + $12`, `param:1@0 op:+@3 param:12@5`},
		{`a::int || b <> c != d <= e >= f`, `id:a@0 op:::@1 id:int@3 op:||@7 id:b@10 op:<>@12 id:c@15 op:!=@17 id:d@20 op:<=@22 id:e@25 op:>=@27 id:f@30`},
		{`a=-1`, `id:a@0 op:=@1 op:-@2 num:1@3`},
		{`a ~* b !~ c`, `id:a@0 op:~*@2 id:b@5 op:!~@7 id:c@10`},
		{"a -- comment\n b /* x /* nested */ y */ c", `id:a@0 id:b@14 id:c@39`},
		{`a--b`, `id:a@0`},
		{`t.a[1]; `, `id:t@0 p:.@1 id:a@2 p:[@3 num:1@4 p:]@5 p:;@6`},
		{`B'0101' X'fF' N'n'`, `strB:0101@0 strX:fF@8 strN:n@14`},
		{`Ünïcode`, `id:Ünïcode@0`},
		{`a$b`, `id:a$b@0`},
	} {
		toks, err := Lex(tc.in)
		if err != nil {
			t.Errorf("Lex(%q): %v", tc.in, err)
			continue
		}
		if got := tokString(toks); got != tc.want {
			t.Errorf("Lex(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestLexErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		msg  string
		pos  int
		code string
	}{
		{`select 'abc`, `unterminated quoted string at or near "'abc"`, 8, "42601"},
		// PostgreSQL 15: a number running into a name is an error, not a
		// number and an alias (1_000 and 0x1F are numbers from 16 on).
		{`select 1_000`, `trailing junk after numeric literal at or near "1_000"`, 8, "42601"},
		{`select 0x1F`, `trailing junk after numeric literal at or near "0x1F"`, 8, "42601"},
		{`select 1 as a, 2as b`, `trailing junk after numeric literal at or near "2as"`, 16, "42601"},
		{`select 1e`, `trailing junk after numeric literal at or near "1e"`, 8, "42601"},
		{`select 1.5e+`, `trailing junk after numeric literal at or near "1.5e+"`, 8, "42601"},
		{`select "abc`, `unterminated quoted identifier at or near ""abc"`, 8, "42601"},
		{`select ""`, `zero-length delimited identifier at or near """"`, 8, "42601"},
		{`select /* a /* b */`, `unterminated /* comment at or near "/*"`, 8, "42601"},
		{`select $a$ x`, `unterminated dollar-quoted string at or near "$a$"`, 8, "42601"},
		{`select é\`, `syntax error at or near "\\"`, 9, "42601"},
		{`select $0`, `there is no parameter $0 at or near "$0"`, 8, "42601"},
		{`select E'\xff'`, `invalid byte sequence for encoding "UTF8"`, 8, "22021"},
		{`select E'\u12'`, `invalid Unicode escape at or near "E'\u12'"`, 8, "42601"},
		{`select B'012'`, `"2" is not a valid binary digit at or near "B'012'"`, 8, "42601"},
	} {
		_, err := Lex(tc.in)
		pe := asPgErr(t, err)
		if pe.Message != tc.msg || pe.Position != tc.pos || pe.Code != tc.code {
			t.Errorf("Lex(%q) = %s %q @%d, want %s %q @%d", tc.in, pe.Code, pe.Message, pe.Position, tc.code, tc.msg, tc.pos)
		}
	}
}
