package write

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// UPDATE ... FROM and DELETE ... USING read a plan of the target's rows
// joined with the other items (planner.Update.From, planner.Delete.Using)
// in the statement's snapshot. A target row that several rows of the
// other items match changes once, as in PostgreSQL; where PostgreSQL
// takes an unspecified one of the matches, streamdb takes the match
// whose result row (for UPDATE, the new target row followed by the other
// items' columns; for DELETE, the joined row) is least, compared column
// by column in order, NULL last: the same data always gives the same
// result. The matches are held in memory until commit.

// joinedMatch is the match chosen for one target row: the row as
// committed, and the result row of the chosen match.
type joinedMatch struct {
	old, row []types.Datum
}

// matchJoined reads plan and returns, in the order the target rows first
// appear in it, each target row with the least of the rows result makes
// of its matches.
func (t *dmlTarget) matchJoined(ctx context.Context, plan planner.Node, result func(row []types.Datum) ([]types.Datum, error)) ([]*joinedMatch, error) {
	cols := plan.Columns()
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	ex, err := planner.BuildBatch(plan, t.w.e.Reader(t.snap))
	if err != nil {
		return nil, err
	}
	defer ex.Close()
	n := len(t.rel.Columns)
	byKey := map[string]*joinedMatch{}
	var out []*joinedMatch
	for {
		c, err := ex.Next(ctx)
		if err != nil || c == nil {
			return out, err
		}
		for i := 0; i < c.NumRows() && err == nil; i++ {
			err = t.match(c.Row(i, nil), n, ts, result, byKey, &out)
		}
		c.Release()
		if err != nil {
			return nil, err
		}
	}
}

func (t *dmlTarget) match(row []types.Datum, n int, ts []types.Type, result func([]types.Datum) ([]types.Datum, error), byKey map[string]*joinedMatch, out *[]*joinedMatch) error {
	res, err := result(row)
	if err != nil {
		return err
	}
	k, err := t.pkKey(row[:n])
	if err != nil {
		return err
	}
	if m, ok := byKey[k]; ok {
		if lessRow(res, m.row, ts) {
			m.row = res
		}
		return nil
	}
	m := &joinedMatch{old: row[:n:n], row: res}
	byKey[k] = m
	*out = append(*out, m)
	return nil
}

// lessRow orders rows of types ts column by column, NULL last.
func lessRow(a, b []types.Datum, ts []types.Type) bool {
	for i := range a {
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return false
		case b[i] == nil:
			return true
		}
		if c := expr.Compare(a[i], b[i], ts[i]); c != 0 {
			return c < 0
		}
	}
	return false
}

// updateFrom runs UPDATE ... FROM.
func (t *dmlTarget) updateFrom(ctx context.Context, up *planner.Update, ret Returned, uniq *uniqueChecker) (int64, error) {
	ms, err := t.matchJoined(ctx, up.From, func(row []types.Datum) ([]types.Datum, error) {
		res := append([]types.Datum(nil), row...)
		for j, col := range up.Cols {
			v, err := up.Set[j].Eval(row)
			if err != nil {
				return nil, err
			}
			res[col] = v
		}
		return res, nil
	})
	if err != nil {
		return 0, err
	}
	n := len(t.rel.Columns)
	olds := make([][]types.Datum, len(ms))
	news := make([][]types.Datum, len(ms))
	for i, m := range ms {
		if err := t.checkRules(up.Rules, m.row[:n]); err != nil {
			return 0, err
		}
		if ret != nil {
			if err := ret(m.row); err != nil {
				return 0, err
			}
		}
		olds[i], news[i] = m.old, m.row[:n:n]
	}
	return t.commitUpdates(ctx, uniq, olds, news)
}

// deleteUsing runs DELETE ... USING.
func (t *dmlTarget) deleteUsing(ctx context.Context, del *planner.Delete, ret Returned) (int64, error) {
	ms, err := t.matchJoined(ctx, del.Using, func(row []types.Datum) ([]types.Datum, error) { return row, nil })
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		if ret != nil {
			if err := ret(m.row); err != nil {
				return 0, err
			}
		}
		t.add(chunk.Delete, m.old)
	}
	return int64(len(ms)), t.commit(ctx, int64(len(ms)))
}
