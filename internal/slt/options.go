package slt

import (
	"context"
	"os"
	"time"
)

// DefaultLabel is the label skipif/onlyif see when Options.Labels is nil.
const DefaultLabel = "streamdb"

// Options tune a Run. The zero value is ready to use; EnsureDefaults fills
// in every unset field.
type Options struct {
	// Labels are what `skipif L` / `onlyif L` test against. nil means
	// {DefaultLabel}; an empty non-nil slice means no labels at all.
	Labels []string
	// LookupEnv resolves $NAME and ${NAME} under `control substitution on`.
	// nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// TestDir is the value of $__TEST_DIR__. Empty means a fresh temporary
	// directory per file, created on first use and removed when the file
	// ends.
	TestDir string
	// Sleep waits for `sleep` records and retry backoff. nil means a timer
	// that ctx interrupts.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnFailure, when set, is called with each failure as it is recorded,
	// so a caller can stream them instead of waiting for the Summary.
	OnFailure func(Failure)
	// OnProgress, when set, is called on Run's goroutine as each file
	// starts (Done 0) and after each of its records, so a caller can show
	// how far the run is.
	OnProgress func(Progress)
}

// Progress is where a Run stands: the file it is running, how many of
// that file's records (after include expansion) are done, and the run's
// counts so far.
type Progress struct {
	File                    string
	Done, Total             int
	Passed, Failed, Skipped int
}

// EnsureDefaults fills the unset fields of o with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Labels == nil {
		o.Labels = []string{DefaultLabel}
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
}

// labelSet returns the labels as a set.
func (o *Options) labelSet() map[string]bool {
	set := make(map[string]bool, len(o.Labels))
	for _, l := range o.Labels {
		set[l] = true
	}
	return set
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
