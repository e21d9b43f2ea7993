package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// actorsName is the catalog table of the running actors: one row per
// actor of each relation's job, with the fragment it runs and the vnodes
// it owns (a view's fragments each run with the view's parallelism, actor
// i owning the i-th contiguous range of the 256 vnodes).
const actorsName = "streamdb_catalog.actors"

var actorColumns = []Column{
	{Name: "relation", Type: types.TText},
	{Name: "fragment", Type: types.TInt32}, // position of the fragment in its job
	{Name: "kind", Type: types.TText},      // "table", "scan", "agg", "join" or "materialize"
	{Name: "actor", Type: types.TInt64},
	{Name: "vnode_count", Type: types.TInt32},
	{Name: "vnodes", Type: types.TText}, // ranges, e.g. "0-63,128-191"
}

// actorRows lists the actors of every relation, in creation order.
func (db *DB) actorRows() [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range db.relationsSorted() {
		db.mu.RLock()
		rt := db.runtime[r.ID]
		db.mu.RUnlock()
		if rt == nil {
			continue
		}
		for fi, f := range rt.fragments {
			for i, a := range f.Actors {
				rows = append(rows, []types.Datum{r.Name, int64(fi), f.Kind, int64(a),
					int64(f.Vnodes[i].Count()), vnodeRanges(&f.Vnodes[i])})
			}
		}
	}
	return rows
}

// fragmentsName is the catalog table of the running fragments: one row
// per fragment of each relation's job, with its parallelism, its
// operators and its inputs (as EXPLAIN CREATE MATERIALIZED VIEW shows
// them).
const fragmentsName = "streamdb_catalog.fragments"

var fragmentColumns = []Column{
	{Name: "relation", Type: types.TText},
	{Name: "fragment", Type: types.TInt32},
	{Name: "kind", Type: types.TText},
	{Name: "parallelism", Type: types.TInt32},
	{Name: "operators", Type: types.TText}, // top first, separated by " <- "
	{Name: "inputs", Type: types.TText},    // e.g. "fragment 0 hash ($1)", "t hash ($0)"
}

// fragmentRows lists the fragments of every relation, in creation order.
func (db *DB) fragmentRows() [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range db.relationsSorted() {
		db.mu.RLock()
		rt := db.runtime[r.ID]
		db.mu.RUnlock()
		if rt == nil {
			continue
		}
		for fi, f := range rt.fragments {
			ops := slices.Clone(f.Ops)
			slices.Reverse(ops)
			var ins []string
			for _, in := range f.Inputs {
				from := fmt.Sprintf("fragment %d", in.Fragment)
				if in.Upstream != "" {
					from = in.Upstream
				}
				ins = append(ins, from+" "+planner.KeyCols(in.Key))
			}
			rows = append(rows, []types.Datum{r.Name, int64(fi), f.Kind, int64(len(f.Actors)),
				strings.Join(ops, " <- "), strings.Join(ins, ", ")})
		}
	}
	return rows
}

// vnodeRanges renders a vnode set as comma-separated ranges.
func vnodeRanges(b *storage.VnodeBitmap) string {
	var parts []string
	vs := b.Vnodes()
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(vs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", vs[i], vs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
