package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The busy phases of the isolation scenario (issue 16: "on a saturated
// machine, a backfill takes the CPU that live views do not need") run
// live work that wants every core next to the phase: busyConns
// connections each inserting busyBatch-row statements into hot, which
// a GROUP BY view follows, back to back. What the live work got done in
// a phase (its rows per second, next to the busy phase's without a
// backfill) shows how much of the machine a backfill took from it; the
// phase's length how fast the backfill went meanwhile.
const (
	busyConns = 2
	busyBatch = 2_000
	busyDDL   = "CREATE MATERIALIZED VIEW hot_v AS SELECT k, count(*) AS n, sum(v) AS s FROM hot GROUP BY k"
)

// busyLoad is the running live work of a busy phase: goroutines owned
// by it, stopped and joined by finish.
type busyLoad struct {
	conns []*pgx.Conn
	next  *atomic.Int64 // the next id of hot, shared by the phases
	rows  atomic.Int64  // rows inserted by statements that returned
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error
}

// startBusy connects busyConns connections to st and starts the live
// work on them.
func startBusy(ctx context.Context, st *streamdbTarget, next *atomic.Int64) (*busyLoad, error) {
	b := &busyLoad{next: next, stop: make(chan struct{})}
	for range busyConns {
		c, err := st.connect(ctx)
		if err != nil {
			b.closeConns()
			return nil, err
		}
		b.conns = append(b.conns, c)
	}
	for _, c := range b.conns {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for {
				select {
				case <-b.stop:
					return
				default:
				}
				lo := b.next.Add(busyBatch) - busyBatch
				if _, err := c.Exec(ctx, "INSERT INTO hot SELECT g, g % 1000, g FROM generate_series($1::bigint, $2::bigint) AS g",
					lo, lo+busyBatch-1); err != nil {
					b.mu.Lock()
					b.err = errors.Join(b.err, fmt.Errorf("busy load: %w", err))
					b.mu.Unlock()
					return
				}
				b.rows.Add(busyBatch)
			}
		}()
	}
	return b, nil
}

// finish stops the live work, joins it and returns the rows it inserted.
func (b *busyLoad) finish() (int64, error) {
	close(b.stop)
	b.wg.Wait()
	b.closeConns()
	return b.rows.Load(), b.err
}

func (b *busyLoad) closeConns() {
	for _, c := range b.conns {
		c.Close(context.Background())
	}
}

// busyAlone runs the live work alone for d and returns the rows it
// inserted: the yardstick of a busy phase that ran for d (see
// session.isolation).
func (s *session) busyAlone(st *streamdbTarget, next *atomic.Int64, d time.Duration) (int64, error) {
	b, err := startBusy(s.ctx, st, next)
	if err != nil {
		return 0, err
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-s.ctx.Done():
		t.Stop()
	}
	rows, err := b.finish()
	return rows, errors.Join(err, s.ctx.Err())
}
