package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

var pfTypes = []types.Type{types.TInt64, types.TText}

// drain pulls every message of ex and renders it: chunks as their changes,
// barriers as "|epoch".
func drain(t *testing.T, ex Executor) []string {
	t.Helper()
	var out []string
	for {
		m, err := ex.Next(context.Background())
		if errors.Is(err, errScriptEnd) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Barrier != nil {
			out = append(out, fmt.Sprintf("|%d", m.Barrier.Prev))
			continue
		}
		out = append(out, changeStrings(chunkChanges(t, m.Chunk))...)
		m.Chunk.Release()
	}
}

func TestProject(t *testing.T) {
	double := &fnExpr{typ: types.TInt64, name: "a*2", cols: []expr.Expr{expr.NewColumn(0, types.TInt64, "a")}, f: func(r []types.Datum) types.Datum {
		if r[0] == nil {
			return nil
		}
		return r[0].(int64) * 2
	}}
	in := &scriptExec{typs: pfTypes, msgs: []Message{
		chunkMsg(pfTypes, append([]change{ins(int64(1), "x"), del(nil, "y")},
			upd(trow{int64(2), "p"}, trow{int64(3), "q"})...)...),
		barrierMsg(1),
	}}
	p := NewProject(in, []expr.Expr{expr.NewColumn(1, types.TText, "b"), double})
	if !slices.Equal(p.Types(), []types.Type{types.TText, types.TInt64}) {
		t.Fatalf("Types = %v", p.Types())
	}
	want := []string{`+ ("x", 2)`, `- ("y", NULL)`, `U- ("p", 4)`, `U+ ("q", 6)`, "|1"}
	if got := drain(t, p); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestProjectEvalError(t *testing.T) {
	boom := &errExpr{}
	in := &scriptExec{typs: pfTypes, msgs: []Message{chunkMsg(pfTypes, ins(int64(1), "x"))}}
	if _, err := NewProject(in, []expr.Expr{boom}).Next(context.Background()); !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want the evaluation error", err)
	}
}

var errBoom = errors.New("boom")

type errExpr struct{ fnExpr }

func (*errExpr) Eval([]types.Datum) (types.Datum, error) { return nil, errBoom }
func (*errExpr) Type() types.Type                        { return types.TInt64 }

func TestFilter(t *testing.T) {
	// a > 1; NULL a is dropped.
	cond := &fnExpr{typ: types.TBool, name: "a > 1", cols: []expr.Expr{expr.NewColumn(0, types.TInt64, "a")}, f: func(r []types.Datum) types.Datum {
		if r[0] == nil {
			return nil
		}
		return r[0].(int64) > 1
	}}
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
	want := []string{`+ (2, "keep")`, `- (5, "keep-del")`, `U- (2, "both")`, `U+ (3, "both")`,
		`- (2, "old")`, `+ (9, "new")`, `+ (4, "lone")`, "|1"}
	if got := drain(t, NewFilter(in, cond)); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
