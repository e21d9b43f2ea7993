package write

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/streamdb/streamdb/storage"
)

// A bulk ingest in parts.
//
// Checking a large statement's keys and writing them to sstables (the
// walk of checkStaged) costs as much as parsing them did, and it runs
// while the client waits for the statement's tag. It splits cleanly by
// key range: the staged runs record where each vnode's keys begin
// (keyRun.starts), equal keys share a vnode, and the committed keys a
// probe walks and the sstables a writer fills are ordered by key. So
// ingestStaged cuts the vnodes into ingestParts ranges of about equal
// size (keySorter.parts) and walks each range on a goroutine of its own,
// with its own merge, probe and IngestWriter; the ranges' sstables do not
// overlap and are ingested together (storage.JoinIngests).
//
// The goroutines are the statement's: ingestStaged starts them and waits
// for all of them before it returns, whatever happens. The first error
// cancels the others' context. The bad line reported is the least of
// every range's first bad line: the line checkStaged would find.

// ingestParts is how many ranges, at most, a bulk ingest is cut into (the
// goroutines that walk them): the Go scheduler's processors, up to 4 (a
// walk is bounded by its sstable writes beyond that). Zero: that default;
// tests set it.
var ingestParts = 0

// ingestPartRows is the fewest rows a range should hold to be worth a
// goroutine (a variable so tests can cut small statements too).
var ingestPartRows int64 = 64 << 10

// writeBlocks: a bulk ingest into a table with no key writes blocks (a
// variable so tests and benchmarks can compare with rows).
var writeBlocks = true

// ingestPartsHook, when set (by tests), gets the number of ranges of
// each bulk ingest.
var ingestPartsHook func(n int)

func partCount(rows int64) int {
	n := ingestParts
	if n == 0 {
		n = min(runtime.GOMAXPROCS(0), 4)
	}
	return int(max(1, min(int64(n), rows/ingestPartRows)))
}

// ingestStaged checks the staged keys of rows rows as checkStaged does
// (all lines; probing committed keys when probe is set) and writes them
// to staged sstables, returned as one Ingest when no line is bad; else it
// returns the first bad line and its encoded row, and nothing stays
// staged.
func (t *dmlTarget) ingestStaged(ctx context.Context, keys *keySorter, rows int64, probe bool) (in *storage.Ingest, badRow []byte, badLine int64, err error) {
	if probe {
		// Settled here, before the goroutines read it.
		if _, err := t.snapEmpty(); err != nil {
			return nil, nil, -1, err
		}
	}
	// Into a table that holds no key at all (its first load, as most
	// bulk loads are), the rows go in columnar blocks (storage/block.go):
	// the DML lock keeps every other write out until they commit.
	blocks, err := t.layout.HoldsNoKey(t.snap)
	if err != nil {
		return nil, nil, -1, err
	}
	blocks = blocks && writeBlocks
	bounds := keys.parts(partCount(rows))
	parts := make([]ingestPart, len(bounds)-1)
	if ingestPartsHook != nil {
		ingestPartsHook(len(parts))
	}
	for i := range parts {
		w, err := t.w.e.Store().NewIngestWriter()
		if err != nil {
			abortParts(parts[:i])
			return nil, nil, -1, err
		}
		if blocks {
			w.WriteBlocks(t.layout)
		}
		parts[i] = ingestPart{w: w, m: keys.mergeRange(bounds[i], bounds[i+1])}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := range parts {
		p := &parts[i]
		wg.Go(func() {
			if p.walk(ctx, t, probe); p.err != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	badLine = -1
	for _, p := range parts {
		if err == nil {
			err = p.err
		}
		if p.badLine >= 0 && (badLine < 0 || p.badLine < badLine) {
			badLine, badRow = p.badLine, p.badRow
		}
	}
	if err != nil || badLine >= 0 {
		abortParts(parts)
		return nil, badRow, badLine, err
	}
	ins := make([]*storage.Ingest, 0, len(parts))
	for i, p := range parts {
		in, err := p.w.Finish()
		if err != nil {
			abortParts(parts[i+1:])
			storage.JoinIngests(ins...).Discard()
			return nil, nil, -1, err
		}
		ins = append(ins, in)
	}
	return storage.JoinIngests(ins...), nil, -1, nil
}

// ingestPart is one range of a bulk ingest: its merged keys, its writer,
// and what its walk found.
type ingestPart struct {
	m       keyCursor
	w       *storage.IngestWriter
	badRow  []byte
	badLine int64
	err     error
}

// walk checks the part's keys and writes them to its writer.
func (p *ingestPart) walk(ctx context.Context, t *dmlTarget, probe bool) {
	p.badLine = -1
	kp, err := t.keyProbe(probe)
	if err != nil {
		p.err = err
		return
	}
	if kp != nil {
		defer kp.Close()
	}
	p.badRow, p.badLine, p.err = checkKeys(ctx, p.m, math.MaxInt64, kp, p.w)
}

func abortParts(parts []ingestPart) {
	for _, p := range parts {
		if p.w != nil {
			p.w.Abort()
		}
	}
}
