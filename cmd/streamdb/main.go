// Command streamdb serves a streamdb database over the Postgres wire
// protocol, runs sqllogictest files and benchmarks. `streamdb help` lists
// the commands (help.go).
//
//	streamdb [serve] [--listen 127.0.0.1:4566] [--data-dir ./streamdb-data] [--password X] [--tls-cert F --tls-key F [--require-tls]]
//	streamdb slt [--url postgres://...] FILE...
//	streamdb bench [--rows N] [--freshness N] [--compare postgres] [SCENARIO...]
//	streamdb version
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/streamdb/streamdb"
	"github.com/streamdb/streamdb/internal/slt"
	"github.com/streamdb/streamdb/internal/sltdb"
	"github.com/streamdb/streamdb/pgwire"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes: 2 is a mistake on the command line, as with the flag package.
const (
	exitFailure = 1
	exitUsage   = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && isHelpFlag(args[0]) {
		cmd, args = "help", args[1:]
	} else if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd {
	case "serve":
		err = serve(ctx, args, stdout, stderr)
	case "slt":
		var failed bool
		failed, err = runSLT(ctx, args, stdout, stderr)
		if err == nil && failed {
			return exitFailure
		}
	case "bench":
		err = runBench(ctx, args, stdout, stderr)
	case "version":
		err = runVersion(args, stdout, stderr)
	case "help":
		return runHelp(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "streamdb: unknown command %q\n\n", cmd)
		printUsage(stderr)
		return exitUsage
	}
	return exitCode(err, stderr)
}

// exitCode reports err and returns the process's exit status. A usage
// error has been reported by the flag package already.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return exitUsage
	}
	fmt.Fprintln(stderr, "streamdb:", err)
	return exitFailure
}

// usageError is a command line the flag package refused (and explained).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// parseFlags parses args with fs. A usage asked for with -h or --help goes
// to stdout; a mistake and the usage after it go to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(out.Bytes())
		return err
	case err != nil:
		stderr.Write(out.Bytes())
		return usageError{err}
	}
	return nil
}

func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// serveConfig is what serve's flags set.
type serveConfig struct {
	listen, dataDir, password string
	tlsCert, tlsKey           string
	requireTLS, verbose       bool
	barrierInterval           time.Duration
}

// serveFlags returns the flag set of serve, filling cfg.
func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:4566", "address to serve the Postgres protocol on")
	fs.StringVar(&cfg.dataDir, "data-dir", "./streamdb-data", "data directory (:memory: for an in-memory store)")
	fs.StringVar(&cfg.password, "password", "", "require SCRAM-SHA-256 authentication with this password, for every user\n"+
		"(default $"+passwordEnv+", which keeps it out of the process list); without one,\n"+
		"authentication is off and only a loopback --listen address is allowed")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "PEM `file` with the server's TLS certificate (chain); with --tls-key,\n"+
		"clients that ask for TLS (sslmode=require) get it, TLS 1.2 or newer")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "PEM `file` with the private key of --tls-cert")
	fs.BoolVar(&cfg.requireTLS, "require-tls", false, "refuse clients that do not use TLS (FATAL 28000); needs --tls-cert and --tls-key")
	fs.BoolVar(&cfg.verbose, "v", false, "log debug messages")
	fs.DurationVar(&cfg.barrierInterval, "barrier-interval", time.Second, "how often barriers commit sources' changes to views and sinks, the default\n"+
		"of a data dir where ALTER SYSTEM SET barrier_interval_ms has not set one")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: streamdb [serve] [flags]\n\n%s\n\nflags:\n", serveSummary)
		fs.PrintDefaults()
	}
	return fs
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg serveConfig
	fs := serveFlags(&cfg)
	httpAddr := fs.String("http", "", "serve the web dashboard at / and /metrics (Prometheus) over HTTP on this `address`; off unless given; same rule as --listen: a non-loopback address needs --password, which HTTP asks for by basic auth")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "streamdb serve takes no arguments, got %q\n", fs.Args())
		return usageError{errors.New("serve: unexpected arguments")}
	}
	if cfg.password == "" {
		cfg.password = os.Getenv(passwordEnv)
	}
	tlsConfig, err := loadServeTLS(cfg)
	if err != nil {
		return err
	}
	if cfg.barrierInterval < 10*time.Millisecond || cfg.barrierInterval > time.Hour {
		return fmt.Errorf("--barrier-interval %s: must be between 10ms and 1h", cfg.barrierInterval)
	}
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ln, err := listenChecked(cfg.listen, cfg.password != "")
	if err != nil {
		return err
	}
	db, err := streamdb.Open(cfg.dataDir, &streamdb.Options{Logger: logger, BarrierInterval: cfg.barrierInterval})
	if err != nil {
		ln.Close()
		return err
	}
	defer db.Close()
	stopHTTP, err := serveHTTP(*httpAddr, cfg.password, tlsConfig, db, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopHTTP()
	srv := pgwire.NewServer(db.Backend(), pgwire.Options{Addr: cfg.listen, Logger: logger, Password: cfg.password,
		TLSConfig: tlsConfig, RequireTLS: cfg.requireTLS})
	logSecurity(logger, cfg, tlsConfig)
	logger.Info("streamdb serving", "addr", ln.Addr().String(), "data_dir", cfg.dataDir)
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

// loadServeTLS loads serve's certificate, if it has one, and checks that
// --require-tls has one.
func loadServeTLS(cfg serveConfig) (*tls.Config, error) {
	tlsConfig, err := loadTLSConfig(cfg.tlsCert, cfg.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	if cfg.requireTLS && tlsConfig == nil {
		return nil, errors.New("--require-tls needs a certificate: set --tls-cert and --tls-key")
	}
	return tlsConfig, nil
}

// logSecurity says at startup how clients authenticate and whether their
// connections are encrypted.
func logSecurity(logger *slog.Logger, cfg serveConfig, tlsConfig *tls.Config) {
	if cfg.password == "" {
		logger.Warn("authentication is off (trust): any local user can connect as any user; serving on loopback only " +
			"(set --password or " + passwordEnv + " to require SCRAM-SHA-256 and allow other addresses)")
	} else {
		logger.Info("authentication: SCRAM-SHA-256 password required")
	}
	switch {
	case cfg.requireTLS:
		logger.Info("TLS required: plain-text clients are refused", "cert", cfg.tlsCert)
	case tlsConfig != nil:
		logger.Info("TLS available to clients that ask for it (sslmode=prefer, require)", "cert", cfg.tlsCert)
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
func runSLTInProcess(ctx context.Context, dataDir string, files []string, opts slt.Options) (slt.Summary, error) {
	quiet := &streamdb.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	groups := [][]string{files}
	if dataDir == ":memory:" || dataDir == "" {
		groups = groups[:0]
		for _, f := range files {
			groups = append(groups, []string{f})
		}
	}
	var total slt.Summary
	if report := opts.OnProgress; report != nil {
		// Each group is a Run of its own: add the earlier groups' counts.
		opts.OnProgress = func(p slt.Progress) {
			p.Passed += total.Passed
			p.Failed += total.Failed
			p.Skipped += total.Skipped
			report(p)
		}
	}
	for _, g := range groups {
		db, err := streamdb.Open(dataDir, quiet)
		if err != nil {
			return total, err
		}
		sum, err := slt.Run(ctx, sltdb.Open(db), g, opts)
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
	url := fs.String("url", "", "run against a server at this Postgres `URL` instead of in-process")
	dataDir := fs.String("data-dir", ":memory:", "data directory for the in-process database (:memory:: a fresh in-memory\n"+
		"database per file)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: streamdb slt [flags] FILE...\n\n%s\n\n"+
			"FILE... are sqllogictest files (.slt, sqllogictest-rs dialect), run in order; the\n"+
			"failures and \"N passed, M failed\" are printed, and the exit status is 1 on a failure.\n"+
			"On a terminal, stderr shows the file running and its records done.\n\n"+
			"example: streamdb slt tests/slt/*.slt\n\nflags:\n", sltSummary)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return false, err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "streamdb slt: no files given")
		fs.Usage()
		return false, usageError{errors.New("slt: no files given")}
	}
	var sum slt.Summary
	// On a terminal, stderr shows the file running and its records done.
	line := newProgressLine(stderr)
	opts := slt.Options{OnProgress: func(p slt.Progress) {
		line.Update(sltProgress(p), p.Done == 0 || p.Done == p.Total)
	}}
	if *url != "" {
		open := func(ctx context.Context) (slt.Conn, error) { return slt.DialPG(ctx, *url) }
		sum, err = slt.Run(ctx, open, fs.Args(), opts)
	} else {
		sum, err = runSLTInProcess(ctx, *dataDir, fs.Args(), opts)
	}
	line.Clear()
	for _, f := range sum.Failures {
		fmt.Fprintln(stdout, f.String())
	}
	fmt.Fprintln(stdout, slt.FormatSummary(sum))
	return sum.Failed > 0, err
}
