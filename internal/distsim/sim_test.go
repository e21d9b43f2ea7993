package distsim

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// envInt reads a positive integer from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
}

// TestSimSeeds runs the simulation over many seeds: 200 by default,
// STREAMDB_SIM_SEEDS=n for more, STREAMDB_SIM_SEED=s for one (with
// STREAMDB_SIM_TRACE=1 to print its whole trace). Every run must pass
// every check; the totals show what the runs went through.
func TestSimSeeds(t *testing.T) {
	seeds := make([]uint64, 0)
	if one := os.Getenv("STREAMDB_SIM_SEED"); one != "" {
		s, err := strconv.ParseUint(one, 10, 64)
		if err != nil {
			t.Fatalf("STREAMDB_SIM_SEED=%q: %v", one, err)
		}
		seeds = append(seeds, s)
	} else {
		for s := range envInt(t, "STREAMDB_SIM_SEEDS", 200) {
			seeds = append(seeds, uint64(s)+1)
		}
	}
	var total Stats
	for _, seed := range seeds {
		res, err := Run(Config{Seed: seed})
		if os.Getenv("STREAMDB_SIM_TRACE") != "" {
			t.Logf("seed %d trace:\n%s", seed, strings.Join(res.Trace, "\n"))
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		addStats(&total, res.Stats)
	}
	t.Logf("%d seeds: %+v", len(seeds), total)
	if len(seeds) >= 100 {
		// The runs went through what the checks are about.
		for name, n := range map[string]int{"crashes": total.Crashes, "zombies": total.Zombies,
			"expulsions": total.Expelled, "fenced": total.Fenced, "unstable offset waits": total.UnstableWaits,
			"commits after expulsion": total.CommitsAfterExpulsion,
			"restores":                total.Restores, "rebalances": total.Rebalances} {
			if n == 0 {
				t.Errorf("no run had any %s", name)
			}
		}
	}
}

func addStats(a *Stats, b Stats) {
	a.Events += b.Events
	a.Commits += b.Commits
	a.Crashes += b.Crashes
	a.Restarts += b.Restarts
	a.Freezes += b.Freezes
	a.Zombies += b.Zombies
	a.Rebalances += b.Rebalances
	a.Expelled += b.Expelled
	a.Fenced += b.Fenced
	a.UnstableWaits += b.UnstableWaits
	a.CommitsAfterExpulsion += b.CommitsAfterExpulsion
	a.Restores += b.Restores
	a.StateChecks += b.StateChecks
	a.QuiesceRounds += b.QuiesceRounds
}

// TestSimDeterministic: a seed replays exactly, event for event.
func TestSimDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		a, errA := Run(Config{Seed: seed})
		b, errB := Run(Config{Seed: seed})
		if (errA == nil) != (errB == nil) || !slices.Equal(a.Trace, b.Trace) {
			t.Fatalf("seed %d ran two ways (%d and %d events)", seed, len(a.Trace), len(b.Trace))
		}
	}
}

// TestSimChecksBite runs each broken variant of the design (Faults)
// with one check at a time and requires the checks listed to catch it on
// their own (some seed fails that check), so a check that cannot fail
// shows here. The first catching seed of every pair is logged (-v).
func TestSimChecksBite(t *testing.T) {
	const maxSeeds = 400
	for _, c := range []struct {
		name   string
		faults Faults
		by     []Checks // the checks that must each catch it alone
	}{
		{"offsets outside the transaction", Faults{OffsetsOutsideTxn: true}, []Checks{CheckState, CheckOutput}},
		{"no zombie fencing", Faults{NoZombieFencing: true}, []Checks{CheckState, CheckOutput, CheckZombies}},
		{"unstable offset fetch", Faults{UnstableOffsetFetch: true}, []Checks{CheckState, CheckOutput}},
		{"restore read_uncommitted", Faults{RestoreUncommitted: true}, []Checks{CheckState, CheckOutput}},
		{"no replay filter", Faults{NoReplayFilter: true}, []Checks{CheckState, CheckOutput}},
		{"commit the read position", Faults{CommitReadPosition: true}, []Checks{CheckState, CheckOutput}},
	} {
		for _, check := range c.by {
			t.Run(c.name+"/"+checkName(check), func(t *testing.T) {
				for seed := uint64(1); seed <= maxSeeds; seed++ {
					_, err := Run(Config{Seed: seed, Faults: c.faults, Checks: check})
					if err == nil {
						continue
					}
					var f *Failure
					if !errors.As(err, &f) {
						t.Fatalf("seed %d: %v is not a *Failure", seed, err)
					}
					first, _, _ := strings.Cut(f.Err.Error(), "\n")
					t.Logf("caught by seed %d: %s", seed, first)
					return
				}
				t.Fatalf("no seed of %d caught it", maxSeeds)
			})
		}
	}
}

func checkName(c Checks) string {
	switch c {
	case CheckState:
		return "state"
	case CheckOutput:
		return "output"
	case CheckZombies:
		return "zombies"
	}
	return "checks"
}
