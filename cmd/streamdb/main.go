// Command streamdb serves a streamdb database over the Postgres wire
// protocol, and runs sqllogictest files.
//
//	streamdb [serve] [--listen 127.0.0.1:4566] [--data-dir ./streamdb-data] [--password X]
//	streamdb slt [--url postgres://...] FILE...
//	streamdb bench [--rows N] [--freshness N] [--compare postgres] [SCENARIO...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/slt"
	"github.com/streamdb/streamdb/internal/sltdb"
	"github.com/streamdb/streamdb/pgwire"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd {
	case "serve":
		err = serve(ctx, args, stderr)
	case "slt":
		var failed bool
		failed, err = runSLT(ctx, args, stdout, stderr)
		if err == nil && failed {
			return 1
		}
	case "bench":
		err = runBench(ctx, args, stdout, stderr)
	default:
		err = fmt.Errorf("unknown command %q (commands: serve, slt, bench)", cmd)
	}
	if err != nil {
		fmt.Fprintln(stderr, "streamdb:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:4566", "address to serve the Postgres protocol on")
	dataDir := fs.String("data-dir", "./streamdb-data", "data directory (:memory: for an in-memory store)")
	password := fs.String("password", "", "require SCRAM-SHA-256 authentication with this password, for every user\n"+
		"(default $"+passwordEnv+", which keeps it out of the process list); without one,\n"+
		"authentication is off and only a loopback --listen address is allowed")
	verbose := fs.Bool("v", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *password == "" {
		*password = os.Getenv(passwordEnv)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ln, err := listenChecked(*listen, *password != "")
	if err != nil {
		return err
	}
	db, err := streamdb.Open(*dataDir, &streamdb.Options{Logger: logger})
	if err != nil {
		ln.Close()
		return err
	}
	defer db.Close()
	srv := pgwire.NewServer(db.Backend(), pgwire.Options{Addr: *listen, Logger: logger, Password: *password})
	if *password == "" {
		logger.Warn("authentication is off (trust): any local user can connect as any user; serving on loopback only " +
			"(set --password or " + passwordEnv + " to require SCRAM-SHA-256 and allow other addresses)")
	} else {
		logger.Info("authentication: SCRAM-SHA-256 password required")
	}
	logger.Info("streamdb serving", "addr", ln.Addr().String(), "data_dir", *dataDir)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
		srv.Close()
		<-errc
		return nil
	case err := <-errc:
		return err
	}
}

// passwordEnv is the environment variable serve reads the password from.
const passwordEnv = "STREAMDB_PASSWORD"

// listenChecked listens on addr. Without a password the server admits
// every client (trust), so it refuses to listen on anything but a loopback
// address: what it checks is the address actually bound, so "localhost"
// passes and ":4566" (every interface) does not.
func listenChecked(addr string, hasPassword bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if hasPassword {
		return ln, nil
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return ln, nil
	}
	bound := ln.Addr().String()
	ln.Close()
	return nil, fmt.Errorf("refusing to listen on %s (%s) without a password: authentication would be off (trust), "+
		"so anyone who can reach that address could connect as any user; set a password with --password or the %s "+
		"environment variable (clients then authenticate with SCRAM-SHA-256), or listen on a loopback address such as 127.0.0.1:4566",
		addr, bound, passwordEnv)
}

// runSLTInProcess runs the files in-process. With an in-memory store each
// file gets a fresh database, so files do not see each other's tables.
func runSLTInProcess(ctx context.Context, dataDir string, files []string) (slt.Summary, error) {
	quiet := &streamdb.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	groups := [][]string{files}
	if dataDir == ":memory:" || dataDir == "" {
		groups = groups[:0]
		for _, f := range files {
			groups = append(groups, []string{f})
		}
	}
	var total slt.Summary
	for _, g := range groups {
		db, err := streamdb.Open(dataDir, quiet)
		if err != nil {
			return total, err
		}
		sum, err := slt.Run(ctx, sltdb.Open(db), g, slt.Options{})
		db.Close()
		total.Passed += sum.Passed
		total.Failed += sum.Failed
		total.Skipped += sum.Skipped
		total.Failures = append(total.Failures, sum.Failures...)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func runSLT(ctx context.Context, args []string, stdout, stderr io.Writer) (failed bool, err error) {
	fs := flag.NewFlagSet("slt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "run against a server at this Postgres URL instead of in-process")
	dataDir := fs.String("data-dir", ":memory:", "data directory for the in-process database")
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	if fs.NArg() == 0 {
		return false, errors.New("slt: no files given")
	}
	var sum slt.Summary
	if *url != "" {
		open := func(ctx context.Context) (slt.Conn, error) { return slt.DialPG(ctx, *url) }
		sum, err = slt.Run(ctx, open, fs.Args(), slt.Options{})
	} else {
		sum, err = runSLTInProcess(ctx, *dataDir, fs.Args())
	}
	for _, f := range sum.Failures {
		fmt.Fprintln(stdout, f.String())
	}
	fmt.Fprintln(stdout, slt.FormatSummary(sum))
	return sum.Failed > 0, err
}
