package pgwire

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

func TestOptionsDefaults(t *testing.T) {
	o := Options{MaxConnections: 7}.EnsureDefaults()
	if o.Addr != DefaultAddr || o.MaxConnections != 7 || o.MaxMessageSize != 64<<20 || o.StartupTimeout != DefaultStartupTimeout ||
		o.ShutdownGrace != DefaultShutdownGrace || o.ServerVersion != "15.0" || o.Logger == nil {
		t.Fatalf("EnsureDefaults = %+v", o)
	}
}

func TestListenAndServe(t *testing.T) {
	fake := &fakeBackend{}
	srv := NewServer(fake, Options{Addr: "127.0.0.1:0"})
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe() }()
	waitFor(t, func() bool { return srv.Addr() != nil })
	c := connect(t, srv.Addr().String())
	c.send(&pgproto3.Query{String: "SELECT 1"})
	c.until()
	srv.Close()
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("ListenAndServe = %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestConcurrentClients(t *testing.T) {
	ts := startServer(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://u@%s/d?sslmode=disable", ts.addr))
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			for j := range 20 {
				var n int64
				if err := conn.QueryRow(ctx, "SELECT $1::int8", int64(i*100+j)).Scan(&n); err != nil || n != int64(i*100+j) {
					errs <- fmt.Errorf("client %d query %d: %d, %v", i, j, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
