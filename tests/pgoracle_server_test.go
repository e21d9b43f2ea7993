//go:build linux

package tests

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/internal/pgserver"
)

// pgServer is a throwaway PostgreSQL cluster started for one test.
type pgServer struct {
	*pgserver.Server
	port int
	log  interface{ String() string }
}

type serverLog struct{ s *pgserver.Server }

func (l serverLog) String() string { return l.s.Log() }

// startPostgres starts a cluster for the test (durability off), skipping
// the test when PostgreSQL is not installed, or failing it under CI, where
// .ci/run installs it. Cleanup stops the server and removes its dir.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	s, err := pgserver.Start(pgserver.Options{Fast: true, Logf: t.Logf})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required in CI (.ci/run installs it): %v", err)
		}
		if errors.Is(err, pgserver.ErrNotInstalled) {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop postgres: %v", err)
		}
	})
	return &pgServer{Server: s, port: s.Port, log: serverLog{s}}
}

// connect opens a connection that uses the simple query protocol, so
// every value comes back as text, with the session settings the oracle
// relies on.
func (s *pgServer) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(s.ConnString())
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.RuntimeParams["DateStyle"] = "ISO, MDY"
	cfg.RuntimeParams["IntervalStyle"] = "postgres"
	cfg.RuntimeParams["extra_float_digits"] = "1"
	return pgx.ConnectConfig(ctx, cfg)
}
