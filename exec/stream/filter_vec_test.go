package stream

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// aGreater builds the bound a > k over pfTypes, which package vec
// compiles.
func aGreater(t testing.TB, k int64) expr.Expr {
	t.Helper()
	e, err := expr.Binary(">", expr.NewColumn(0, types.TInt64, "a"), expr.NewConst(k, types.TInt32))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// rowFilter is NewFilter forced onto the row evaluator.
func rowFilter(in Executor, cond expr.Expr) *Filter {
	f := NewFilter(in, cond)
	f.pred = nil
	return f
}

// TestFilterVectorized is TestFilter with a condition the kernels
// evaluate: the same rows, ops and update pairs.
func TestFilterVectorized(t *testing.T) {
	var cs []change
	cs = append(cs, ins(int64(1), "drop"), ins(int64(2), "keep"), ins(nil, "null"), del(int64(5), "keep-del"))
	cs = append(cs, upd(trow{int64(2), "both"}, trow{int64(3), "both"})...)  // pair kept
	cs = append(cs, upd(trow{int64(2), "old"}, trow{int64(0), "old"})...)    // -> Delete
	cs = append(cs, upd(trow{int64(0), "new"}, trow{int64(9), "new"})...)    // -> Insert
	cs = append(cs, upd(trow{int64(0), "neither"}, trow{nil, "neither"})...) // dropped
	cs = append(cs, change{chunk.UpdateInsert, trow{int64(4), "lone"}})      // unpaired -> Insert
	in := &scriptExec{typs: pfTypes, msgs: []Message{
		chunkMsg(pfTypes, cs...),
		chunkMsg(pfTypes, ins(int64(0), "all-dropped")),
		barrierMsg(1),
	}}
	f := NewFilter(in, aGreater(t, 1))
	if f.pred == nil {
		t.Fatal("a > 1 did not compile")
	}
	want := []string{`+ (2, "keep")`, `- (5, "keep-del")`, `U- (2, "both")`, `U+ (3, "both")`,
		`- (2, "old")`, `+ (9, "new")`, `+ (4, "lone")`, "|1"}
	if got := drain(t, f); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestFilterVectorizedAllPass: a chunk whose rows all pass with their ops
// is handed on itself; one whose unpaired update changes op is not.
func TestFilterVectorizedAllPass(t *testing.T) {
	whole := chunkMsg(pfTypes, append([]change{ins(int64(5), "a")}, upd(trow{int64(6), "b"}, trow{int64(7), "b"})...)...)
	lone := chunkMsg(pfTypes, ins(int64(5), "a"), change{chunk.UpdateDelete, trow{int64(6), "b"}})
	in := &scriptExec{typs: pfTypes, msgs: []Message{whole, lone}}
	f := NewFilter(in, aGreater(t, 1))
	m, err := f.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Chunk.Rec != whole.Chunk.Rec {
		t.Fatal("a chunk whose rows all pass was copied")
	}
	m.Chunk.Release()
	m, err = f.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Chunk.Ops, []chunk.Op{chunk.Insert, chunk.Delete}) {
		t.Fatalf("ops %v, want [+ -]", m.Chunk.Ops)
	}
	m.Chunk.Release()
}

// TestFilterVectorizedRandom compares the vectorized filter with the row
// filter on random chunks of inserts, deletes, update pairs and unpaired
// updates, and on an overflow error.
func TestFilterVectorizedRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ops := []chunk.Op{chunk.Insert, chunk.Delete, chunk.UpdateDelete, chunk.UpdateInsert}
	for iter := range 300 {
		var msgs, msgs2 []Message
		for range 1 + r.Intn(3) {
			var cs []change
			for range r.Intn(150) {
				var a types.Datum = int64(r.Intn(6))
				if r.Intn(8) == 0 {
					a = nil
				}
				op := ops[r.Intn(4)]
				if op == chunk.UpdateDelete && r.Intn(4) > 0 {
					cs = append(cs, upd(trow{a, "o"}, trow{int64(r.Intn(6)), "n"})...)
					continue
				}
				cs = append(cs, change{op, trow{a, "x"}})
			}
			msgs = append(msgs, chunkMsg(pfTypes, cs...))
			msgs2 = append(msgs2, chunkMsg(pfTypes, cs...))
		}
		k := int64(r.Intn(7) - 1)
		cond := aGreater(t, k)
		if iter%10 == 0 { // a * a overflows nowhere; a * big does on some rows
			big := int64(1) << 62
			mul, err := expr.Binary("*", expr.NewColumn(0, types.TInt64, "a"), expr.NewConst(big, types.TInt64))
			if err != nil {
				t.Fatal(err)
			}
			if cond, err = expr.Binary(">", mul, expr.NewConst(int64(0), types.TInt32)); err != nil {
				t.Fatal(err)
			}
		}
		vecCond, rowCond := cond, cond
		var vecSink, rowSink errorList
		if iter%20 == 0 { // a view's filter: data errors drop the row
			vecCond, rowCond = expr.Guard(cond, &vecSink), expr.Guard(cond, &rowSink)
		}
		got, gotErr := drainErr(NewFilter(&scriptExec{typs: pfTypes, msgs: msgs}, vecCond))
		want, wantErr := drainErr(rowFilter(&scriptExec{typs: pfTypes, msgs: msgs2}, rowCond))
		if !slices.Equal(vecSink, rowSink) {
			t.Fatalf("%s: sink got %q, want %q", cond, vecSink, rowSink)
		}
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s: error %v, want %v", cond, gotErr, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", cond, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}

// drainErr is drain that stops at the first error other than the end of
// the script, and checks the update pairs of each chunk.
func drainErr(ex Executor) ([]string, error) {
	var out []string
	for {
		m, err := ex.Next(context.Background())
		if err == errScriptEnd {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var b strings.Builder
		for i := 0; i < m.Chunk.NumRows(); i++ {
			b.WriteString(m.Chunk.Op(i).String())
			b.WriteString(rowString(m.Chunk.Row(i, nil)))
			b.WriteByte(';')
		}
		out = append(out, b.String())
		m.Chunk.Release()
	}
}

func rowString(row []types.Datum) string {
	var b strings.Builder
	for _, v := range row {
		if v == nil {
			b.WriteString("NULL,")
			continue
		}
		fmt.Fprintf(&b, "%v,", v)
	}
	return b.String()
}

// errorList is an expr.ErrorSink recording the errors' texts.
type errorList []string

func (l *errorList) EvalError(err error) { *l = append(*l, err.Error()) }
