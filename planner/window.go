package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/window"
)

// Window computes window functions over one window (PARTITION BY and ORDER
// BY, both over input columns): its output is the input's columns followed
// by one column per function. A query with several windows stacks one
// Window per window.
type Window struct {
	Input Node
	Spec  *window.Spec
	Cols  []Column
}

// NewWindow returns a Window over in; names names the result columns.
func NewWindow(in Node, spec *window.Spec, names []string) *Window {
	cols := slices.Clone(in.Columns())
	for i, f := range spec.Funcs {
		cols = append(cols, Column{Name: names[i], Type: f.Type})
	}
	spec.InTypes = batchColumnTypes(in.Columns())
	return &Window{Input: in, Spec: spec, Cols: cols}
}

func (n *Window) Columns() []Column { return n.Cols }
func (n *Window) Inputs() []Node    { return []Node{n.Input} }

func buildBatchWindow(n *Window, src batch.Source) (batch.Executor, error) {
	return build1(n.Input, src, func(in batch.Executor) batch.Executor { return batch.NewWindow(in, n.Spec) })
}

// describeWindow is the Window's line in EXPLAIN.
func describeWindow(n *Window) string {
	funcs := make([]string, len(n.Spec.Funcs))
	for i, f := range n.Spec.Funcs {
		funcs[i] = describeWindowFunc(&f)
	}
	return fmt.Sprintf("Window partition by %s order by [%s]: %s", KeyCols(n.Spec.Partition), orderString(n.Spec.Order), strings.Join(funcs, ", "))
}

// orderString renders a window's or TopN's ORDER BY.
func orderString(order []window.SortKey) string {
	var parts []string
	for _, k := range order {
		s := fmt.Sprintf("$%d", k.Col)
		if k.Desc {
			s += " DESC"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				s += " NULLS FIRST"
			} else {
				s += " NULLS LAST"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func describeWindowFunc(f *window.Func) string {
	var s string
	switch f.Kind {
	case window.Agg:
		s = f.Agg.String()
		if f.Arg >= 0 {
			s = fmt.Sprintf("%s($%d)", f.Agg, f.Arg)
		}
	case window.Lag, window.Lead:
		s = fmt.Sprintf("%s($%d, %d)", f.Kind, f.Arg, f.N)
	case window.Ntile:
		s = fmt.Sprintf("ntile(%d)", f.N)
	case window.NthValue:
		s = fmt.Sprintf("nth_value($%d, %d)", f.Arg, f.N)
	case window.FirstValue, window.LastValue:
		s = fmt.Sprintf("%s($%d)", f.Kind, f.Arg)
	default:
		return f.Kind.String() + "()"
	}
	if f.Kind == window.Agg || f.Kind >= window.FirstValue {
		s += " " + f.Frame.String()
	}
	return s
}

// windowWithKey: the window functions keep their input's rows and key.
func windowWithKey(n *Window) (Node, []int, error) {
	in, key, err := withStreamKey(n.Input)
	if err != nil {
		return nil, nil, err
	}
	// A row whose partition changes leaves one partition and joins
	// another, possibly owned by another actor: the partition columns in
	// the key keep the two apart, so the order in which the actors' Delete
	// and Insert arrive does not matter (see joinWithKey).
	key = withPartition(key, n.Spec.Partition)
	if len(in.Columns()) == len(n.Input.Columns()) {
		return &Window{Input: in, Spec: n.Spec, Cols: n.Cols}, key, nil
	}
	// The input gained hidden key columns: they go after the functions'
	// results, so the results keep their positions.
	spec := *n.Spec
	spec.InTypes = batchColumnTypes(in.Columns())
	w := NewWindow(in, &spec, windowNames(n))
	p, outKey := resultsBeforeAdded(w, len(n.Input.Columns()), len(in.Columns())-len(n.Input.Columns()), key)
	return p, outKey, nil
}

// resultsBeforeAdded reorders the output of n, an operator that appends
// its results to its input's columns, when the input gained added hidden
// key columns (after its nin original ones): the results go back to their
// places right after the original columns, the added ones after them. It
// returns the projection and key (over n's output) remapped to it.
func resultsBeforeAdded(n Node, nin, added int, key []int) (*Project, []int) {
	nres := len(n.Columns()) - nin - added
	order := make([]int, 0, len(n.Columns()))
	for i := range nin {
		order = append(order, i)
	}
	for i := range nres {
		order = append(order, nin+added+i)
	}
	for i := range added {
		order = append(order, nin+i)
	}
	pos := make([]int, len(order))
	for out, in := range order {
		pos[in] = out
	}
	out := make([]int, len(key))
	for i, k := range key {
		out[i] = pos[k]
	}
	return reorder(n, order), out
}

// withPartition adds to key the partition columns it lacks.
func withPartition(key, partition []int) []int {
	key = slices.Clone(key)
	for _, c := range partition {
		if !slices.Contains(key, c) {
			key = append(key, c)
		}
	}
	return key
}

func windowNames(n *Window) []string {
	nin := len(n.Input.Columns())
	names := make([]string, len(n.Spec.Funcs))
	for i := range names {
		names[i] = n.Cols[nin+i].Name
	}
	return names
}

// buildWindow runs the window functions in actors that own their
// partitions: after an exchange on the partition columns unless the
// input is already partitioned so (or is one actor, as is every window
// with no PARTITION BY).
func (b *jobBuilder) buildWindow(n *Window) (*fragment, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	spec := stream.OverWindowSpec{Window: n.Spec, InputPK: in.key}
	ids := b.stateTableIDs(1)
	f, err := b.partitionedBy(in, n.Spec.Partition, "window")
	if err != nil {
		return nil, err
	}
	f.key = withPartition(f.key, n.Spec.Partition)
	f.ops = append(f.ops, "Over"+describeWindow(n))
	for i, a := range f.actors {
		ow, err := stream.NewOverWindow(f.execs[i], a.State, spec, ids[0])
		if err != nil {
			return nil, err
		}
		f.execs[i] = ow
	}
	return f, nil
}

// partitionedBy returns the fragment whose actors own the groups of the
// cols values of in's rows: in itself when it is partitioned so (or both
// are a single actor), else a new fragment of the kind after an exchange
// on cols.
func (b *jobBuilder) partitionedBy(in *fragment, cols []int, kind string) (*fragment, error) {
	par := b.parallelism(len(cols))
	if len(in.actors) == par && (par == 1 || in.distOK && slices.Equal(in.dist, cols)) {
		return in, nil
	}
	f := b.newFragment(kind, par)
	recvs, err := exchange(in, f, cols)
	if err != nil {
		return nil, err
	}
	for i := range f.actors {
		f.execs[i] = stream.NewMerge(in.types(), recvs[i]...)
	}
	f.key, f.dist, f.distOK = in.key, slices.Clone(cols), true
	return f, nil
}

// reorder projects n's columns in the given order.
func reorder(n Node, order []int) *Project {
	cols := n.Columns()
	p := &Project{Input: n}
	for _, c := range order {
		p.Exprs = append(p.Exprs, expr.NewColumn(c, cols[c].Type, cols[c].Name))
		p.Cols = append(p.Cols, cols[c])
	}
	return p
}
