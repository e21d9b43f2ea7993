package sql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// copySummary renders a CopyStmt compactly for comparison.
func copySummary(st *CopyStmt) string {
	var b strings.Builder
	switch {
	case st.Query != nil:
		fmt.Fprintf(&b, "(%s)", st.Query.Text)
	case st.Schema != "":
		fmt.Fprintf(&b, "%s.%s", st.Schema, st.Table)
	default:
		b.WriteString(st.Table)
	}
	if st.Columns != nil {
		fmt.Fprintf(&b, "%v", st.Columns)
	}
	if st.From {
		b.WriteString(" from ")
	} else {
		b.WriteString(" to ")
	}
	switch {
	case st.Program:
		fmt.Fprintf(&b, "program %q", st.File)
	case st.File != "":
		fmt.Fprintf(&b, "%q", st.File)
	default:
		b.WriteString("client")
	}
	for _, o := range st.Options {
		fmt.Fprintf(&b, " %s", o.Name)
		switch {
		case o.Star:
			b.WriteString("=*")
		case o.Columns != nil:
			fmt.Fprintf(&b, "=%v", o.Columns)
		case o.HasValue:
			fmt.Fprintf(&b, "=%q", o.Value)
		}
	}
	if st.Where {
		b.WriteString(" where")
	}
	return b.String()
}

func TestParseCopy(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`COPY t FROM STDIN`, `t from client`},
		{`copy public.T (a, "B") from stdin;`, `public.t[a B] from client`},
		{`COPY t TO STDOUT`, `t to client`},
		{`COPY t FROM STDOUT`, `t from client`},
		{`COPY t FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NA', QUOTE '''', ESCAPE '\')`,
			`t from client format="csv" header="true" delimiter=";" null="NA" quote="'" escape="\\"`},
		{`COPY t FROM STDIN (format binary)`, `t from client format="binary"`},
		{`COPY t TO STDOUT (FORMAT csv, HEADER, FORCE_QUOTE *)`, `t to client format="csv" header force_quote=*`},
		{`COPY t TO STDOUT (FORMAT csv, FORCE_QUOTE (a, b), header match)`, `t to client format="csv" force_quote=[a b] header="match"`},
		{`COPY t FROM STDIN (FORMAT "csv", HEADER 1, FREEZE false)`, `t from client format="csv" header="1" freeze="false"`},
		// Legacy forms, as psql's \copy and pg_dump write them.
		{`COPY t FROM STDIN WITH CSV HEADER`, `t from client format="csv" header`},
		{`COPY t FROM STDIN CSV HEADER DELIMITER ',' QUOTE AS '"' FORCE NOT NULL a, b`,
			`t from client format="csv" header delimiter="," quote="\"" force_not_null=[a b]`},
		{`COPY t TO STDOUT WITH CSV FORCE QUOTE *`, `t to client format="csv" force_quote=*`},
		{`COPY t TO STDOUT WITH CSV FORCE QUOTE a`, `t to client format="csv" force_quote=[a]`},
		{`COPY t FROM STDIN FORCE NULL a`, `t from client force_null=[a]`},
		{`COPY t FROM STDIN DELIMITER AS '|' NULL AS ''`, `t from client delimiter="|" null=""`},
		{`COPY t FROM STDIN USING DELIMITERS '|' WITH NULL 'x'`, `t from client delimiter="|" null="x"`},
		{`COPY BINARY t FROM STDIN`, `t from client format="binary"`},
		{`COPY binary FROM STDIN`, `binary from client`},
		{`COPY t ( a ) FROM STDIN BINARY;`, `t[a] from client format="binary"`},
		{`copy "t" ( "a", "b" ) from stdin binary;`, `t[a b] from client format="binary"`},
		{`COPY t FROM '/tmp/x.csv' CSV`, `t from "/tmp/x.csv" format="csv"`},
		{`COPY t TO PROGRAM 'gzip > x'`, `t to program "gzip > x"`},
		{`COPY (SELECT a, (b + 1) FROM t WHERE a > 1) TO STDOUT WITH (FORMAT csv)`, `(SELECT a, (b + 1) FROM t WHERE a > 1) to client format="csv"`},
		{`COPY t FROM STDIN WHERE a > 1`, `t from client where`},
	} {
		st := parseOne(t, tc.sql)
		c, ok := st.Node.(*CopyStmt)
		if !ok {
			t.Errorf("%s: node %T", tc.sql, st.Node)
			continue
		}
		if got := copySummary(c); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
}

func TestParseCopyErrors(t *testing.T) {
	for _, tc := range []struct {
		sql string
		pos int
	}{
		{`COPY`, 5},
		{`COPY t`, 7},
		{`COPY t INTO STDIN`, 8},
		{`COPY t FROM`, 12},
		{`COPY t FROM STDIN WITH (FORMAT csv`, 35},
		{`COPY t FROM STDIN WITH CSV BOGUS`, 28},
		{`COPY (SELECT 1) FROM STDIN`, 17},
		{`COPY (INSERT INTO t VALUES (1)) TO STDOUT`, 6},
		{`COPY (SELECT 1 TO STDOUT`, 25},
		{`COPY t FROM STDIN DELIMITER 1`, 29},
		{`COPY t FROM STDIN extra`, 19},
	} {
		_, err := NewParser().Parse(tc.sql)
		if err == nil {
			t.Errorf("%s: no error", tc.sql)
			continue
		}
		pe := pgerr.As(err)
		if pe.Code != pgerr.SyntaxError || pe.Position != tc.pos {
			t.Errorf("%s: %s %q at %d, want 42601 at %d", tc.sql, pe.Code, pe.Message, pe.Position, tc.pos)
		}
	}
}
