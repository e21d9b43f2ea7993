package stream

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Column pruning at a source. A SOURCE stores nothing: the rows its
// connector generates only flow, through its actor's exchanges, to the
// scans of the views (and sinks, subscriptions) over it, and each of
// those reads only the columns its plan reads (ScanOptions.Read), leaving
// the others NULL. An exchange carries its receivers' read set
// (Exchange.SetReads); before each chunk, a ConnectorSource whose
// generator can leave columns out (ColumnPruner) asks for the union of
// its actor's exchanges' sets and has the generator make only those
// columns, filling the others with NULLs: nobody reads them.
//
// Why it is safe: the exchanges change only at barriers, on the actor's
// own goroutine (Dispatcher.applyBeforeBarrier), and the union is read on
// that goroutine before every chunk, so a view added at barrier B reads
// its columns in every row after B, the only rows it receives from a
// source. An output that does not say what it reads (a broadcast Output,
// an exchange without a read set) reads every column. A TABLE never
// prunes: it stores its rows. What a row's columns hold does not depend
// on which are made (see connector.nexmark's PruneColumns), so a replay
// after a failure makes the same values.

// ColumnPruner is implemented by an Appender that can leave columns out.
type ColumnPruner interface {
	// PruneColumns sets the columns AppendRow fills: those j with
	// read[j] (one per column of the generator; nil: every column).
	// AppendRow then appends nothing to the others.
	PruneColumns(read []bool)
}

// SetReads sets what the receivers of e read: read[i] for column i of
// the upstream (nil: every column).
func (e *Exchange) SetReads(read []bool) { e.reads = read }

// ReadColumns returns in dst the union of the columns (of n) the
// dispatcher's receivers read; nil when one of them reads every column,
// or when it has no exchange.
func (d *Dispatcher) ReadColumns(dst []bool, n int) []bool {
	if len(d.outputs) > 0 || len(d.exchanges) == 0 {
		return nil
	}
	dst = append(dst[:0], make([]bool, n)...)
	for _, e := range d.exchanges {
		if e.reads == nil {
			return nil
		}
		for i, r := range e.reads[:min(n, len(e.reads))] {
			dst[i] = dst[i] || r
		}
	}
	for _, r := range dst {
		if !r {
			return dst
		}
	}
	return nil
}

// SetReads makes the source generate only the columns reads reports
// (called before every chunk, on the actor's goroutine; it fills dst,
// one entry per column of the source, or returns nil for every column).
// A generator that cannot leave columns out ignores it.
func (s *ConnectorSource) SetReads(reads func(dst []bool) []bool) {
	p, ok := s.appender.(ColumnPruner)
	if !ok || reads == nil {
		s.prune = nil
		return
	}
	s.prune = &sourcePrune{reads: reads, pruner: p}
}

// sourcePrune keeps a ConnectorSource's generator told which columns are
// read.
type sourcePrune struct {
	reads  func(dst []bool) []bool
	pruner ColumnPruner
	buf    []bool
	cur    []bool // what the pruner was last told (nil: every column)
}

// columns returns the columns of n the generator fills for the next
// chunk (nil: all), telling it first when they changed.
func (p *sourcePrune) columns(n int) []bool {
	if p == nil {
		return nil
	}
	read := p.reads(p.buf)
	if read != nil {
		p.buf = read
	}
	if len(read) < n {
		read = nil // every column, or (a shorter set) as good as not knowing
	} else {
		read = read[:n]
	}
	if (read == nil) != (p.cur == nil) || !slices.Equal(read, p.cur) {
		if read == nil {
			p.cur = nil
		} else {
			p.cur = append(make([]bool, 0, n), read...)
		}
		p.pruner.PruneColumns(p.cur)
	}
	return p.cur
}

// fillUnread appends n NULLs to each column not in read (nil: none).
func fillUnread(cols []array.Builder, read []bool, n int64) {
	for j, r := range read {
		if !r {
			cols[j].AppendNulls(int(n))
		}
	}
}
