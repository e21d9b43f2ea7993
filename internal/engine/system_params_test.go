package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestAlterSystemBarrierInterval: ALTER SYSTEM SET barrier_interval_ms
// takes effect at once (a coordinator ticking once an hour starts
// committing epochs on its own), shows in SHOW PARAMETERS and SHOW
// name, survives a restart where it wins over the Options, and RESET
// returns to the Options' value; bad values and names are refused with
// PostgreSQL's codes and change nothing.
func TestAlterSystemBarrierInterval(t *testing.T) {
	dir := t.TempDir()
	opts := &Options{NoSync: true, BarrierInterval: time.Hour}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := db.NewSession()
	mustExec(t, s, "CREATE TABLE t (a int)")
	if got := dashQuery(t, db, "SHOW barrier_interval_ms"); len(got) != 1 || got[0][0] != "3600000" {
		t.Fatalf("SHOW barrier_interval_ms before = %v", got)
	}
	before := db.coord.CommittedEpoch()
	mustExec(t, s, "ALTER SYSTEM SET barrier_interval_ms = 20")
	// Nothing asks for a barrier: only the ticker can advance the
	// epoch, and at the old interval it would not tick for an hour.
	deadline := time.Now().Add(20 * time.Second)
	for db.coord.CommittedEpoch() < before+3 {
		if time.Now().After(deadline) {
			t.Fatalf("no barriers after ALTER SYSTEM SET barrier_interval_ms = 20: epoch %d, was %d", db.coord.CommittedEpoch(), before)
		}
		time.Sleep(5 * time.Millisecond)
	}
	got := dashQuery(t, db, "SHOW PARAMETERS")
	if len(got) != 1 || got[0][0] != "barrier_interval_ms" || got[0][1] != "20" || got[0][2] != "t" {
		t.Fatalf("SHOW PARAMETERS = %v", got)
	}
	for q, code := range map[string]string{
		"ALTER SYSTEM SET barrier_interval_ms = 5":       pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET barrier_interval_ms = -100":    pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET barrier_interval_ms = 'soon'":  pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET barrier_interval_ms = 4000000": pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET no_such_param = 1":             pgerr.UndefinedObject,
		"ALTER SYSTEM RESET no_such_param":               pgerr.UndefinedObject,
	} {
		if _, err := s.Exec(context.Background(), q); pgerr.As(err) == nil || pgerr.As(err).Code != code {
			t.Errorf("%s: got %v, want %s", q, err, code)
		}
	}
	if got := dashQuery(t, db, "SHOW barrier_interval_ms"); got[0][0] != "20" {
		t.Fatalf("a refused value changed the interval: %v", got)
	}
	mustExec(t, s, "ALTER SYSTEM SET barrier_interval_ms TO '250'")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// The stored value wins over the Options at the next Open.
	db, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	s = db.NewSession()
	if got := dashQuery(t, db, "SHOW barrier_interval_ms"); got[0][0] != "250" || db.coord.BarrierInterval() != 250*time.Millisecond {
		t.Fatalf("after a restart: SHOW %v, coordinator %v", got, db.coord.BarrierInterval())
	}
	mustExec(t, s, "ALTER SYSTEM RESET barrier_interval_ms")
	if got := dashQuery(t, db, "SHOW barrier_interval_ms"); got[0][0] != "3600000" {
		t.Fatalf("after RESET: %v", got)
	}
	mustExec(t, s, "ALTER SYSTEM SET barrier_interval_ms = 40", "ALTER SYSTEM SET barrier_interval_ms TO DEFAULT")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, &Options{NoSync: true, BarrierInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := dashQuery(t, db, "SHOW barrier_interval_ms"); got[0][0] != "300" {
		t.Fatalf("after RESET and a restart: %v, want the Options' 300", got)
	}
	if _, err := db.NewSession().Exec(context.Background(), "SHOW no_such_param"); err == nil || !strings.Contains(err.Error(), "unrecognized configuration parameter") {
		t.Fatalf("SHOW of an unknown name: %v", err)
	}
}
