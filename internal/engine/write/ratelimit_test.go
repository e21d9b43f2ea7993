package write

import (
	"context"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

func TestDMLLimiterChanges(t *testing.T) {
	l := newLimiter()
	ctx := context.Background()
	if err := l.wait(ctx, nil, "t", 1e9); err != nil { // no limit: at once
		t.Fatal(err)
	}
	l.Set(10, false)
	// 100 rows at 10/s would take 10s; raising the limit mid-wait
	// shortens the wait.
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- l.wait(ctx, nil, "t", 100) }()
	time.Sleep(50 * time.Millisecond)
	l.Set(1000, false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("raising the limit did not shorten the wait")
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Fatalf("waited only %v", el)
	}
	// Paused: waits until resumed; a cancel refunds.
	l.Set(0, true)
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := l.wait(cctx, nil, "t", 1); pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("paused wait: %v", err)
	}
	go func() { done <- l.wait(ctx, nil, "t", 1) }()
	time.Sleep(20 * time.Millisecond)
	l.Set(0, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	l.Set(0, true)
	go func() { done <- l.wait(ctx, nil, "t", 1) }()
	time.Sleep(20 * time.Millisecond)
	l.Close()
	if err := <-done; pgerr.Code(err) != pgerr.UndefinedTable {
		t.Fatalf("wait on a closed limiter: %v", err)
	}
}
