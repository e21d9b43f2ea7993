package main

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// The HTTP side of serve (--http ADDR): the web dashboard at /
// (DB.DashboardHandler: its page, assets and JSON API) and /metrics in
// the Prometheus text format. It follows the Postgres listener's rule
// (listenChecked, checking the address actually bound): without a
// password only a loopback address is allowed; with one, every request
// must carry it by basic auth (any user name), the dashboard's included.

// httpShutdownTimeout bounds how long stopping waits for requests in flight.
const httpShutdownTimeout = 5 * time.Second

// httpDB is what --http serves: a *streamdb.DB's handlers.
type httpDB interface {
	MetricsHandler() http.Handler
	DashboardHandler() http.Handler
}

// serveHTTP serves db's dashboard and metrics on addr ("" serves nothing,
// and starts no dashboard sampler) until the returned stop is called;
// stop shuts the server down and waits for its goroutine.
func serveHTTP(addr, password string, tlsConfig *tls.Config, db httpDB, logger *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); password == "" && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("--http: refusing to serve the dashboard and metrics on %s (%s) without a password: "+
			"anyone who can reach that address could read them (statements and view names included); "+
			"set --password or %s (HTTP then asks for it by basic auth), "+
			"or use a loopback address such as 127.0.0.1:9187", addr, ln.Addr(), passwordEnv)
	}
	scheme := "http"
	if tlsConfig != nil {
		// HTTPS with the Postgres listener's certificate (--tls-cert).
		ln, scheme = tls.NewListener(ln, tlsConfig), "https"
	}
	srv := &http.Server{Handler: httpHandler(password, db.MetricsHandler(), db.DashboardHandler()),
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("http server failed", "err", err)
		}
	}()
	logger.Info("streamdb serving "+scheme, "addr", ln.Addr().String(), "dashboard", scheme+"://"+ln.Addr().String()+"/",
		"metrics", "/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		<-done
	}, nil
}

// httpHandler routes /metrics to metrics and everything else to the
// dashboard, behind basic auth when password is set.
func httpHandler(password string, metrics, dashboard http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", dashboard)
	if password == "" {
		return mux
	}
	return basicAuth(password, mux)
}

// basicAuth admits requests that carry password (any user name).
func basicAuth(password string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, got, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(password)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="streamdb", charset="UTF-8"`)
			http.Error(w, "password required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
