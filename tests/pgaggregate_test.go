//go:build linux

package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgAggregateColumns are pg_aggregate's columns, all of them.
const pgAggregateColumns = `aggfnoid, aggkind, aggnumdirectargs, aggtransfn, aggfinalfn, aggcombinefn,
	aggserialfn, aggdeserialfn, aggmtransfn, aggminvtransfn, aggmfinalfn, aggfinalextra, aggmfinalextra,
	aggfinalmodify, aggmfinalmodify, aggsortop, aggtranstype, aggtransspace, aggmtranstype, aggmtransspace,
	agginitval, aggminitval`

// queryText runs query and returns its rows as text, one line each, the
// columns joined by |, NULL as NULL.
func queryText(ctx context.Context, conn *pgx.Conn, query string) ([]string, error) {
	rows, err := conn.Query(ctx, query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var parts []string
		for _, v := range rows.RawValues() {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, string(v))
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}

// oidsOf runs query for a list of OIDs, as a SQL list.
func oidsOf(t *testing.T, ctx context.Context, conn *pgx.Conn, query string) string {
	t.Helper()
	oids, err := queryText(ctx, conn, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(oids) == 0 {
		t.Fatalf("%s: no rows", query)
	}
	return strings.Join(oids, ", ")
}

// TestPgAggregatePostgres compares pg_aggregate, and regproc's names for
// pg_proc's functions, with PostgreSQL 15's, for the aggregates and
// functions streamdb has.
func TestPgAggregatePostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := openMem(t)
	sdb := connectSimple(t, startServer(t, db))
	pg := startPostgres(t)
	pgc, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)

	aggs := oidsOf(t, ctx, sdb, `SELECT oid FROM pg_catalog.pg_proc WHERE prokind = 'a' ORDER BY oid`)
	// pg_proc's functions that PostgreSQL has (not streamdb's own).
	funcs := oidsOf(t, ctx, sdb, `SELECT oid FROM pg_catalog.pg_proc ORDER BY oid`)
	funcs = oidsOf(t, ctx, pgc, `SELECT oid FROM pg_catalog.pg_proc WHERE oid IN (`+funcs+`) ORDER BY oid`)

	// Every pg_aggregate row is an aggregate of pg_proc's, and every
	// aggregate has a row.
	for _, q := range []string{
		`SELECT a.aggfnoid::oid FROM pg_catalog.pg_aggregate a LEFT JOIN pg_catalog.pg_proc p ON p.oid = a.aggfnoid WHERE p.prokind IS DISTINCT FROM 'a'`,
		`SELECT p.oid FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_aggregate a ON a.aggfnoid = p.oid WHERE p.prokind = 'a' AND a.aggfnoid IS NULL`,
	} {
		if got, err := queryText(ctx, sdb, q); err != nil || len(got) != 0 {
			t.Errorf("%s: %v, %v", q, got, err)
		}
	}

	// The same queries on both, PostgreSQL's limited to what streamdb has.
	for _, c := range []struct{ streamdb, postgres string }{
		{
			`SELECT ` + pgAggregateColumns + ` FROM pg_catalog.pg_aggregate ORDER BY aggfnoid::oid`,
			`SELECT ` + pgAggregateColumns + ` FROM pg_catalog.pg_aggregate WHERE aggfnoid::oid IN (` + aggs + `) ORDER BY aggfnoid::oid`,
		},
		{
			`SELECT aggfnoid::oid, aggtransfn::oid, aggfinalfn::oid, aggcombinefn::oid, aggserialfn::oid, aggdeserialfn::oid,
				aggmtransfn::oid, aggminvtransfn::oid, aggmfinalfn::oid FROM pg_catalog.pg_aggregate ORDER BY 1`,
			`SELECT aggfnoid::oid, aggtransfn::oid, aggfinalfn::oid, aggcombinefn::oid, aggserialfn::oid, aggdeserialfn::oid,
				aggmtransfn::oid, aggminvtransfn::oid, aggmfinalfn::oid FROM pg_catalog.pg_aggregate WHERE aggfnoid::oid IN (` + aggs + `) ORDER BY 1`,
		},
		{
			`SELECT p.proname, a.aggtranstype::regtype FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid ORDER BY 1, 2`,
			`SELECT p.proname, a.aggtranstype::regtype FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid WHERE p.oid IN (` + aggs + `) ORDER BY 1, 2`,
		},
		{
			`SELECT a.aggfnoid::oid, t.typname, m.typname, o.oprname FROM pg_aggregate a JOIN pg_type t ON t.oid = a.aggtranstype
				LEFT JOIN pg_type m ON m.oid = a.aggmtranstype LEFT JOIN pg_operator o ON o.oid = a.aggsortop ORDER BY 1`,
			`SELECT a.aggfnoid::oid, t.typname, m.typname, o.oprname FROM pg_aggregate a JOIN pg_type t ON t.oid = a.aggtranstype
				LEFT JOIN pg_type m ON m.oid = a.aggmtranstype LEFT JOIN pg_operator o ON o.oid = a.aggsortop WHERE a.aggfnoid::oid IN (` + aggs + `) ORDER BY 1`,
		},
		{
			`SELECT t.oid, t.typname, t.typlen, t.typbyval, t.typtype, t.typcategory, t.typalign, t.typstorage, t.typelem, t.typarray,
				obj_description(t.oid, 'pg_type') FROM pg_type t WHERE t.oid IN (SELECT aggtranstype FROM pg_aggregate) ORDER BY 1`,
			`SELECT t.oid, t.typname, t.typlen, t.typbyval, t.typtype, t.typcategory, t.typalign, t.typstorage, t.typelem, t.typarray,
				obj_description(t.oid, 'pg_type') FROM pg_type t WHERE t.oid IN (SELECT aggtranstype FROM pg_aggregate WHERE aggfnoid::oid IN (` + aggs + `)) ORDER BY 1`,
		},
		{
			`SELECT aggfnoid, aggcombinefn FROM pg_aggregate WHERE aggtransfn = 'int8inc'::regproc OR aggmtransfn = 'pg_catalog.int8inc_any'::regproc`,
			`SELECT aggfnoid, aggcombinefn FROM pg_aggregate WHERE aggtransfn = 'int8inc'::regproc OR aggmtransfn = 'pg_catalog.int8inc_any'::regproc`,
		},
		{
			`SELECT oid, oid::regproc FROM pg_catalog.pg_proc WHERE oid IN (` + funcs + `) ORDER BY 1`,
			`SELECT oid, oid::regproc FROM pg_catalog.pg_proc WHERE oid IN (` + funcs + `) ORDER BY 1`,
		},
	} {
		got, err := queryText(ctx, sdb, c.streamdb)
		if err != nil {
			t.Errorf("streamdb: %s: %v", c.streamdb, err)
			continue
		}
		want, err := queryText(ctx, pgc, c.postgres)
		if err != nil {
			t.Fatalf("postgres: %s: %v", c.postgres, err)
		}
		if len(got) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s\n--- streamdb\n%s\n--- postgres\n%s", c.streamdb, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
