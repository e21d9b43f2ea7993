package write

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Limiter paces the DML statements of one table: a token bucket of
// rows per second (DML_RATE_LIMIT), or a pause (a limit of 0).
//
// A statement's changes must commit in one epoch (see stream.Source), so
// a statement cannot be spread over time once it holds the table's
// source. It is paced before: once its rows are known, commit waits
// (holding only the table's DML lock, never the source, so barriers flow
// on) until the bucket holds tokens for them, then sends every chunk at
// once. The bucket may go into debt: a statement of n rows at a limit of
// r waits about n/r seconds (less what the bucket had saved), so a stream
// of statements writes r rows per second whatever their size. The bucket
// saves at most limiterBurst of idle time, which bounds the overshoot in
// any window to a tenth of a second's worth of rows.
//
// A change of limit or pause wakes waiters, who recompute their wait
// under the new setting; DEFAULT (no limit) lets them go at once. A
// canceled wait refunds its tokens. Dropping the table closes the
// limiter, failing its waiters, so a paused statement never blocks DROP.
type Limiter struct {
	mu      sync.Mutex
	rate    int64 // rows per second; 0: no limit
	paused  bool
	closed  bool
	tokens  float64
	last    time.Time
	changed chan struct{} // closed and replaced on every change
}

// limiterBurst is the most idle time the bucket saves up.
const limiterBurst = 100 * time.Millisecond

func newLimiter() *Limiter {
	return &Limiter{changed: make(chan struct{}), last: time.Now()}
}

// Set changes the limit; rate 0 with paused false removes it.
func (l *Limiter) Set(rate int64, paused bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate == rate && l.paused == paused {
		return
	}
	l.refill(time.Now())
	if l.rate == 0 || l.paused {
		// A new limit starts with an empty bucket.
		l.tokens = 0
	}
	l.rate, l.paused = rate, paused
	l.notify()
}

// Close fails waiting and future statements (the table was dropped).
func (l *Limiter) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.notify()
	}
}

func (l *Limiter) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// refill adds the tokens earned since last; l.mu is held.
func (l *Limiter) refill(now time.Time) {
	if l.rate > 0 && !l.paused {
		l.tokens += now.Sub(l.last).Seconds() * float64(l.rate)
		if max := float64(l.rate) * limiterBurst.Seconds(); l.tokens > max {
			l.tokens = max
		}
	}
	l.last = now
}

// wait returns when a statement of n rows may be sent into table name,
// or with an error when ctx ends, closing is closed (the database is
// closing) or the table is dropped.
func (l *Limiter) wait(ctx context.Context, closing <-chan struct{}, name string, n int64) error {
	if l == nil || n <= 0 {
		return nil
	}
	reserved := false // n tokens taken under the current setting
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
		now := time.Now()
		l.refill(now)
		var d time.Duration
		switch {
		case l.paused:
			if reserved {
				// Paused while waiting: give the tokens back.
				l.tokens += float64(n)
				reserved = false
			}
			d = -1
		case l.rate == 0:
			l.mu.Unlock()
			return nil
		default:
			if !reserved {
				l.tokens -= float64(n)
				reserved = true
			}
			if l.tokens >= 0 {
				l.mu.Unlock()
				return nil
			}
			d = time.Duration(math.Ceil(-l.tokens / float64(l.rate) * float64(time.Second)))
		}
		changed := l.changed
		l.mu.Unlock()
		var timer <-chan time.Time
		var t *time.Timer
		if d >= 0 {
			t = time.NewTimer(d)
			timer = t.C
		}
		stop := func() {
			if t != nil {
				t.Stop()
			}
		}
		select {
		case <-timer:
			// The tokens are earned; the next pass sees them.
			l.mu.Lock()
			l.refill(time.Now())
			if l.rate > 0 && !l.paused && l.tokens > -1e-6 {
				l.mu.Unlock()
				return nil
			}
			l.mu.Unlock()
		case <-changed:
			stop()
			// A rate change: the earned tokens are refilled under the old
			// rate by set; keep the reservation and recompute.
		case <-ctx.Done():
			stop()
			l.refund(reserved, n)
			return pgerr.As(ctx.Err())
		case <-closing:
			stop()
			l.refund(reserved, n)
			return pgerr.New(pgerr.AdminShutdown, "terminating statement: the database is closing")
		}
	}
}

func (l *Limiter) refund(reserved bool, n int64) {
	if !reserved {
		return
	}
	l.mu.Lock()
	l.tokens += float64(n)
	l.mu.Unlock()
}

// Reopen undoes close (a DROP that failed after closing it).
func (l *Limiter) Reopen() {
	l.mu.Lock()
	l.closed = false
	l.mu.Unlock()
}
