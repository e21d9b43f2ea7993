package tests

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb"
)

// cursorTable fills ct with n rows (id from 1000, a text, a numeric:
// values of one width, so that psql's aligned output in batches of
// FETCH_COUNT, each sized to its own rows, equals its output in one) and
// returns the server's port.
func cursorTable(t *testing.T, n int) (*streamdb.DB, int) {
	t.Helper()
	db := openMem(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE ct (id int PRIMARY KEY, v text, x numeric(10,2))",
		fmt.Sprintf("INSERT INTO ct SELECT g, 'row ' || g, g / 7.0 FROM generate_series(1000, %d) AS g", 999+n),
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, startServer(t, db)
}

// TestCursorPsqlFetchCount: psql with FETCH_COUNT reads a result through
// a cursor (BEGIN; DECLARE ... NO SCROLL CURSOR; FETCH FORWARD n ...;
// CLOSE; COMMIT) and prints the same as without it, in and out of a
// transaction block of the user's.
func TestCursorPsqlFetchCount(t *testing.T) {
	requirePsql(t)
	_, port := cursorTable(t, 4321)
	for _, script := range []string{
		"SELECT * FROM ct;\n",
		"SELECT id, v FROM ct ORDER BY id DESC;\n",
		"BEGIN;\nSELECT x, id FROM ct WHERE id % 3 = 0 ORDER BY id;\nSELECT count(*) FROM ct;\nCOMMIT;\n",
		"SELECT * FROM ct WHERE id < 0;\n",
	} {
		want := runPsql(t, port, script)
		if !strings.Contains(want, " rows)") && !strings.Contains(want, "(1 row)") {
			t.Fatalf("%q without FETCH_COUNT printed:\n%s", script, want)
		}
		got := runPsql(t, port, "\\set FETCH_COUNT 1000\n"+script)
		if got != want {
			t.Errorf("%q: with FETCH_COUNT 1000 psql printed (%d bytes):\n%.2000s\nwithout (%d bytes):\n%.2000s",
				script, len(got), got, len(want), want)
		}
	}
	// The whole table: 4321 rows, in aligned and unaligned formats.
	out := runPsql(t, port, "\\set FETCH_COUNT 1000\nSELECT * FROM ct ORDER BY id;\n")
	if !strings.HasSuffix(out, "(4321 rows)\n\n") || !strings.Contains(out, " 5320 | row 5320 | 760.00\n") {
		t.Fatalf("psql FETCH_COUNT output ends:\n%s", out[max(0, len(out)-300):])
	}
	unaligned := "\\pset format unaligned\nSELECT id, v FROM ct ORDER BY id;\n"
	if a, b := runPsql(t, port, unaligned), runPsql(t, port, "\\set FETCH_COUNT 7\n"+unaligned); a != b || !strings.Contains(a, "\n5320|row 5320\n") {
		t.Fatalf("unaligned output differs with FETCH_COUNT 7 (%d and %d bytes)", len(a), len(b))
	}
}

// pgErrCode returns err's SQLSTATE and message.
func pgErrCode(err error) (string, string) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, pe.Message
	}
	return "", fmt.Sprint(err)
}

// TestCursorPgx: drivers send DECLARE with parameters and FETCH through
// the extended protocol (as psycopg's named cursors do); errors carry
// PostgreSQL's SQLSTATEs.
func TestCursorPgx(t *testing.T) {
	_, port := cursorTable(t, 100)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := pgxConnect(t, port, mode)
			ctx := context.Background()
			if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `DECLARE "c" NO SCROLL CURSOR WITHOUT HOLD FOR SELECT id, v FROM ct WHERE id > $1 ORDER BY id`, 1089); err != nil {
				t.Fatal(err)
			}
			var got []string
			for range 3 {
				rows, err := conn.Query(ctx, `FETCH FORWARD 4 FROM "c"`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var id int
					var v string
					if err := rows.Scan(&id, &v); err != nil {
						t.Fatal(err)
					}
					got = append(got, fmt.Sprintf("%d:%s", id, v))
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				got = append(got, rows.CommandTag().String())
			}
			want := "1090:row 1090 1091:row 1091 1092:row 1092 1093:row 1093 FETCH 4 " +
				"1094:row 1094 1095:row 1095 1096:row 1096 1097:row 1097 FETCH 4 1098:row 1098 1099:row 1099 FETCH 2"
			if strings.Join(got, " ") != want {
				t.Fatalf("fetched %q\nwant %q", strings.Join(got, " "), want)
			}
			tag, err := conn.Exec(ctx, "MOVE ALL IN c")
			if err != nil || tag.String() != "MOVE 0" {
				t.Fatalf("MOVE ALL: %v %v", tag, err)
			}
			if _, err := conn.Exec(ctx, "DECLARE c CURSOR FOR SELECT 1"); err == nil {
				t.Fatal("a duplicate cursor was declared")
			} else if code, msg := pgErrCode(err); code != "42P03" || msg != `cursor "c" already exists` {
				t.Fatalf("duplicate: %s %s", code, msg)
			}
			if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			for q, want := range map[string][2]string{
				"FETCH 1 FROM c":                {"34000", `cursor "c" does not exist`},
				"CLOSE nope":                    {"34000", `cursor "nope" does not exist`},
				"DECLARE d CURSOR FOR SELECT 1": {"25P01", "DECLARE CURSOR can only be used in transaction blocks"},
				"FETCH BACKWARD 2 FROM c":       {"0A000", "BACKWARD is not supported: cursors only scan forward"},
			} {
				_, err := conn.Exec(ctx, q)
				if code, msg := pgErrCode(err); code != want[0] || msg != want[1] {
					t.Errorf("%s: %s %q, want %s %q", q, code, msg, want[0], want[1])
				}
			}
			// WITH HOLD outlives its transaction, until CLOSE.
			if _, err := conn.Exec(ctx, "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM ct WHERE id <= $1 ORDER BY id", 1002); err != nil {
				t.Fatal(err)
			}
			var ids []int
			rows, _ := conn.Query(ctx, "FETCH ALL FROM h")
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int])
			if err != nil || fmt.Sprint(ids) != "[1000 1001 1002]" {
				t.Fatalf("FETCH ALL FROM h: %v %v", ids, err)
			}
			if tag, err := conn.Exec(ctx, "CLOSE h"); err != nil || tag.String() != "CLOSE CURSOR" {
				t.Fatalf("CLOSE h: %v %v", tag, err)
			}
		})
	}
}

// wireClient is a raw protocol client for Execute with a row limit,
// which no driver API here exposes.
type wireClient struct {
	t  *testing.T
	fe *pgproto3.Frontend
}

func wireConnect(t *testing.T, port int) *wireClient {
	t.Helper()
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	c := &wireClient{t: t, fe: pgproto3.NewFrontend(nc, nc)}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "tester", "database": "dev"}})
	c.until()
	return c
}

func (c *wireClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

// until reads through ReadyForQuery and summarizes what came: runs of
// DataRows as "rows N (first..last)" of their first column.
func (c *wireClient) until() []string {
	c.t.Helper()
	var out []string
	var n int
	var first, last string
	flush := func() {
		if n > 0 {
			out = append(out, fmt.Sprintf("rows %d (%s..%s)", n, first, last))
			n = 0
		}
	}
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("receive: %v", err)
		}
		if d, ok := m.(*pgproto3.DataRow); ok {
			if n == 0 {
				first = string(d.Values[0])
			}
			last = string(d.Values[0])
			n++
			continue
		}
		flush()
		switch m := m.(type) {
		case *pgproto3.CommandComplete:
			out = append(out, "CommandComplete "+string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			out = append(out, "Error "+m.Code+" "+m.Message)
		case *pgproto3.ReadyForQuery:
			return append(out, "ReadyForQuery "+string(m.TxStatus))
		case *pgproto3.RowDescription:
			var names []string
			for _, f := range m.Fields {
				names = append(names, string(f.Name))
			}
			out = append(out, "RowDescription "+strings.Join(names, ","))
		case *pgproto3.ParameterStatus, *pgproto3.BackendKeyData, *pgproto3.AuthenticationOk,
			*pgproto3.ParseComplete, *pgproto3.BindComplete:
		default:
			out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
		}
	}
}

func (c *wireClient) expect(want ...string) {
	c.t.Helper()
	if got := c.until(); !slices.Equal(got, want) {
		c.t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

// TestCursorPortalRowLimit: Execute with a row limit sends that many
// rows then PortalSuspended, the next Execute goes on, the end completes
// (as PostgreSQL: SELECT with this Execute's rows). The rows are read a
// chunk at a time: an error planted in the third chunk of a 200,000-row
// scan is not met by Executes that stay in the first two, and ends the
// portal when reached; a portal closed before its end, or ended by
// COMMIT, releases its snapshot.
func TestCursorPortalRowLimit(t *testing.T) {
	db, port := cursorTable(t, 200_000)
	c := wireConnect(t, port)
	c.send(&pgproto3.Parse{Query: "SELECT id FROM ct WHERE id < 3500 ORDER BY id"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 1000}, &pgproto3.Execute{MaxRows: 1000}, &pgproto3.Execute{MaxRows: 1000},
		&pgproto3.Execute{MaxRows: 1000}, &pgproto3.Sync{})
	c.expect("rows 1000 (1000..1999)", "PortalSuspended", "rows 1000 (2000..2999)", "PortalSuspended",
		"rows 500 (3000..3499)", "CommandComplete SELECT 500", "CommandComplete SELECT 0", "ReadyForQuery I")

	// The id at scan position 2048 (0-based), the third chunk's first.
	s := db.NewSession()
	defer s.Close()
	rows, err := s.Query(context.Background(), "SELECT id FROM ct")
	if err != nil {
		t.Fatal(err)
	}
	for range 2049 {
		rows.Next()
	}
	sentinel, _ := strconv.Atoi(*rows.Text()[0])
	rows.Close()
	c.send(&pgproto3.Parse{Name: "f", Query: fmt.Sprintf("SELECT id, 1 / (id - %d) FROM ct", sentinel)},
		&pgproto3.Bind{PreparedStatement: "f"}, &pgproto3.Execute{MaxRows: 1},
		&pgproto3.Execute{MaxRows: 2000}, &pgproto3.Execute{MaxRows: 2000}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	got := c.until()
	if len(got) != 7 || got[1] != "PortalSuspended" || !strings.HasPrefix(got[2], "rows 2000 ") || got[3] != "PortalSuspended" ||
		!strings.HasPrefix(got[4], "rows 47 ") || got[5] != "Error 22012 division by zero" || got[6] != "ReadyForQuery I" {
		t.Fatalf("a portal failing in its third chunk: %q", got)
	}
	c.send(&pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	c.expect(`Error 34000 portal "" does not exist`, "ReadyForQuery I")

	// In a transaction block a portal lives across Syncs; Close and
	// COMMIT release them.
	c.send(&pgproto3.Query{String: "BEGIN"})
	c.expect("CommandComplete BEGIN", "ReadyForQuery T")
	c.send(&pgproto3.Bind{PreparedStatement: "f", DestinationPortal: "p1"}, &pgproto3.Execute{Portal: "p1", MaxRows: 5},
		&pgproto3.Bind{PreparedStatement: "f", DestinationPortal: "p2"}, &pgproto3.Execute{Portal: "p2", MaxRows: 5}, &pgproto3.Sync{})
	got = c.until()
	if len(got) != 5 || got[1] != "PortalSuspended" || got[3] != "PortalSuspended" || got[4] != "ReadyForQuery T" {
		t.Fatalf("two portals: %q", got)
	}
	c.send(&pgproto3.Close{ObjectType: 'P', Name: "p1"}, &pgproto3.Execute{Portal: "p2", MaxRows: 5}, &pgproto3.Sync{})
	got = c.until()
	if len(got) != 4 || got[0] != "CloseComplete" || !strings.HasPrefix(got[1], "rows 5 ") || got[3] != "ReadyForQuery T" {
		t.Fatalf("after closing p1: %q", got)
	}
	c.send(&pgproto3.Query{String: "COMMIT"})
	c.expect("CommandComplete COMMIT", "ReadyForQuery I")
	c.send(&pgproto3.Execute{Portal: "p2", MaxRows: 5}, &pgproto3.Sync{})
	c.expect(`Error 34000 portal "p2" does not exist`, "ReadyForQuery I")
}

// TestCursorDescribePortal: a SQL cursor is a portal too, as in
// PostgreSQL: psycopg's named cursors DECLARE with parameters through the
// extended protocol, Describe the cursor's name as a portal to learn its
// columns, then FETCH.
func TestCursorDescribePortal(t *testing.T) {
	_, port := cursorTable(t, 100)
	c := wireConnect(t, port)
	c.send(&pgproto3.Query{String: "BEGIN"})
	c.expect("CommandComplete BEGIN", "ReadyForQuery T")
	c.send(&pgproto3.Parse{Query: `DECLARE "pc" CURSOR FOR SELECT id, v FROM ct WHERE id > $1 ORDER BY id`},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("1096")}}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	c.expect("NoData", "CommandComplete DECLARE CURSOR", "ReadyForQuery T")
	c.send(&pgproto3.Describe{ObjectType: 'P', Name: "pc"}, &pgproto3.Sync{})
	c.expect("RowDescription id,v", "ReadyForQuery T")
	c.send(&pgproto3.Parse{Query: `FETCH FORWARD 2 FROM "pc"`}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	c.expect("RowDescription id,v", "rows 2 (1097..1098)", "CommandComplete FETCH 2", "ReadyForQuery T")
	c.send(&pgproto3.Describe{ObjectType: 'P', Name: "nosuch"}, &pgproto3.Sync{})
	c.expect(`Error 34000 portal "nosuch" does not exist`, "ReadyForQuery T")
	c.send(&pgproto3.Query{String: "COMMIT"})
	c.expect("CommandComplete COMMIT", "ReadyForQuery I")
	c.send(&pgproto3.Describe{ObjectType: 'P', Name: "pc"}, &pgproto3.Sync{})
	c.expect(`Error 34000 portal "pc" does not exist`, "ReadyForQuery I")
}
