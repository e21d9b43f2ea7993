package planner

import (
	"sync/atomic"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/expr"
)

// Column pruning. A scan decodes only the columns of its relation that
// the plan above it reads, and leaves the others NULL (batch.Scan.Reading,
// stream.ScanOptions.Read): the plan keeps its shape and its column
// indexes, and what is computed here is, for each Scan, the set of its
// columns some node above it reads. The walk goes from the root down,
// with the set of each node's output columns its parent reads: every
// column of the root is read (a query's result, a view's Materialize, a
// DML statement's rows), and each node adds the input columns it reads
// itself (a filter's condition, join and group keys, aggregates' and
// window functions' arguments, sort keys...), whether or not the columns
// it computes from them are read: it evaluates them all, and an
// evaluation error must not depend on pruning. A node this file does not
// know reads every column of its inputs; under a correlated subquery or
// a lateral join (Apply, LateralJoin), whose plans batch rewrites before
// running them, every scan reads everything. A scan always reads its
// relation's primary and distribution keys.

// pruneOff turns pruning off (SetPruning).
var pruneOff atomic.Bool

// SetPruning turns the column pruning of scans on (the default) or off,
// for tests that compare results with and without it; it returns the
// previous setting.
func SetPruning(on bool) bool { return !pruneOff.Swap(!on) }

// ScanReads returns, for each Scan of the plan rooted at n that reads
// fewer than all its columns, the columns of it that the plan reads
// (read[i]: column i). A Scan not in the map reads every column.
func ScanReads(n Node) map[*Scan][]bool {
	p := &pruner{reads: map[*Scan][]bool{}, full: map[*Scan]bool{}}
	p.visit(n, allCols(n))
	out := map[*Scan][]bool{}
	for s, read := range p.reads {
		if !p.full[s] && !allSet(read) {
			out[s] = read
		}
	}
	return out
}

// Pruning reports whether the column pruning of scans is on: whether a
// job's state holds only the columns of its scans that ScanReads says
// its plan reads.
func Pruning() bool { return !pruneOff.Load() }

// scanReads is ScanReads(n) when pruning is on, else nil.
func scanReads(n Node) map[*Scan][]bool {
	if pruneOff.Load() {
		return nil
	}
	return ScanReads(n)
}

type pruner struct {
	reads map[*Scan][]bool
	full  map[*Scan]bool // scans that read everything (under an Apply)
}

// visit records that need (one entry per output column of n) are read
// from n.
func (p *pruner) visit(n Node, need []bool) {
	switch n := n.(type) {
	case *Scan:
		p.scan(n, need)
	case *Filter:
		p.visit(n.Input, addExprCols(clone(need), n.Cond))
	case *Project:
		p.visit(n.Input, projectNeeds(n.Input, n.Exprs, need))
	case *Aggregate:
		in := make([]bool, len(n.Input.Columns()))
		cols := inputNeeds(n)
		for _, c := range cols {
			in[c] = true
		}
		p.visit(n.Input, in)
	case *Join:
		p.join(n, need)
	case *Sort:
		in := clone(need)
		for _, k := range n.Keys {
			in[k.Col] = true
		}
		p.visit(n.Input, in)
	case *Limit:
		p.visit(n.Input, need)
	case *UnionAll:
		in := clone(need)
		for _, k := range n.Key {
			in[k] = true
		}
		for _, c := range n.Ins {
			p.visit(c, in)
		}
	case *Window:
		p.visit(n.Input, windowNeeds(n, need))
	case *TopN:
		in := prefix(need, len(n.Input.Columns()))
		for _, c := range n.GroupBy {
			in[c] = true
		}
		for _, k := range n.Order {
			in[k.Col] = true
		}
		p.visit(n.Input, in)
	case *DynamicFilter:
		p.visit(n.Input, addExprCols(clone(need), n.Left))
		if n.Right != nil {
			p.visit(n.Right, allCols(n.Right))
		}
	case *Expand:
		in := make([]bool, len(n.Input.Columns()))
		for _, proj := range n.Projections {
			for i, e := range proj {
				if _, ok := e.(*expr.Column); ok && !need[i] {
					continue
				}
				addExprCols(in, e)
			}
		}
		p.visit(n.Input, in)
	case *Replicate:
		p.visit(n.Input, prefix(need, len(n.Input.Columns())))
	case *Apply, *LateralJoin:
		for _, c := range n.Inputs() {
			p.readAll(c)
		}
	default:
		for _, c := range n.Inputs() {
			p.visit(c, allCols(c))
		}
	}
}

// scan records need as read from s, with its keys.
func (p *pruner) scan(s *Scan, need []bool) {
	read := p.reads[s]
	if read == nil {
		read = make([]bool, len(s.Cols))
		p.reads[s] = read
	}
	for i, r := range need {
		read[i] = read[i] || r
	}
	for _, c := range s.Rel.PK {
		read[c] = true
	}
	for _, c := range s.Rel.DistKey {
		read[c] = true
	}
}

// join visits a join's inputs: the columns read of its output, its keys
// and its condition's columns (over left then right).
func (p *pruner) join(n *Join, need []bool) {
	nl, nr := len(n.Left.Columns()), len(n.Right.Columns())
	all := make([]bool, nl+nr)
	copy(all, need) // a semi or anti join outputs the left columns only
	addExprCols(all, n.Cond)
	for _, k := range n.LeftKeys {
		all[k] = true
	}
	for _, k := range n.RightKeys {
		all[nl+k] = true
	}
	p.visit(n.Left, all[:nl])
	p.visit(n.Right, all[nl:])
}

// readAll makes every scan under n read all its columns.
func (p *pruner) readAll(n Node) {
	if s, ok := n.(*Scan); ok {
		p.full[s] = true
		p.scan(s, allCols(s))
		return
	}
	for _, c := range n.Inputs() {
		p.readAll(c)
	}
}

// projectNeeds returns the columns of in that exprs read: every
// expression is evaluated, so its columns are read, except a column
// passed through that nobody reads.
func projectNeeds(in Node, exprs []expr.Expr, need []bool) []bool {
	out := make([]bool, len(in.Columns()))
	for i, e := range exprs {
		if _, ok := e.(*expr.Column); ok && !need[i] {
			continue
		}
		addExprCols(out, e)
	}
	return out
}

// windowNeeds returns the input columns a Window reads.
func windowNeeds(n *Window, need []bool) []bool {
	in := prefix(need, len(n.Input.Columns()))
	for _, c := range n.Spec.Partition {
		in[c] = true
	}
	for _, k := range n.Spec.Order {
		in[k.Col] = true
	}
	for _, f := range n.Spec.Funcs {
		if f.Arg >= 0 {
			in[f.Arg] = true
		}
		if f.Default >= 0 {
			in[f.Default] = true
		}
	}
	return in
}

// addExprCols marks the columns e reads (nil e: none) in cols.
func addExprCols(cols []bool, e expr.Expr) []bool {
	if e == nil {
		return cols
	}
	for _, c := range expr.Columns(e) {
		cols[c] = true
	}
	return cols
}

func allCols(n Node) []bool {
	out := make([]bool, len(n.Columns()))
	for i := range out {
		out[i] = true
	}
	return out
}

func allSet(b []bool) bool {
	for _, x := range b {
		if !x {
			return false
		}
	}
	return true
}

func clone(b []bool) []bool { return append([]bool(nil), b...) }

// prefix returns a copy of the first n entries of b.
func prefix(b []bool, n int) []bool {
	out := make([]bool, n)
	copy(out, b)
	return out
}

// prunedSource carries a batch plan's ScanReads down BuildBatch.
type prunedSource struct {
	batch.Source
	reads map[*Scan][]bool
}

// withReads wraps src with the scan reads of the plan rooted at n, unless
// it already carries them: a plan built within another's BuildBatch (a
// subquery's, or one a rewrite made, whose new scans read everything).
func withReads(n Node, src batch.Source) batch.Source {
	if _, ok := src.(*prunedSource); ok {
		return src
	}
	if pruneOff.Load() {
		return src
	}
	return &prunedSource{Source: src, reads: ScanReads(n)}
}

// scanSource returns the source a Scan of s reads from, and the columns
// it reads (nil: all).
func scanSource(src batch.Source, s *Scan) (batch.Source, []bool) {
	if p, ok := src.(*prunedSource); ok {
		return p.Source, p.reads[s]
	}
	return src, nil
}
