// Command streamdb serves a streamdb database over the Postgres wire
// protocol, and runs sqllogictest files.
//
//	streamdb [serve] [--listen 127.0.0.1:4566] [--data-dir ./streamdb-data]
//	streamdb slt [--url postgres://...] FILE...
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
	default:
		err = fmt.Errorf("unknown command %q (commands: serve, slt)", cmd)
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
	verbose := fs.Bool("v", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	db, err := streamdb.Open(*dataDir, &streamdb.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := pgwire.NewServer(db.Backend(), pgwire.Options{Addr: *listen, Logger: logger})
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
