package systemcatalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// streamdb_catalog.actors lists the running actors: one row per actor of
// each relation's job, with the fragment it runs (its position in the
// job), the fragment's kind ("table", "scan", "agg", "join" or
// "materialize") and the vnodes the actor owns, as ranges such as
// "0-63,128-191" (a view's fragments each run with the view's
// parallelism, actor i owning the i-th contiguous range of the 256
// vnodes).
var actors = newTable(nsStreamdb, "actors", 16003, "v", actorRows,
	`relation text, fragment integer, kind text, actor bigint, vnode_count integer, vnodes text`)

// streamdb_catalog.fragments lists the running fragments: one row per
// fragment of each relation's job, with its parallelism, its operators
// (top first, separated by " <- "), its inputs (such as "fragment 0
// hash ($1)" or "t hash ($0)"), as EXPLAIN CREATE MATERIALIZED VIEW
// shows them, and its current watermark: that of the table or source
// upstream whose WATERMARK FOR reaches it, as of the last barrier that
// left it ("name: value" for each of several).
var fragments = newTable(nsStreamdb, "fragments", 16005, "v", fragmentRows,
	`relation text, fragment integer, kind text, parallelism integer, operators text, inputs text, watermark text`)

// actorRows lists the actors of every relation, in creation order.
func actorRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.e.Relations() {
		for fi, f := range v.e.Fragments(r.ID) {
			for i, a := range f.Actors {
				rows = append(rows, []types.Datum{r.Name, int64(fi), f.Kind, int64(a),
					int64(f.Vnodes[i].Count()), VnodeRanges(&f.Vnodes[i])})
			}
		}
	}
	return rows
}

// fragmentRows lists the fragments of every relation, in creation order.
func fragmentRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.e.Relations() {
		for fi, f := range v.e.Fragments(r.ID) {
			ops := slices.Clone(f.Ops)
			slices.Reverse(ops)
			rows = append(rows, []types.Datum{r.Name, int64(fi), f.Kind, int64(len(f.Actors)),
				strings.Join(ops, " <- "), fragmentInputs(f.Inputs), v.fragmentWatermark(&f)})
		}
	}
	return rows
}

// fragmentWatermark renders a fragment's watermarks (NULL for none).
func (v *view) fragmentWatermark(f *planner.Fragment) types.Datum {
	ws := f.Watermarks()
	switch len(ws) {
	case 0:
		return nil
	case 1:
		return types.Format(ws[0].Value, ws[0].Type)
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		name := fmt.Sprintf("%d", w.Table)
		if r, ok := v.e.RelationByID(w.Table); ok {
			name = r.Name
		}
		parts[i] = name + ": " + types.Format(w.Value, w.Type)
	}
	return strings.Join(parts, ", ")
}

// fragmentInputs renders a fragment's inputs: where from, and the key
// they are hashed on.
func fragmentInputs(inputs []planner.FragmentInput) string {
	var ins []string
	for _, in := range inputs {
		from := fmt.Sprintf("fragment %d", in.Fragment)
		if in.Upstream != "" {
			from = in.Upstream
		}
		ins = append(ins, from+" "+planner.KeyCols(in.Key))
	}
	return strings.Join(ins, ", ")
}

// VnodeRanges renders a vnode set as comma-separated ranges, as
// streamdb_catalog.actors shows it (the dashboard too).
func VnodeRanges(b *storage.VnodeBitmap) string {
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
