package window

import "github.com/streamdb/streamdb/internal/types"

// GROUPS frames and EXCLUDE clauses: a GROUPS frame's offsets count peer
// groups, and EXCLUDE leaves the row, its peers or both out of its frame.

// Exclusion is a frame's EXCLUDE clause.
type Exclusion uint8

// Exclusions.
const (
	ExcludeNoOthers   Exclusion = iota // the default: every row of the frame
	ExcludeCurrentRow                  // the row itself
	ExcludeGroup                       // the row and its peers
	ExcludeTies                        // the row's peers, not the row
)

var exclusionNames = [...]string{"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES"}

// groupsOffset reports whether the frame is GROUPS with an offset bound.
func (f Frame) groupsOffset() bool {
	isOffset := func(b Bound) bool { return b.Kind == Preceding || b.Kind == Following }
	return f.Groups && (isOffset(f.Start) || isOffset(f.End))
}

// groupsBound is the first (start) or last (!start) row of the frame of
// rows[i] bounded by b, an offset bound of a GROUPS frame: the first row
// of the peer group b.N groups before row i's (start), or the last of
// the one b.N groups after it (end); -1 or len(rows) past the rows.
func (ev *evaluator) groupsBound(b Bound, i int, start bool) int {
	if ev.groupOf == nil {
		ev.groupOf = make([]int, len(ev.first))
		for j := range ev.first {
			switch {
			case j == 0:
			case ev.first[j] == j:
				ev.groupOf[j] = ev.groupOf[j-1] + 1
				ev.groupStarts = append(ev.groupStarts, j)
				continue
			default:
				ev.groupOf[j] = ev.groupOf[j-1]
				continue
			}
			ev.groupStarts = append(ev.groupStarts, j)
		}
	}
	g := int64(ev.groupOf[i]) + b.offset()
	ng := int64(len(ev.groupStarts))
	switch {
	case g < 0:
		return -1
	case g >= ng:
		return len(ev.first)
	case start:
		return ev.groupStarts[g]
	}
	return ev.last[ev.groupStarts[g]]
}

// excluded reports whether row j is left out of row i's frame by f's
// EXCLUDE clause.
func (ev *evaluator) excluded(f *Func, i, j int) bool {
	switch f.Frame.Exclude {
	case ExcludeCurrentRow:
		return j == i
	case ExcludeGroup:
		return ev.first[i] <= j && j <= ev.last[i]
	case ExcludeTies:
		return j != i && ev.first[i] <= j && j <= ev.last[i]
	}
	return false
}

// evalExcluding computes a function over a frame with an EXCLUDE clause:
// each row's frame walked anew, without the rows it excludes.
func (ev *evaluator) evalExcluding(fi int, f *Func) error {
	rows := ev.in.Rows
	for i := ev.in.From; i < ev.in.To; i++ {
		lo, hi := ev.frameOf(f, i)
		var kept []int
		for j := lo; j <= hi; j++ {
			if !ev.excluded(f, i, j) {
				kept = append(kept, j)
			}
		}
		var v types.Datum
		switch f.Kind {
		case FirstValue:
			if len(kept) > 0 {
				v = rows[kept[0]][f.Arg]
			}
		case LastValue:
			if len(kept) > 0 {
				v = rows[kept[len(kept)-1]][f.Arg]
			}
		case NthValue:
			if k := int(f.N) - 1; k < len(kept) {
				v = rows[kept[k]][f.Arg]
			}
		default:
			acc := newAcc(f)
			for _, j := range kept {
				if err := acc.add(rows[j]); err != nil {
					return err
				}
			}
			var err error
			if v, err = acc.result(); err != nil {
				return err
			}
		}
		ev.set(i, fi, v)
	}
	return nil
}
