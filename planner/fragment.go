package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// A view's stream plan runs as fragments: a fragment is one pipeline of
// executors run by N actors, actor i owning the vnode set vnodes[i] (the
// vnodes are split in contiguous ranges, storage.SplitVnodes). Fragments
// are cut where the distribution of the rows must change:
//
//   - a scan fragment per scanned relation: each actor owns a vnode set of
//     the UPSTREAM relation and receives exactly that set's changes (the
//     upstream's top actors dispatch through an Exchange on its DistKey);
//   - an aggregate fragment after an exchange on the group key (parallelism
//     1 for a global aggregate), so each actor's groups, and their state
//     rows (DistKey: the group key), are those of its vnodes; when the
//     aggregates split (stream.AggSpec.Splittable), each input actor first
//     sums its rows per group and epoch (stream.LocalAgg), and the exchange
//     carries those partial sums instead of the rows;
//   - a join fragment after an exchange of both sides on the join key (the
//     DistKey of the join's state tables);
//   - the view's Materialize runs in the last fragment's actors when that
//     fragment is partitioned by a subset of the view's key (which then
//     becomes the view's DistKey), else in a fragment of its own after an
//     exchange on the view's DistKey (its key).
//
// Filters and projections run in the actor of their input. Every fragment
// with a distribution key has the job's parallelism; all actors of a
// fragment share its state tables, each touching only its vnodes' keys.

// Fragment describes one fragment of a job, for introspection
// (streamdb_catalog.actors) and tests.
type Fragment struct {
	// Kind names the fragment's last operator: "scan", "agg", "join",
	// "materialize" (a fragment of its own), "table", "source" (a
	// parallel table's DML entry).
	Kind string
	// Actors are the fragment's actors; Vnodes[i] are the vnodes Actors[i]
	// owns (of the distribution the fragment is partitioned by).
	Actors []stream.ActorID
	Vnodes []storage.VnodeBitmap
	// Ops are the fragment's operators, its input's first.
	Ops []string
	// Inputs say where the fragment's rows come from: other fragments of
	// the job, or an upstream relation, through hash exchanges.
	Inputs []FragmentInput

	live []*stream.Actor // the actors, for Watermarks
}

// Watermarks returns the fragment's current watermarks: those of the
// last barrier each of its actors sent, each at its least over them (nil
// while an actor has none, or for a fragment only described).
func (f *Fragment) Watermarks() []stream.Watermark {
	var out []stream.Watermark
	for i, a := range f.live {
		ws := a.Watermarks()
		if i == 0 {
			out = slices.Clone(ws)
			continue
		}
		out = stream.LeastWatermarks(out, ws)
	}
	return out
}

// Stats returns the sum of the fragment's actors' counters (zero for a
// fragment only described).
func (f *Fragment) Stats() stream.ActorStats {
	var out stream.ActorStats
	for _, a := range f.live {
		s := a.Stats()
		out.RowsIn += s.RowsIn
		out.RowsOut += s.RowsOut
		out.ChunksOut += s.ChunksOut
		out.SendTime += s.SendTime
	}
	return out
}

// FragmentInput is one input of a fragment: the rows of fragment
// Fragment of the same job (or, when Upstream is set, of that relation's
// actors) hashed on the columns Key to the fragment's actors.
type FragmentInput struct {
	Fragment int
	Upstream string
	Key      []int
}

// fragment is a fragment while the job is built.
type fragment struct {
	id     int // position in the job
	kind   string
	actors []*stream.Actor
	vnodes []storage.VnodeBitmap
	execs  []stream.Executor // the pipeline's top executor, per actor
	ops    []string
	inputs []FragmentInput
	key    []int // stream key of the output
	// dist are the output columns the fragment's rows are partitioned by
	// (each actor gets the rows whose hash of these columns, in this
	// order and with these types, is one of its vnodes); distOK is false
	// when the output is partitioned by nothing it still carries.
	dist   []int
	distOK bool
}

func (f *fragment) types() []types.Type { return f.execs[0].Types() }

func (f *fragment) describe() Fragment {
	d := Fragment{Kind: f.kind, Vnodes: slices.Clone(f.vnodes), Ops: slices.Clone(f.ops), Inputs: slices.Clone(f.inputs),
		live: slices.Clone(f.actors)}
	for _, a := range f.actors {
		d.Actors = append(d.Actors, a.ID)
	}
	return d
}

// mapExecs replaces each actor's top executor.
func (f *fragment) mapExecs(fn func(i int, in stream.Executor) stream.Executor) {
	for i, e := range f.execs {
		f.execs[i] = fn(i, e)
	}
}

// finish makes the top executors the actors' pipelines.
func (f *fragment) finish() {
	for i, a := range f.actors {
		a.Exec = f.execs[i]
	}
}

// newFragment starts a fragment of n actors.
func (b *jobBuilder) newFragment(kind string, n int) *fragment {
	f := &fragment{id: len(b.frags), kind: kind, vnodes: storage.SplitVnodes(n), execs: make([]stream.Executor, n)}
	for range n {
		f.actors = append(f.actors, b.newActor())
	}
	b.frags = append(b.frags, f)
	return f
}

// parallelism is the number of actors of a fragment partitioned by a key
// of n columns: the job's parallelism, or 1 for no key (every row hashes
// to vnode 0).
func (b *jobBuilder) parallelism(keyLen int) int {
	if keyLen == 0 {
		return 1
	}
	return b.par
}

// exchange ends fragment from: its actors dispatch their rows, hashed on
// the key columns, to the actors of to. It returns, per actor of to, the
// receivers of its channels from from's actors.
func exchange(from, to *fragment, key []int) ([][]*stream.Receiver, error) {
	typ := from.types()
	keyTypes := make([]types.Type, len(key))
	for i, c := range key {
		keyTypes[i] = typ[c]
	}
	recvs := make([][]*stream.Receiver, len(to.actors))
	to.inputs = append(to.inputs, FragmentInput{Fragment: from.id, Key: slices.Clone(key)})
	from.finish()
	for _, sa := range from.actors {
		outs := make([]*stream.Output, len(to.actors))
		for d, da := range to.actors {
			ch := make(chan stream.Message, channelCapacity)
			outs[d] = &stream.Output{Actor: da.ID, C: ch}
			recvs[d] = append(recvs[d], &stream.Receiver{C: ch, Typ: typ})
		}
		ex, err := stream.NewExchange(outs, to.vnodes, key, keyTypes)
		if err != nil {
			return nil, err
		}
		sa.Out.AddExchange(ex)
	}
	return recvs, nil
}

// Inlet is how the actors of one scan fragment of a job receive the
// changes of their upstream relation: each actor owns a vnode set of the
// upstream and reads a Merge of one channel per top actor of the upstream;
// Connect makes the channels and the exchanges the top actors dispatch
// through.
type Inlet struct {
	// Upstream is the id of the relation scanned.
	Upstream uint32
	actors   []*stream.Actor
	merges   []*stream.Merge
	vnodes   []storage.VnodeBitmap
	key      []int
	keyTypes []types.Type
	typ      []types.Type
	// read, when not nil, are the upstream's columns the scan reads
	// (its plan's, its keys): a source generates only the columns its
	// exchanges' receivers read (stream.Exchange.SetReads).
	read []bool
}

// Connect wires the inlet to the top actors of its upstream (before the
// scan actors start): it returns the exchange each of tops must dispatch
// to, in tops order (attached when building the graph, or by an Add
// mutation). topVnodes, when given, are the vnodes each top owns: a top
// whose vnodes all belong to one scan actor sends to that actor alone,
// without hashing its rows (a no-shuffle exchange: a table and a view
// over it with the same parallelism). It is called once.
func (in *Inlet) Connect(tops []stream.ActorID, topVnodes []storage.VnodeBitmap) ([]*stream.Exchange, error) {
	if len(tops) == 0 {
		return nil, fmt.Errorf("planner: relation %d has no top actor", in.Upstream)
	}
	all := make([]int, len(in.actors))
	for d := range all {
		all[d] = d
	}
	exs := make([]*stream.Exchange, len(tops))
	for t := range tops {
		dests, owned := all, in.vnodes
		if len(topVnodes) == len(tops) {
			if d := in.soleOwner(&topVnodes[t]); d >= 0 {
				dests, owned = []int{d}, []storage.VnodeBitmap{storage.AllVnodes()}
			}
		}
		outs := make([]*stream.Output, len(dests))
		for i, d := range dests {
			ch := make(chan stream.Message, channelCapacity)
			outs[i] = &stream.Output{Actor: in.actors[d].ID, C: ch}
			in.merges[d].AddInput(&stream.Receiver{C: ch, Typ: in.typ})
		}
		ex, err := stream.NewExchange(outs, owned, in.key, in.keyTypes)
		if err != nil {
			return nil, err
		}
		ex.SetReads(in.read)
		exs[t] = ex
	}
	return exs, nil
}

// soleOwner returns the scan actor that owns every vnode of vs, or -1.
func (in *Inlet) soleOwner(vs *storage.VnodeBitmap) int {
	for d := range in.vnodes {
		if vs.SubsetOf(&in.vnodes[d]) {
			return d
		}
	}
	return -1
}

// subset reports whether every column of a is in b.
func subset(a, b []int) bool {
	for _, c := range a {
		if !slices.Contains(b, c) {
			return false
		}
	}
	return true
}
