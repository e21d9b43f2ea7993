package main

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb"
)

// startHTTP serves db's metrics on a loopback port; the cleanup stops it.
func startHTTP(t *testing.T, password string) (base string, db *streamdb.DB) {
	t.Helper()
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Listen first to learn a free port; serveHTTP listens itself.
	stop, addr := serveHTTPOnFreePort(t, password, nil, db, logger)
	t.Cleanup(stop)
	return "http://" + addr, db
}

func serveHTTPOnFreePort(t *testing.T, password string, tlsConfig *tls.Config, db *streamdb.DB, logger *slog.Logger) (func(), string) {
	t.Helper()
	ln, err := listenChecked("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stop, err := serveHTTP(addr, password, tlsConfig, db, logger)
	if err != nil {
		t.Fatal(err)
	}
	return stop, addr
}

func get(t *testing.T, url, password string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if password != "" {
		req.SetBasicAuth("anyone", password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestHTTPMetrics(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, leaks)
	})
	base, _ := startHTTP(t, "")
	if code, body := get(t, base+"/metrics", ""); code != 200 || !strings.Contains(body, "streamdb_epoch_committed") {
		t.Errorf("/metrics: %d\n%.300s", code, body)
	}
	if code, body := get(t, base+"/", ""); code != 200 || !strings.Contains(body, "assets/app.js") {
		t.Errorf("/ (the dashboard): %d %.300q", code, body)
	}
	if code, body := get(t, base+"/api/jobs", ""); code != 200 || !strings.HasPrefix(body, "[") {
		t.Errorf("/api/jobs: %d %.300q", code, body)
	}
	if code, _ := get(t, base+"/nothing", ""); code != 404 {
		t.Errorf("/nothing: %d, want 404", code)
	}
}

func TestHTTPBasicAuth(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		goleak.VerifyNone(t, leaks)
	})
	base, _ := startHTTP(t, "sekrit")
	for _, path := range []string{"/metrics", "/", "/api/jobs", "/assets/app.js"} {
		if code, _ := get(t, base+path, ""); code != http.StatusUnauthorized {
			t.Errorf("%s without a password: %d, want 401", path, code)
		}
		if code, _ := get(t, base+path, "wrong"); code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong password: %d, want 401", path, code)
		}
		if code, _ := get(t, base+path, "sekrit"); code != 200 {
			t.Errorf("%s with the password: %d, want 200", path, code)
		}
	}
}

// notFoundDB serves nothing.
type notFoundDB struct{}

func (notFoundDB) MetricsHandler() http.Handler   { return http.NotFoundHandler() }
func (notFoundDB) DashboardHandler() http.Handler { return http.NotFoundHandler() }

func TestHTTPRefusesNonLoopbackWithoutPassword(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := serveHTTP(":0", "", nil, notFoundDB{}, logger); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("serveHTTP(:0) without a password: %v, want a refusal", err)
	}
	stop, err := serveHTTP(":0", "pw", nil, notFoundDB{}, logger)
	if err != nil {
		t.Fatalf("serveHTTP(:0) with a password: %v", err)
	}
	stop()
	stop, err = serveHTTP("", "", nil, notFoundDB{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	stop()
}

// TestHTTPS: with the server's TLS certificate, /metrics is served over
// HTTPS to a client that trusts it, and a plain HTTP request fails.
func TestHTTPS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// httptest's certificate for 127.0.0.1, and a client that trusts it.
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	cfg, client := ts.TLS.Clone(), ts.Client()
	ts.Close()
	stop, addr := serveHTTPOnFreePort(t, "", cfg, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer stop()
	resp, err := client.Get("https://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil || !strings.Contains(string(body), "streamdb_epoch_committed") {
		t.Fatalf("HTTPS /metrics: %d, TLS %v, %.200s", resp.StatusCode, resp.TLS != nil, body)
	}
	plain := &http.Client{Transport: &http.Transport{}}
	if resp, err := plain.Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("plain HTTP was served")
		}
	}
	plain.CloseIdleConnections()
	client.CloseIdleConnections()
}
