package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// exchangeRig is an exchange to n outputs (buffered channels) keyed on
// column 0 of kv rows.
type exchangeRig struct {
	ex    *Exchange
	outs  []chan Message
	owned []storage.VnodeBitmap
}

func newExchangeRig(t *testing.T, n int) *exchangeRig {
	t.Helper()
	r := &exchangeRig{owned: storage.SplitVnodes(n)}
	var outs []*Output
	for i := range n {
		ch := make(chan Message, 64)
		r.outs = append(r.outs, ch)
		outs = append(outs, &Output{Actor: ActorID(i + 1), C: ch})
	}
	ex, err := NewExchange(outs, r.owned, []int{0}, kvTypes[:1])
	if err != nil {
		t.Fatal(err)
	}
	r.ex = ex
	return r
}

// owner is the output that owns the vnode of key k.
func (r *exchangeRig) owner(t *testing.T, k int64) int {
	v, err := storage.VnodeOf(kvTypes[:1], []types.Datum{k})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.owned {
		if r.owned[i].Has(v) {
			return i
		}
	}
	t.Fatalf("vnode %d has no owner", v)
	return -1
}

// drain returns the changes each output received, chunk by chunk checked
// for whole update pairs, and the barriers it received.
func (r *exchangeRig) drain(t *testing.T) ([][]change, []int) {
	t.Helper()
	got := make([][]change, len(r.outs))
	barriers := make([]int, len(r.outs))
	for i, ch := range r.outs {
		for len(ch) > 0 {
			m := <-ch
			if m.Barrier != nil {
				barriers[i]++
				continue
			}
			got[i] = append(got[i], chunkChanges(t, m.Chunk)...)
			m.Chunk.Release()
		}
	}
	return got, barriers
}

// TestExchangeRoutesByVnode: every row reaches the owner of its key's
// vnode (as storage computes it), in order; barriers reach every output.
func TestExchangeRoutesByVnode(t *testing.T) {
	r := newExchangeRig(t, 3)
	var cs []change
	for k := range int64(200) {
		cs = append(cs, ins(k, k*10))
	}
	ctx := context.Background()
	if err := r.ex.sendChunk(ctx, chunkMsg(kvTypes, cs...).Chunk); err != nil {
		t.Fatal(err)
	}
	if err := r.ex.sendBarrier(ctx, barrierMsg(1)); err != nil {
		t.Fatal(err)
	}
	got, barriers := r.drain(t)
	total := 0
	for i, g := range got {
		if barriers[i] != 1 {
			t.Errorf("output %d got %d barriers", i, barriers[i])
		}
		last := int64(-1)
		for _, c := range g {
			k := c.row[0].(int64)
			if o := r.owner(t, k); o != i {
				t.Errorf("key %d (owner %d) sent to output %d", k, o, i)
			}
			if k <= last {
				t.Errorf("output %d: key %d after %d", i, k, last)
			}
			last = k
		}
		total += len(g)
	}
	if total != 200 {
		t.Fatalf("%d rows delivered, want 200", total)
	}
}

// TestExchangeSplitsUpdatePairs: an update whose key moves to another
// owner becomes a Delete there and an Insert at the new owner; one that
// stays keeps its pair; a lone half becomes a plain Delete or Insert.
func TestExchangeSplitsUpdatePairs(t *testing.T) {
	r := newExchangeRig(t, 4)
	a, b := int64(-1), int64(-1) // two keys with different owners
	for k := int64(0); b < 0; k++ {
		switch {
		case a < 0:
			a = k
		case r.owner(t, k) != r.owner(t, a):
			b = k
		}
	}
	cs := append(upd(trow{a, int64(1)}, trow{b, int64(2)}), upd(trow{a, int64(3)}, trow{a, int64(4)})...)
	cs = append(cs, change{chunk.UpdateInsert, trow{b, int64(5)}}, ins(a, int64(6)))
	if err := r.ex.sendChunk(context.Background(), chunkMsg(kvTypes, cs...).Chunk); err != nil {
		t.Fatal(err)
	}
	got, _ := r.drain(t)
	render := func(cs []change) string {
		s := ""
		for _, c := range cs {
			s += fmt.Sprintf("%s%v ", c.op, c.row[1])
		}
		return s
	}
	if s := render(got[r.owner(t, a)]); s != "-1 U-3 U+4 +6 " {
		t.Errorf("owner of %d got %q", a, s)
	}
	if s := render(got[r.owner(t, b)]); s != "+2 +5 " {
		t.Errorf("owner of %d got %q", b, s)
	}
}

// TestExchangeForwardsSingleOwnerChunk: a chunk whose rows all belong to
// one owner is forwarded as is, without a copy.
func TestExchangeForwardsSingleOwnerChunk(t *testing.T) {
	r := newExchangeRig(t, 2)
	c := chunkMsg(kvTypes, ins(int64(7), int64(1)), del(int64(7), int64(1))).Chunk
	if err := r.ex.sendChunk(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	m := <-r.outs[r.owner(t, 7)]
	if m.Chunk != c {
		t.Fatal("single-owner chunk was copied")
	}
	m.Chunk.Release()
}

// TestExchangeRejectsBadOwnership: vnode sets must be disjoint and cover
// every vnode.
func TestExchangeRejectsBadOwnership(t *testing.T) {
	outs := []*Output{{Actor: 1}, {Actor: 2}}
	all := storage.AllVnodes()
	if _, err := NewExchange(outs, []storage.VnodeBitmap{all, all}, nil, nil); err == nil {
		t.Error("overlapping vnode sets accepted")
	}
	if _, err := NewExchange(outs, []storage.VnodeBitmap{all, {}}, nil, nil); err != nil {
		t.Errorf("an output owning no vnode is fine: %v", err)
	}
	if _, err := NewExchange(outs, []storage.VnodeBitmap{storage.SplitVnodes(2)[0], {}}, nil, nil); err == nil {
		t.Error("uncovered vnodes accepted")
	}
}
