package stream

// Helpers shared by the executor tests: scripted inputs, an in-memory
// store, a runner that commits every epoch, and a multiset that applies
// emitted changes and checks they are consistent.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// errScriptEnd ends a scriptExec: the runner's "input exhausted" signal.
var errScriptEnd = errors.New("script end")

// scriptExec is an Executor yielding a fixed list of messages, then
// errScriptEnd.
type scriptExec struct {
	typs []types.Type
	msgs []Message
}

func (s *scriptExec) Types() []types.Type { return s.typs }

func (s *scriptExec) Next(ctx context.Context) (Message, error) {
	if len(s.msgs) == 0 {
		return Message{}, errScriptEnd
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	return m, nil
}

// scriptReceiver returns a Receiver whose channel holds msgs and is then
// closed (so the receiver ends with ErrUpstreamEnded).
func scriptReceiver(ts []types.Type, msgs []Message) *Receiver {
	c := make(chan Message, len(msgs))
	for _, m := range msgs {
		c <- m
	}
	close(c)
	return &Receiver{C: c, Typ: ts}
}

func newTestStore(t testing.TB) *storage.Store {
	t.Helper()
	st, err := storage.Open(":memory:", storage.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}

// change is one emitted row with its op.
type change struct {
	op  chunk.Op
	row []types.Datum
}

// trow is a test row.
type trow = []types.Datum

func barrierMsg(epoch uint64) Message {
	return Message{Barrier: &Barrier{Prev: epoch, Curr: epoch + 1}}
}

// chunkMsg builds a chunk message of changes.
func chunkMsg(ts []types.Type, cs ...change) Message {
	b := chunk.NewBuilder(ts)
	defer b.Release()
	for _, c := range cs {
		b.Append(c.op, c.row)
	}
	return Message{Chunk: b.Build()}
}

func ins(vals ...types.Datum) change { return change{chunk.Insert, vals} }
func del(vals ...types.Datum) change { return change{chunk.Delete, vals} }
func upd(old, new trow) []change {
	return []change{{chunk.UpdateDelete, old}, {chunk.UpdateInsert, new}}
}

// chunkChanges decodes a chunk and checks that every UpdateDelete is
// directly followed by an UpdateInsert in the same chunk and the reverse.
func chunkChanges(t testing.TB, c *chunk.Chunk) []change {
	t.Helper()
	var out []change
	for i := 0; i < c.NumRows(); i++ {
		op := c.Op(i)
		if op == chunk.UpdateDelete && (i+1 >= c.NumRows() || c.Op(i+1) != chunk.UpdateInsert) {
			t.Fatalf("UpdateDelete at row %d without its UpdateInsert", i)
		}
		if op == chunk.UpdateInsert && (i == 0 || c.Op(i-1) != chunk.UpdateDelete) {
			t.Fatalf("UpdateInsert at row %d without its UpdateDelete", i)
		}
		out = append(out, change{op, c.Row(i, nil)})
	}
	return out
}

// epochRunner drives an executor: it collects the changes of each epoch,
// commits the actor's batch at each barrier, and hands the epoch's changes
// to onEpoch. An epoch whose barrier never comes is not committed and its
// changes are dropped (as a failed actor's would be).
type epochRunner struct {
	t       testing.TB
	st      *storage.Store
	sc      *StateContext
	onEpoch func(epoch uint64, cs []change)
}

// run pulls from ex until its input ends; it returns the number of epochs
// committed.
func (r *epochRunner) run(ex Executor) int {
	r.t.Helper()
	var pending []change
	epochs := 0
	for {
		m, err := ex.Next(context.Background())
		if errors.Is(err, errScriptEnd) || errors.Is(err, ErrUpstreamEnded) {
			return epochs
		}
		if err != nil {
			r.t.Fatalf("Next: %v", err)
		}
		if m.Chunk != nil {
			if m.Chunk.NumRows() == 0 {
				r.t.Fatalf("empty chunk emitted")
			}
			if m.Chunk.NumRows() > maxChunkRows {
				r.t.Fatalf("chunk of %d rows", m.Chunk.NumRows())
			}
			pending = append(pending, chunkChanges(r.t, m.Chunk)...)
			m.Chunk.Release()
			continue
		}
		if err := r.st.CommitEpoch(m.Barrier.Prev, []*storage.WriteBatch{r.sc.TakeBatch()}); err != nil {
			r.t.Fatalf("commit epoch %d: %v", m.Barrier.Prev, err)
		}
		epochs++
		r.onEpoch(m.Barrier.Prev, pending)
		pending = nil
	}
}

// multiset is a bag of rows keyed by their canonical text.
type multiset map[string]int

// apply applies changes in order; a delete of an absent row is an error.
func (ms multiset) apply(cs []change) error {
	for _, c := range cs {
		k := rowKey(c.row)
		if c.op.IsInsert() {
			ms[k]++
			continue
		}
		if ms[k] == 0 {
			return fmt.Errorf("%s of absent row %s", c.op, k)
		}
		if ms[k]--; ms[k] == 0 {
			delete(ms, k)
		}
	}
	return nil
}

func multisetOf(rows []trow) multiset {
	ms := multiset{}
	for _, r := range rows {
		ms[rowKey(r)]++
	}
	return ms
}

// diff describes how got differs from want ("" when equal).
func (ms multiset) diff(want multiset) string {
	var lines []string
	for k, n := range ms {
		if want[k] != n {
			lines = append(lines, fmt.Sprintf("got %d want %d: %s", n, want[k], k))
		}
	}
	for k, n := range want {
		if _, ok := ms[k]; !ok {
			lines = append(lines, fmt.Sprintf("got 0 want %d: %s", n, k))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// rowKey renders a row canonically; numerics and floats are compared to 6
// decimals (the reference computes averages as floats).
func rowKey(r trow) string {
	parts := make([]string, len(r))
	for i, d := range r {
		switch v := d.(type) {
		case nil:
			parts[i] = "NULL"
		case *apd.Decimal:
			f, _ := v.Float64()
			parts[i] = fmt.Sprintf("%.6f", f)
		case float64:
			parts[i] = fmt.Sprintf("%.6f", v)
		case string:
			parts[i] = fmt.Sprintf("%q", v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// fnExpr is a test expression computed by a Go function.
// fnExpr is a test expression computed by f. Like every expression it
// must declare the columns it reads as children (cols), since executors
// may decode only those.
type fnExpr struct {
	typ  types.Type
	name string
	f    func(row []types.Datum) types.Datum
	cols []expr.Expr
}

func (e *fnExpr) Type() types.Type                            { return e.typ }
func (e *fnExpr) Eval(row []types.Datum) (types.Datum, error) { return e.f(row), nil }
func (e *fnExpr) String() string                              { return e.name }
func (e *fnExpr) Children() []expr.Expr                       { return e.cols }
func (e *fnExpr) WithChildren([]expr.Expr) expr.Expr          { return e }

// cmpTest orders the non-NULL int64 and string datums the tests use.
func cmpTest(a, b types.Datum) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	}
	panic(fmt.Sprintf("cmpTest: %T", a))
}

// randNullInt returns NULL with probability pNull, else an int in [lo, hi].
func randNullInt(rng *rand.Rand, pNull float64, lo, hi int64) types.Datum {
	if rng.Float64() < pNull {
		return nil
	}
	return lo + rng.Int64N(hi-lo+1)
}

// tableRows reads every row of a table in committed state.
func tableRows(t testing.TB, st *storage.Store, tab *storage.Table) []trow {
	t.Helper()
	it := tab.Scan(st)
	defer it.Close()
	var out []trow
	for it.Next() {
		out = append(out, slices.Clone(it.Row()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// randRel is a random relation whose column 0 is a unique int64 key; it
// produces random changes (inserts, deletes, updates as adjacent U-/U+
// pairs) and keeps its current rows.
type randRel struct {
	rng    *rand.Rand
	gen    func(rng *rand.Rand, pk int64) trow
	pks    []int64
	rows   map[int64]trow
	nextPK int64
	// pInsert is the probability that a change is an insert.
	pInsert float64
}

func newRandRel(rng *rand.Rand, gen func(*rand.Rand, int64) trow) *randRel {
	return &randRel{rng: rng, gen: gen, rows: map[int64]trow{}, pInsert: 0.5}
}

// epoch returns the chunks of changes of one random epoch with at most
// maxChanges changes (possibly none).
func (r *randRel) epoch(maxChanges int) [][]change {
	var chunks [][]change
	var cur []change
	for n := r.rng.IntN(maxChanges + 1); n > 0; n-- {
		cur = append(cur, r.change()...)
		if r.rng.IntN(4) == 0 {
			chunks, cur = append(chunks, cur), nil
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

func (r *randRel) change() []change {
	if len(r.pks) == 0 || r.rng.Float64() < r.pInsert {
		r.nextPK++
		row := r.gen(r.rng, r.nextPK)
		r.rows[r.nextPK] = row
		r.pks = append(r.pks, r.nextPK)
		return []change{{chunk.Insert, row}}
	}
	i := r.rng.IntN(len(r.pks))
	pk := r.pks[i]
	old := r.rows[pk]
	if r.rng.IntN(2) == 0 {
		r.pks[i] = r.pks[len(r.pks)-1]
		r.pks = r.pks[:len(r.pks)-1]
		delete(r.rows, pk)
		return []change{{chunk.Delete, old}}
	}
	row := r.gen(r.rng, pk)
	r.rows[pk] = row
	return upd(old, row)
}

// snapshot returns the current rows.
func (r *randRel) snapshot() []trow {
	out := make([]trow, 0, len(r.rows))
	for _, pk := range r.pks {
		out = append(out, r.rows[pk])
	}
	return out
}

// epochMessages builds the messages of epochs [from, to) of a script (chunks
// then a barrier each), plus, when partial, the chunks of epoch to without
// its barrier. Epoch i ends with barrier (i+1 -> i+2).
func epochMessages(ts []types.Type, script [][][]change, from, to int, partial bool) []Message {
	var msgs []Message
	for i := from; i < to || partial && i == to && i < len(script); i++ {
		for _, cs := range script[i] {
			msgs = append(msgs, chunkMsg(ts, cs...))
		}
		if i < to {
			msgs = append(msgs, barrierMsg(uint64(i+1)))
		}
	}
	return msgs
}

// runSegments runs n scripted epochs through executors built by build,
// checking after every epoch that the changes emitted so far, applied to a
// multiset, equal want(epoch). With restarts, the epochs are cut into
// segments each run by a fresh executor over the committed state; some
// segments also "crash": their executor processes the next epoch's chunks
// but not its barrier, and that epoch is replayed by the next executor.
func runSegments(t *testing.T, st *storage.Store, rng *rand.Rand, n int, restarts bool,
	build func(sc *StateContext, from, to int, partial bool) Executor, want func(epoch int) multiset) {
	t.Helper()
	got := multiset{}
	epoch := 0
	onEpoch := func(_ uint64, cs []change) {
		t.Helper()
		if err := got.apply(cs); err != nil {
			t.Fatalf("epoch %d: %v", epoch, err)
		}
		if d := got.diff(want(epoch)); d != "" {
			t.Fatalf("epoch %d: output differs from the query over the input:\n%s", epoch, d)
		}
		epoch++
	}
	for from := 0; from < n; {
		to := n
		if restarts {
			to = min(n, from+1+rng.IntN(4))
		}
		partial := restarts && to < n && rng.IntN(2) == 0
		sc := NewStateContext(st)
		r := &epochRunner{t: t, st: st, sc: sc, onEpoch: onEpoch}
		if done := r.run(build(sc, from, to, partial)); done != to-from {
			t.Fatalf("segment [%d,%d): %d epochs committed", from, to, done)
		}
		sc.TakeBatch().Close()
		from = to
	}
}

// randomSeeds is how many seeds a randomized test runs: n, or 1 with -short.
func randomSeeds(n uint64) uint64 {
	if testing.Short() {
		return 1
	}
	return n
}
