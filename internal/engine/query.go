package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// snapshotSource reads relations from one consistent snapshot of
// committed state; it implements batch.Source.
type snapshotSource struct {
	db   *DB
	snap storage.Reader
	// id, when set, is the session that opened the query, whose rows a
	// system relation shows when it is scanned later, from a context
	// that does not carry it (a QueryIter pulled by its reader).
	id *systemcatalog.Identity
}

// systemScan reads a system relation as the query's session sees it.
func (s *snapshotSource) systemScan(ctx context.Context, rel *catalog.Relation) storage.Iterator {
	if _, ok := ctx.Value(identityKey{}).(systemcatalog.Identity); !ok && s.id != nil {
		ctx = context.WithValue(ctx, identityKey{}, *s.id)
	}
	return s.db.systemScan(ctx, rel)
}

func (s *snapshotSource) Scan(ctx context.Context, rel *catalog.Relation) (storage.Iterator, error) {
	if rel.Kind == catalog.KindSystem {
		return s.systemScan(ctx, rel), nil
	}
	if rel.State == catalog.StateCreating {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState,
			"materialized view %q is still being created", rel.Name)
	}
	return planner.TableLayout(rel).Scan(s.snap), nil
}

// ScanKey implements batch.KeySource.
func (s *snapshotSource) ScanKey(ctx context.Context, rel *catalog.Relation, prefix []types.Datum) (storage.Iterator, error) {
	if rel.Kind == catalog.KindSystem {
		return s.systemScan(ctx, rel), nil
	}
	if rel.State == catalog.StateCreating {
		return nil, pgerr.New(pgerr.ObjectNotInPrereqState,
			"materialized view %q is still being created", rel.Name)
	}
	return planner.TableLayout(rel).ScanPrefix(s.snap, prefix, false), nil
}

// runQuery runs a bound SELECT over a snapshot and streams its visible
// columns to w.
func (db *DB) runQuery(ctx context.Context, q *planner.Query, w ResultWriter) error {
	snap := db.store.Snapshot()
	defer snap.Close()
	ex, err := planner.BuildBatch(q.Plan, &snapshotSource{db: db, snap: snap})
	if err != nil {
		return err
	}
	defer ex.Close()
	cols := q.Plan.Columns()
	var vis []int
	var out []Column
	for i, c := range cols {
		if !c.Hidden {
			vis = append(vis, i)
			out = append(out, Column{Name: c.Name, Type: c.Type})
		}
	}
	if err := w.Columns(out); err != nil {
		return err
	}
	regOut := db.regOutput(ctx, out)
	n := 0
	row := make([]types.Datum, len(vis))
	var buf []types.Datum
	for {
		c, err := ex.Next(ctx)
		if err != nil {
			return err
		}
		if c == nil {
			break
		}
		for i := 0; i < c.NumRows(); i++ {
			buf = c.Row(i, buf)
			for j, k := range vis {
				row[j] = buf[k]
			}
			regOut(row)
			if err := w.Row(row); err != nil {
				c.Release()
				return err
			}
			n++
		}
		c.Release()
	}
	return w.Complete(fmt.Sprintf("SELECT %d", n))
}

func (db *DB) showRelations(w ResultWriter, kind catalog.Kind) error {
	if err := w.Columns([]Column{{Name: "Name", Type: types.TText}}); err != nil {
		return err
	}
	var names []string
	for _, r := range db.relationsSorted() {
		if r.Kind == kind && r.State == catalog.StateCreated {
			names = append(names, r.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := w.Row([]types.Datum{n}); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(names)))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
