package stream

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// IntervalWatermark is how a HashJoin drops the state of an interval
// join: one whose condition bounds a column of each side by a column of
// the other, both bounded by the watermark of table Table, as in
//
//	a JOIN b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '10 seconds' AND b.ts
//
// or Nexmark's q7 (bids joined with the top price of their window). The
// join key does not close (a.k comes back), so the rows to drop are not
// a key range, as JoinSpec.Watermark's are: Sides[s] lists the
// conjuncts of the condition by which a stored row of side s (0 left, 1
// right) can go.
//
// A row goes when no change still to come on the other side can match
// it (a conjunct proves it, see IntervalBound) and no change of the row
// itself can come (its column is below its own side's bound; a change
// of it probes the other side only, so this is a margin, and a cheap
// one). A change still to come therefore finds every stored row it
// matches, its retraction included: the rows it joined with, the
// degrees of preserved rows (outer, semi and anti joins) and their
// padded rows stay right, and a row that goes keeps, in the output,
// the padded row or the joined rows no change can move any more.
type IntervalWatermark struct {
	Table uint32
	Sides [2][]IntervalBound
}

// IntervalBound is one conjunct of a join's condition that lets the rows
// of a side go. Col is the side's column and OtherCol the other side's;
// every change still to come on each side has a value of at least the
// least of Bounds (OtherBounds), expressions over the one-column row
// [the watermark of IntervalWatermark.Table].
//
// Match is the conjunct over the side's row followed by one column, the
// other side's OtherCol; it only gets harder to satisfy as that column
// grows (the other side's expression in it never decreases, and is on
// the side of the comparison that must stay smaller or larger
// accordingly). So a stored row for which Match is not true with
// OtherCol at the least of OtherBounds matches no change still to come.
type IntervalBound struct {
	Col, OtherCol       int
	Bounds, OtherBounds []expr.Expr
	Match               expr.Expr
}

// validate checks w (nil: none) against the widths of the left and
// right rows.
func (w *IntervalWatermark) validate(nl, nr int) error {
	if w == nil {
		return nil
	}
	for s, bounds := range w.Sides {
		n, other := nl, nr
		if s == 1 {
			n, other = nr, nl
		}
		for _, b := range bounds {
			if b.Col < 0 || b.Col >= n || b.OtherCol < 0 || b.OtherCol >= other ||
				len(b.Bounds) == 0 || len(b.OtherBounds) == 0 || b.Match == nil {
				return fmt.Errorf("stream: hash join: a bad interval bound")
			}
		}
	}
	return nil
}

// intervalCleanRatio is how much a side's state must have grown since it
// was last cleaned before it is cleaned again: a scan of the state then
// reads at most intervalCleanRatio+1 rows per row stored since, and the
// state holds at most 1+1/intervalCleanRatio times the rows that can
// still match (plus an epoch's).
const intervalCleanRatio = 4

// intervalMaxSkips is how many barriers past a moved watermark a side
// waits for its state to grow before it is cleaned all the same, so that
// an actor that stores no more rows (a key that went quiet) lets its
// state go too, intervalMaxSkips barriers later.
const intervalMaxSkips = 16

// intervalClean is what a HashJoin remembers of the last cleaning of one
// side (JoinSpec.Interval): the watermark then (nil: none since the
// executor was built), the rows it kept, the barriers skipped since with
// a watermark past it, and whether the side's writes of that epoch were
// ingested (epochWrites.ingested), out of the cleaning's sight. The side
// counts the rows it stored since (joinSide.added).
type intervalClean struct {
	at      types.Datum
	kept    int64
	skipped int
	unseen  bool
}

// cleanIntervals deletes, once the epoch's writes are staged, the rows
// of each side the watermark of ws lets go (JoinSpec.Interval). The
// rows are not a key range (state keys start with the join key): each
// cleaning scans the side's state in the vnodes the actor owns, so it
// runs only when the watermark moved since the last one and the side
// stored at least 1/intervalCleanRatio as many rows as that one kept
// (after a restart, at the first move), or intervalMaxSkips barriers
// later; and at the barrier after one that could not see the epoch's
// rows (an epoch's writes of a megabyte or more are ingested), so that
// the last of a burst go too. The deletions commit with the epoch.
func (j *HashJoin) cleanIntervals(ws []Watermark) error {
	spec := j.spec.Interval
	if spec == nil || len(ws) == 0 {
		return nil
	}
	wm, ok := findWatermark(ws, spec.Table)
	if !ok {
		return nil
	}
	for s, bounds := range spec.Sides {
		c, side := &j.intervals[s], j.sides[s]
		moved := c.at == nil || expr.Compare(wm.Value, c.at, wm.Type) > 0
		if len(bounds) == 0 || !moved && !c.unseen {
			continue
		}
		if !c.unseen && side.added*intervalCleanRatio < c.kept && c.skipped < intervalMaxSkips {
			c.skipped++
			continue
		}
		tests, ok := intervalTests(bounds, wm.Value, side.types, j.sides[1-s].types)
		if !ok {
			continue
		}
		kept, err := j.cleanSide(side, tests)
		if err != nil {
			return wrapJoinErr("clean by interval", err)
		}
		c.at, c.kept, c.skipped, c.unseen, side.added = wm.Value, kept, 0, side.epoch.ingested, 0
	}
	return nil
}

// intervalTest is an IntervalBound at one watermark: own and other are
// the least bounds of Col and OtherCol.
type intervalTest struct {
	b          *IntervalBound
	own, other types.Datum
	colType    types.Type
}

// intervalTests evaluates bounds at watermark wm; ok is false when a
// bound cannot be evaluated (then nothing goes).
func intervalTests(bounds []IntervalBound, wm types.Datum, ts, otherTypes []types.Type) ([]intervalTest, bool) {
	tests := make([]intervalTest, len(bounds))
	for i := range bounds {
		b := &bounds[i]
		own, ok := leastBound(b.Bounds, wm, ts[b.Col])
		if !ok {
			return nil, false
		}
		other, ok := leastBound(b.OtherBounds, wm, otherTypes[b.OtherCol])
		if !ok {
			return nil, false
		}
		tests[i] = intervalTest{b: b, own: own, other: other, colType: ts[b.Col]}
	}
	return tests, true
}

// cleanSide deletes the rows of side that one of tests lets go, as it
// reads them (through the epoch's batch, which holds the epoch's writes;
// an iterator of a batch sees none of the writes made after it was
// opened), and returns how many rows it kept.
func (j *HashJoin) cleanSide(side *joinSide, tests []intervalTest) (int64, error) {
	b := j.sc.Batch()
	it := side.table.ScanRangeIn(b, storage.KeyRange{}, j.owned)
	var kept int64
	var err error
	arg := make([]types.Datum, len(side.types)+1)
	for err == nil && it.Next() {
		row := it.Row()
		copy(arg, row[:len(side.types)])
		if goes(tests, row, arg) {
			err = side.table.Delete(b, row)
		} else {
			kept++
		}
	}
	if err == nil {
		err = it.Err()
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return kept, err
}

// goes reports whether one of tests lets stored row go; arg holds the
// row's columns and one more, which goes overwrites.
func goes(tests []intervalTest, row, arg []types.Datum) bool {
	for _, t := range tests {
		v := row[t.b.Col]
		if v == nil || expr.Compare(v, t.own, t.colType) >= 0 {
			continue // a change of it may still come
		}
		arg[len(arg)-1] = t.other
		m, err := t.b.Match.Eval(arg)
		if err != nil {
			continue
		}
		if ok, _ := m.(bool); !ok {
			return true
		}
	}
	return false
}
