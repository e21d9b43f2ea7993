//go:build linux

package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// kafkaScenarios are the rows the kafka scenario prints, in order.
var kafkaScenarios = []string{
	"kafka/ingest/copy-table", "kafka/ingest/table", "kafka/ingest/copy-view", "kafka/ingest/view", "kafka/ingest/upsert",
	"kafka/latency/at-least-once", "kafka/latency/exactly-once", "kafka/latency/kafka-to-kafka",
}

// TestKafka runs the kafka scenario small, on kfake in process: every
// step ran and checked what it loaded or received (a step that does not
// fails the run), each Kafka ingest row compares with its COPY
// baseline and each latency row has its percentiles; and the run leaves
// no goroutine and no data dir behind.
func TestKafka(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tmp := t.TempDir()
	results, err := Run(context.Background(), Config{Scenarios: []string{"kafka"}, KafkaRows: 3000, KafkaRate: 100,
		KafkaWindow: 300 * time.Millisecond, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(kafkaScenarios) {
		t.Fatalf("%d results, want %d: %+v", len(results), len(kafkaScenarios), results)
	}
	for i, r := range results {
		if r.Err != nil || r.System != "streamdb" || r.Scenario != kafkaScenarios[i] {
			t.Fatalf("result %d: %s %s: %v, want streamdb %s", i, r.System, r.Scenario, r.Err, kafkaScenarios[i])
		}
		if r.Rows <= 0 || r.Elapsed <= 0 {
			t.Errorf("%s: %d rows in %v", r.Scenario, r.Rows, r.Elapsed)
		}
		switch {
		case r.Scenario == "kafka/ingest/upsert":
			if r.Rows != upsertMessages(3000) || !strings.HasPrefix(r.Note, "rows/s of copy-table ") {
				t.Errorf("%s: %d rows, note %q", r.Scenario, r.Rows, r.Note)
			}
		case strings.HasPrefix(r.Scenario, "kafka/ingest/"):
			base := "copy-" + strings.TrimPrefix(strings.TrimPrefix(r.Scenario, "kafka/ingest/"), "copy-")
			if r.Rows != 3000 || !strings.HasPrefix(r.Note, "rows/s of "+base+" ") || !strings.HasSuffix(r.Note, "x") {
				t.Errorf("%s: %d rows, note %q", r.Scenario, r.Rows, r.Note)
			}
		default:
			// 100 a second for 0.3 s: the first at once, the last
			// before the window ends.
			if r.Rows > 30 || r.P99 < r.P50 || !strings.Contains(r.Note, "from start p50 ") {
				t.Errorf("%s: %d rows, p50 %v p99 %v, note %q", r.Scenario, r.Rows, r.P50, r.P99, r.Note)
			}
		}
	}
	var out bytes.Buffer
	if err := Print(&out, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("left in the temp dir: %v (%v)", left, err)
	}
}

// TestKafkaStep: kafka/STEP runs that step alone; an unknown step is
// refused before anything runs.
func TestKafkaStep(t *testing.T) {
	results, err := Run(context.Background(), Config{Scenarios: []string{"kafka/latency"}, KafkaRate: 50,
		KafkaWindow: 100 * time.Millisecond, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		got = append(got, r.Scenario)
	}
	if want := strings.Join(kafkaScenarios[5:], " "); strings.Join(got, " ") != want {
		t.Errorf("kafka/latency ran %v, want %s", got, want)
	}
	if _, err := Run(context.Background(), Config{Scenarios: []string{"kafka/nope"}}); err == nil || !strings.Contains(err.Error(), "unknown kafka step") {
		t.Errorf("kafka/nope: %v", err)
	}
}
