//go:build invariants

package failpoint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
)

// Enabled reports whether failpoints are compiled in.
const Enabled = true

// point is one failpoint. state is nil while the point is off.
type point struct {
	state atomic.Pointer[state]
	hits  atomic.Int64 // hits while enabled
	fired atomic.Int64
}

type state struct {
	spec Spec
	mu   sync.Mutex // guards rng
	rng  *rand.Rand
}

// points is built once at init and only read afterwards.
var points = func() map[string]*point {
	m := make(map[string]*point, len(Names))
	for _, n := range Names {
		m[n] = &point{}
	}
	return m
}()

func init() {
	s := os.Getenv("STREAMDB_FAILPOINTS")
	if s == "" {
		return
	}
	specs, err := Parse(s)
	if err != nil {
		panic(fmt.Sprintf("STREAMDB_FAILPOINTS: %v", err))
	}
	for name, spec := range specs {
		_, _ = Enable(name, spec)
	}
}

// Hit evaluates failpoint name: nil unless it fires; then an *InjectedError for
// Error and End, or a panic for Panic.
func Hit(name string) error {
	p := points[name]
	if p == nil {
		panic("failpoint: unknown failpoint " + name)
	}
	st := p.state.Load()
	if st == nil {
		return nil
	}
	n := p.hits.Add(1)
	if n <= st.spec.After || !st.draw() {
		return nil
	}
	if f := p.fired.Add(1); st.spec.Times > 0 && f > st.spec.Times {
		p.fired.Add(-1)
		return nil
	}
	err := &InjectedError{Name: name, Action: st.spec.Action}
	switch st.spec.Action {
	case Panic:
		panic(err)
	case Exit:
		fmt.Fprintf(os.Stderr, "%v: exiting\n", err)
		os.Exit(3)
	}
	return err
}

func (s *state) draw() bool {
	if s.spec.Prob <= 0 || s.spec.Prob >= 1 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < s.spec.Prob
}

// Enable turns failpoint name on with spec, zeroing its counts; the
// function returned turns it off.
func Enable(name string, spec Spec) (disable func(), err error) {
	p := points[name]
	if p == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	if spec.Action < Error || spec.Action > Exit {
		return nil, fmt.Errorf("failpoint %s: no action", name)
	}
	p.state.Store(nil)
	p.hits.Store(0)
	p.fired.Store(0)
	p.state.Store(&state{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed, 0x5eed))})
	return func() { Disable(name) }, nil
}

// Disable turns failpoint name off (its counts stay for Stats).
func Disable(name string) {
	if p := points[name]; p != nil {
		p.state.Store(nil)
	}
}

// Reset turns every failpoint off.
func Reset() {
	for _, p := range points {
		p.state.Store(nil)
	}
}

// Stats returns how often failpoint name was hit while enabled and how
// often it fired, since it was last enabled.
func Stats(name string) (hits, fired int64) {
	p := points[name]
	if p == nil {
		return 0, 0
	}
	return p.hits.Load(), p.fired.Load()
}
