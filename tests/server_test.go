package tests

import (
	"net"
	"testing"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/pgwire"
)

// startServer serves db over the Postgres protocol on a loopback port and
// returns the port; the server stops at the end of the test.
func startServer(t testing.TB, db *streamdb.DB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := pgwire.NewServer(db.Backend(), pgwire.Options{})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return ln.Addr().(*net.TCPAddr).Port
}
