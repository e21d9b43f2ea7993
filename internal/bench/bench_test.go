//go:build linux

package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgserver"
)

// TestSmoke runs every scenario at a tiny size, against PostgreSQL too
// where it is installed (always in CI, where .ci/run installs it), and
// checks that each step ran, verified its result and printed.
func TestSmoke(t *testing.T) {
	compare := true
	if _, err := pgserver.FindBin(); errors.Is(err, pgserver.ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Logf("no PostgreSQL: streamdb only (%v)", err)
		compare = false
	}
	results, err := Run(context.Background(), Config{Rows: 2000, Freshness: 20, PGFreshness: 3, NexmarkEvents: 2000, IsolationWindow: 300 * time.Millisecond, IsolationRepeat: 2, Compare: compare, TempDir: t.TempDir(),
		KafkaRows: 2000, KafkaRate: 100, KafkaWindow: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, s := range []string{"load/insert-select", "load/copy", "backfill/group-by", "backfill/join", "freshness"} {
		want["streamdb "+s] = true
		if compare {
			want["postgres "+s] = true
		}
	}
	want["streamdb backfill/group-by-unlimited"] = true
	for _, s := range kafkaScenarios {
		want["streamdb "+s] = true
	}
	for _, q := range NexmarkQueries {
		want["streamdb nexmark/"+q.Name] = true
	}
	for _, q := range WindowedQueries {
		want["streamdb windowed/"+q.Name] = true
		want["streamdb windowed/"+q.Name+"-no-watermark"] = true
	}
	for _, m := range []string{"insert", "fresh", "same"} {
		for _, ph := range []string{"idle", "group-by-limited", "group-by", "group-by-adaptive", "join", "live-join",
			"busy", "busy-group-by", "busy-group-by-adaptive"} {
			want["streamdb isolation/"+m+"/"+ph] = true
		}
	}
	for _, ph := range []string{"busy", "busy-group-by", "busy-group-by-adaptive"} {
		want["streamdb isolation/busy-load/"+ph] = true
	}
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s %s: %v", r.System, r.Scenario, r.Err)
		}
		if r.Rows <= 0 || r.Elapsed <= 0 {
			t.Errorf("%s %s: %d rows in %v", r.System, r.Scenario, r.Rows, r.Elapsed)
		}
		busyLoad := strings.HasPrefix(r.Scenario, "isolation/busy-load/") // throughput, not latency
		if (r.Scenario == "freshness" || strings.HasPrefix(r.Scenario, "isolation/") && !busyLoad) && (r.P50 <= 0 || r.P99 < r.P50) {
			t.Errorf("%s %s: p50 %v p99 %v", r.System, r.Scenario, r.P50, r.P99)
		}
		if strings.HasPrefix(r.Scenario, "windowed/") && (len(r.State) == 0 || r.State[len(r.State)-1].Events != 2000) {
			t.Errorf("%s: state samples %+v", r.Scenario, r.State)
		}
		if r.System == "postgres" && strings.HasPrefix(r.Scenario, "isolation/") {
			t.Errorf("isolation ran on PostgreSQL: %s", r.Scenario)
		}
		if strings.HasSuffix(r.Scenario, "/group-by-adaptive") && strings.HasPrefix(r.Scenario, "isolation/") && r.Rows < 2 {
			t.Errorf("%s: %d samples from two backfills (IsolationRepeat 2)", r.Scenario, r.Rows)
		}
		delete(want, r.System+" "+r.Scenario)
	}
	if len(want) > 0 {
		t.Errorf("steps missing from the results: %v", want)
	}
	var out bytes.Buffer
	if err := Print(&out, results); err != nil {
		t.Fatal(err)
	}
	// Every streamdb step prints its ratio to PostgreSQL, or events per
	// core for Nexmark, or (the adaptive backfill) its speed next to the
	// unlimited one.
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "streamdb" {
			continue
		}
		last := f[len(f)-1]
		switch {
		case (strings.HasPrefix(f[1], "nexmark/") || strings.HasPrefix(f[1], "windowed/")) && last != "ev/s/core":
			t.Errorf("nexmark or windowed row without events per core: %q", line)
		case strings.HasPrefix(f[1], "isolation/busy-load/"):
			if f[1] != "isolation/busy-load/busy" && !strings.Contains(line, "x of busy alone") || last != "alone" {
				t.Errorf("busy phase's live work without its ratio to the busy phase alone: %q", line)
			}
		case strings.HasPrefix(f[1], "isolation/") && !strings.HasSuffix(last, "x"):
			t.Errorf("isolation row without its ratio to idle: %q", line)
		case f[1] == "backfill/group-by-unlimited":
			if !strings.Contains(line, "backfill/group-by (adaptive, the default) at ") || last != "speed" {
				t.Errorf("unlimited backfill row without the adaptive one's speed next to it: %q", line)
			}
		case !strings.HasPrefix(f[1], "nexmark/") && !strings.HasPrefix(f[1], "windowed/") && !strings.HasPrefix(f[1], "isolation/") &&
			!strings.HasPrefix(f[1], "kafka/") && compare && !strings.HasSuffix(last, "x"):
			t.Errorf("row without a ratio to PostgreSQL: %q", line)
		}
	}
	t.Logf("\n%s", out.String())

	// The plot has a bar per timed step and two (p50, p99) per latency
	// step.
	var svg bytes.Buffer
	if err := WriteSVG(&svg, results); err != nil {
		t.Fatal(err)
	}
	wantBars := 0
	for _, r := range results {
		switch {
		case r.Err != nil:
		case r.P50 > 0:
			wantBars += 2
		case r.Elapsed > 0:
			wantBars++
		}
	}
	if p := readSVG(t, &svg); len(p.bars) != wantBars {
		t.Errorf("plot of the run: %d bars, want %d", len(p.bars), wantBars)
	}
}

func TestUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), Config{Scenarios: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), "unknown scenario") {
		t.Fatalf("got %v", err)
	}
}

// TestTraceEachPhase: --trace writes an execution trace of each
// isolation phase (and of each timed step), for go tool trace.
func TestTraceEachPhase(t *testing.T) {
	dir := t.TempDir()
	prefix := dir + "/run"
	if _, err := Run(context.Background(), Config{Scenarios: []string{"isolation", "backfill"}, Rows: 2000, IsolationWindow: 100 * time.Millisecond,
		TempDir: t.TempDir(), Trace: prefix}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"isolation-idle", "isolation-group-by-limited", "isolation-group-by", "isolation-group-by-adaptive", "isolation-join", "backfill-group-by", "backfill-join"} {
		fi, err := os.Stat(prefix + "-" + name + ".trace")
		if err != nil {
			t.Error(err)
		} else if fi.Size() == 0 {
			t.Errorf("%s: empty trace", fi.Name())
		}
	}
}

// TestIsolationPhases: IsolationPhases runs only the phases it names,
// each giving its rows (the busy-load ones included), and a name that is
// no phase fails the run.
func TestIsolationPhases(t *testing.T) {
	results, err := Run(context.Background(), Config{Scenarios: []string{"isolation"}, Rows: 2000, IsolationWindow: 100 * time.Millisecond,
		IsolationPhases: []string{"group-by-adaptive", "busy", "busy-group-by-adaptive"}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Scenario, r.Err)
		}
		got = append(got, r.Scenario)
	}
	want := []string{
		"isolation/insert/group-by-adaptive", "isolation/insert/busy", "isolation/insert/busy-group-by-adaptive",
		"isolation/fresh/group-by-adaptive", "isolation/fresh/busy", "isolation/fresh/busy-group-by-adaptive",
		"isolation/same/group-by-adaptive", "isolation/same/busy", "isolation/same/busy-group-by-adaptive",
		"isolation/busy-load/busy", "isolation/busy-load/busy-group-by-adaptive",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if n := results[len(results)-1].Note; !strings.Contains(n, "of busy alone") || !strings.Contains(n, "x of the busy phase") {
		t.Errorf("busy-load note %q: no comparison with the busy phase and with as long alone", n)
	}
	_, err = Run(context.Background(), Config{Scenarios: []string{"isolation"}, Rows: 100, IsolationPhases: []string{"idle", "nope"}, TempDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `unknown isolation phase "nope"`) {
		t.Fatalf("an unknown phase: %v", err)
	}
}
