package dashboard

import (
	"sync"
	"time"
)

// History is a fixed ring of the last samples. Its methods are safe for
// concurrent use: one goroutine adds, requests read.
type History struct {
	interval time.Duration

	mu   sync.Mutex
	ring []Sample
	next int // where the next sample goes
	full bool
}

// NewHistory returns a history of capacity samples taken every interval.
func NewHistory(capacity int, interval time.Duration) *History {
	return &History{interval: interval, ring: make([]Sample, max(capacity, 1))}
}

// Interval returns the time between samples.
func (h *History) Interval() time.Duration { return h.interval }

// Add adds a sample, dropping the oldest when the ring is full.
func (h *History) Add(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ring[h.next] = s
	h.next++
	if h.next == len(h.ring) {
		h.next, h.full = 0, true
	}
}

// Since returns the samples taken after t (Unix milliseconds), oldest
// first.
func (h *History) Since(t int64) []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Sample
	add := func(ss []Sample) {
		for _, s := range ss {
			if s.T > t {
				out = append(out, s)
			}
		}
	}
	if h.full {
		add(h.ring[h.next:])
	}
	add(h.ring[:h.next])
	return out
}

// Reply returns the samples taken after t as the API sends them.
func (h *History) Reply(t int64) *HistoryReply {
	return &HistoryReply{IntervalMillis: h.interval.Milliseconds(), Samples: h.Since(t)}
}
