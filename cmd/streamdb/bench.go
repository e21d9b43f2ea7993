package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/bench"
)

// runBench runs `streamdb bench`: the scenarios on a fresh embedded data
// dir each, and with --compare postgres the same work on a PostgreSQL
// server it starts, printed side by side.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	rows := fs.Int64("rows", 10_000_000, "rows of the load and backfill tables")
	fresh := fs.Int("freshness", 10_000, "single-row INSERTs timed by the freshness scenario")
	pgFresh := fs.Int("pg-freshness", 20, "REFRESHes timed on PostgreSQL by the freshness scenario (each rereads the table)")
	nexmark := fs.Int64("nexmark-events", 10_000_000, "events of the Nexmark stream per query")
	isoRepeat := fs.Int("isolation-repeat", 1, "isolation scenario: how many times the group-by and group-by-adaptive backfills run, their samples pooled")
	isoWindow := fs.Duration("isolation-window", 10*time.Second, "isolation scenario: length of its idle phase, and of its rate-limited backfill (rate: rows per window)")
	kafkaRows := fs.Int64("kafka-rows", 1_000_000, "kafka scenario: messages kafka/ingest produces and loads")
	kafkaRate := fs.Int("kafka-rate", 200, "kafka scenario: writes per second of each kafka/latency step")
	kafkaWindow := fs.Duration("kafka-window", 10*time.Second, "kafka scenario: how long each kafka/latency step writes")
	barrierInterval := fs.Duration("barrier-interval", 0, "streamdb's barrier interval (0: its default, 1s); sources' rows reach views and sinks at barriers")
	compare := fs.String("compare", "", `"postgres": also run every scenario on a PostgreSQL server started for the run`)
	cpuprofile := fs.String("cpuprofile", "", "path prefix: CPU-profile each streamdb step into PREFIX-SCENARIO.pprof")
	memprofile := fs.String("memprofile", "", "path prefix: heap profile of each streamdb step at its highest RSS, into PREFIX-SCENARIO.heap")
	traceOut := fs.String("trace", "", "path prefix: execution trace of each streamdb step (each isolation phase) into PREFIX-SCENARIO.trace")
	isoPhases := fs.String("isolation-phases", "", "isolation scenario: comma-separated phases to run (default: all), e.g. idle,group-by,group-by-adaptive,busy,busy-group-by,busy-group-by-adaptive")
	stateEvery := fs.Duration("state-every", 0, "windowed scenario: sample the views' state this often (each sample scans it; 0: only at the end)")
	tmp := fs.String("tmp", "", "directory for the data dirs (default: the system's temp dir)")
	plot := fs.String("plot", "", "also write the results as a chart (grouped bars, streamdb next to PostgreSQL) to this `FILE` (.svg)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: streamdb bench [flags] [SCENARIO...]\n\n%s\n\n"+
			"SCENARIO... names the scenarios to run, in order (default: all of them):\n  %s,\n"+
			"  nexmark/QUERY (one Nexmark query), windowed/QUERY[-no-watermark], kafka/STEP (%s;\n"+
			"  on an in-process Kafka cluster, no broker needed)\n"+
			"Each runs on a fresh data dir; the results print as a table (and, with --plot, as a chart).\n\n"+
			"example: streamdb bench --rows 1000000 --compare postgres load backfill\n\nflags:\n",
			benchSummary, strings.Join(bench.Scenarios, ", "), strings.Join(bench.KafkaSteps, ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *compare != "" && *compare != "postgres" {
		return fmt.Errorf("--compare %q: only postgres is supported", *compare)
	}
	if *plot != "" {
		if err := bench.CheckPlotPath(*plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	progress := startBenchProgress(stderr) // on a terminal: the step running
	results, err := bench.Run(ctx, bench.Config{
		Scenarios: fs.Args(), Rows: *rows, Freshness: *fresh, PGFreshness: *pgFresh, NexmarkEvents: *nexmark,
		IsolationWindow: *isoWindow, IsolationRepeat: *isoRepeat, IsolationPhases: splitList(*isoPhases), StateEvery: *stateEvery,
		BarrierInterval: *barrierInterval,
		KafkaRows:       *kafkaRows, KafkaRate: *kafkaRate, KafkaWindow: *kafkaWindow,
		Compare: *compare == "postgres", TempDir: *tmp, Log: progress.Log(), CPUProfile: *cpuprofile, MemProfile: *memprofile, Trace: *traceOut,
		Progress: progress.Step,
	})
	progress.Stop()
	if perr := bench.Print(stdout, results); err == nil {
		err = perr
	}
	if *plot != "" {
		if perr := bench.WritePlot(*plot, results); err == nil {
			err = perr
		}
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("%s %s failed", r.System, r.Scenario)
		}
	}
	return nil
}

// splitList splits a comma-separated flag value (nil when empty).
func splitList(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
