package expr

import (
	"context"
	"math"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// pg_sleep(seconds), pg_sleep_for(interval) and pg_sleep_until(timestamptz)
// wait, then return void, as in PostgreSQL 15. A wait ends when its
// statement does: psql's Ctrl-C (a CancelRequest) and statement_timeout
// cancel the statement's context, and the wait ends with 57014. That
// context is the batch statement's Instants.Ctx, which AtInstants gives the
// call; as built, with no statement to wait on, a call refuses to run,
// and a materialized view refuses it when planned (Sleeps): a wait in an
// actor would hold every barrier behind it.

// sleepSpans gives each sleeping function the wait its (non-NULL)
// arguments ask for.
var sleepSpans = map[string]func(a []types.Datum) time.Duration{
	"pg_sleep":       func(a []types.Datum) time.Duration { return secondsSpan(a[0].(float64)) },
	"pg_sleep_for":   func(a []types.Datum) time.Duration { return intervalSpan(a[0].(types.Interval)) },
	"pg_sleep_until": func(a []types.Datum) time.Duration { return time.Until(time.UnixMicro(int64(a[0].(types.Timestamp)))) },
}

func registerSleep() {
	refuse := func(name string) evalFn {
		return func([]types.Datum) (types.Datum, error) {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s() is supported only in a batch statement", name)
		}
	}
	register(overloads(fn1(tFloat8, types.IDVoid, refuse("pg_sleep"))), "pg_sleep")
	register(overloads(fn1(tIvl, types.IDVoid, refuse("pg_sleep_for"))), "pg_sleep_for")
	register(overloads(fn1(tTSTZ, types.IDVoid, refuse("pg_sleep_until"))), "pg_sleep_until")
}

// secondsSpan is a wait of s seconds: none for a negative or NaN s, as
// long as a Duration holds for a huge one.
func secondsSpan(s float64) time.Duration {
	switch {
	case math.IsNaN(s) || s <= 0:
		return 0
	case s >= float64(math.MaxInt64)/1e9:
		return math.MaxInt64
	}
	return time.Duration(s * 1e9)
}

// intervalSpan is the wait of an interval, a month counting 30 days and a
// day 24 hours (PostgreSQL adds it to the clock's time instead).
func intervalSpan(iv types.Interval) time.Duration {
	days := float64(iv.Months)*30 + float64(iv.Days)
	return secondsSpan(days*86400 + float64(iv.Micros)/1e6)
}

// sleepCall returns the implementation of a call of a sleeping function
// that waits on ctx; nil for other calls.
func sleepCall(c *call, ctx context.Context) evalFn {
	span := sleepSpans[c.name]
	if span == nil || ctx == nil {
		return nil
	}
	return func(a []types.Datum) (types.Datum, error) {
		if err := sleep(ctx, span(a)); err != nil {
			return nil, err
		}
		return "", nil
	}
}

// sleep waits for d, or until ctx ends (57014).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return pgCanceled(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return pgerr.As(ctx.Err())
	}
}

// pgCanceled is 57014 when ctx has ended, else nil.
func pgCanceled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return pgerr.As(err)
	}
	return nil
}

// Sleeps returns the name of a sleeping function e calls (pg_sleep ...),
// "" when none.
func Sleeps(e Expr) string {
	if c, ok := e.(*call); ok && sleepSpans[c.name] != nil {
		return c.name
	}
	for _, c := range e.Children() {
		if n := Sleeps(c); n != "" {
			return n
		}
	}
	return ""
}
