package stream

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// cpuSlots keeps a processor free for live work while a creating job
// computes (issue 16: a backfill never slows anyone else). Go's scheduler
// has no priorities: a goroutine woken for live work (a session's
// statement, the running graph's actors, the barrier loop) queues behind
// every runnable backfill goroutine, each running up to a time slice, so
// on a 2-core machine an unthrottled backfill delayed single-row INSERTs
// into unrelated tables by 40-130 ms (execution traces of streamdb bench
// isolation: the session goroutine spent most of its non-idle time
// runnable while backfill actors ran).
//
// So a creating job's actor computes only while it holds a slot, and
// while live work has been seen within liveWindow there are at most
// GOMAXPROCS-1 slots (at least one): the Go scheduler then always has a
// processor to run live work on at once. Without live work the slots are
// unbounded and a backfill takes the whole machine. An actor gives its
// slot up wherever it may block (a receive, a send into a full channel,
// a commit wait, a rate-limit wait) and takes one again when it has work:
// holding a slot while blocked on another backfill actor could deadlock.
// As a guard against a blocking point missed here, a slot waited for
// longer than overflowAfter is taken over the bound (and counted), so the
// bound can slow a backfill but never stop it.
type cpuSlots struct {
	mu      sync.Mutex
	held    int
	waiters []*slotWaiter // FIFO

	// liveUntil is when the live work last seen stops bounding the slots
	// (unix nanoseconds); live counts live work in flight.
	liveUntil atomic.Int64
	live      atomic.Int64
	// max is the bound while live work is around.
	max int
	// overflows counts slots taken over the bound after overflowAfter.
	overflows atomic.Int64
	// liveSeen counts the live work seen (noteLive's starts, noteActive's
	// chunks): the adaptive backfill rate's sign that there is live work
	// to protect in an interval (see CreatingJob.adapt).
	liveSeen atomic.Int64
}

type slotWaiter struct {
	granted chan struct{}
}

// liveWindow is how long after live work the slots stay bounded: a
// session's next statement, a writer's next row, usually comes sooner.
const liveWindow = 200 * time.Millisecond

// overflowAfter bounds a wait for a slot.
const overflowAfter = 50 * time.Millisecond

func newCPUSlots() *cpuSlots {
	return &cpuSlots{max: max(1, runtime.GOMAXPROCS(0)-1)}
}

// noteLive marks live work: in flight (delta +1, then -1 when it ends),
// the slots stay bounded until liveWindow after it ends.
func (s *cpuSlots) noteLive(delta int64) {
	if delta > 0 {
		s.liveSeen.Add(1)
	}
	s.live.Add(delta)
	s.liveUntil.Store(time.Now().Add(liveWindow).UnixNano())
}

// noteActive marks live work that was just seen (an actor of the running
// graph moving rows: a source's, a writer's).
func (s *cpuSlots) noteActive() {
	s.liveSeen.Add(1)
	s.liveUntil.Store(time.Now().Add(liveWindow).UnixNano())
}

// limit is the number of slots now, and until when it holds (zero: the
// slots are unbounded).
func (s *cpuSlots) limit(now time.Time) (n int, until time.Time) {
	if s.live.Load() > 0 {
		return s.max, now.Add(liveWindow)
	}
	if u := s.liveUntil.Load(); now.UnixNano() < u {
		return s.max, time.Unix(0, u)
	}
	return int(^uint(0) >> 1), time.Time{}
}

// acquire takes a slot for actor a (a background actor not holding one).
func (s *cpuSlots) acquire(ctx context.Context, a *Actor) {
	start := time.Now()
	s.mu.Lock()
	if n, _ := s.limit(start); s.held < n && len(s.waiters) == 0 {
		s.held++
		s.mu.Unlock()
		a.slot = true
		return
	}
	w := &slotWaiter{granted: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	t := time.NewTimer(overflowAfter)
	defer t.Stop()
	for {
		now := time.Now()
		_, until := s.limit(now)
		wait := start.Add(overflowAfter).Sub(now)
		if !until.IsZero() && until.Sub(now) < wait {
			wait = until.Sub(now)
		}
		t.Reset(max(wait, 0))
		select {
		case <-w.granted:
			a.slot = true
			return
		case <-ctx.Done():
		case <-t.C:
		}
		s.mu.Lock()
		select {
		case <-w.granted: // granted meanwhile: the slot is ours
			s.mu.Unlock()
			a.slot = true
			return
		default:
		}
		now = time.Now()
		n, _ := s.limit(now)
		over := now.Sub(start) >= overflowAfter
		if s.held < n || over || ctx.Err() != nil {
			s.removeLocked(w)
			s.held++
			if over && s.held > n {
				s.overflows.Add(1)
			}
			s.mu.Unlock()
			a.slot = true
			return
		}
		s.mu.Unlock()
	}
}

func (s *cpuSlots) removeLocked(w *slotWaiter) {
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return
		}
	}
}

// release gives a's slot back (a no-op when it holds none).
func (s *cpuSlots) release(a *Actor) {
	if !a.slot {
		return
	}
	a.slot = false
	s.mu.Lock()
	s.held--
	n, _ := s.limit(time.Now())
	for len(s.waiters) > 0 && s.held < n {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		s.held++
		close(w.granted)
	}
	s.mu.Unlock()
}

// mayBlock is called by an actor's code before it may block: a creating
// job's actor gives its slot up.
func mayBlock(ctx context.Context) {
	if ac := actorOf(ctx); ac != nil && ac.a.slot {
		ac.slots.release(ac.a)
	}
}

// working is called by an actor's code once it has work to do after
// blocking, and by the actor between messages: a creating job's actor
// takes a slot, and one that holds a slot while others wait for one, or
// while the slots are over their bound, goes to the back of the queue
// (an actor that never blocks, a scan, would hold its slot forever).
func working(ctx context.Context) {
	ac := actorOf(ctx)
	if ac == nil || !ac.a.background.Load() {
		return
	}
	if ac.a.slot {
		if !ac.slots.contended() {
			return
		}
		ac.slots.release(ac.a)
	}
	ac.slots.acquire(ctx, ac.a)
}

// contended reports whether a slot holder should let others go first.
func (s *cpuSlots) contended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiters) > 0 {
		return true
	}
	n, _ := s.limit(time.Now())
	return s.held > n
}
