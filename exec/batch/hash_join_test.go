package batch

import (
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// joinInputs: left (id, lv) and right (id, rv), with NULL keys on both
// sides, a duplicate key on the right, and unmatched rows on both sides.
func joinInputs() (Executor, Executor) {
	l := rowsOf([]types.Type{i64, text},
		row(int64(1), "l1"), row(int64(2), "l2"), row(nil, "lnull"), row(int64(4), "l4"))
	r := rowsOf([]types.Type{i64, text},
		row(int64(2), "r2a"), row(int64(1), "r1"), row(int64(2), "r2b"), row(nil, "rnull"), row(int64(3), "r3"))
	return l, r
}

func TestHashJoinKinds(t *testing.T) {
	cases := []struct {
		kind JoinKind
		want string
	}{
		{InnerJoin, `
1 l1 1 r1
2 l2 2 r2a
2 l2 2 r2b
`},
		{LeftJoin, `
1 l1 1 r1
2 l2 2 r2a
2 l2 2 r2b
NULL lnull NULL NULL
4 l4 NULL NULL
`},
		{RightJoin, `
1 l1 1 r1
2 l2 2 r2a
2 l2 2 r2b
NULL NULL NULL rnull
NULL NULL 3 r3
`},
		{FullJoin, `
1 l1 1 r1
2 l2 2 r2a
2 l2 2 r2b
NULL lnull NULL NULL
4 l4 NULL NULL
NULL NULL NULL rnull
NULL NULL 3 r3
`},
	}
	for _, c := range cases {
		l, r := joinInputs()
		j := NewHashJoin(l, r, c.kind, []int{0}, []int{0}, nil)
		t.Run(c.kind.name(), func(t *testing.T) { expect(t, run(t, j), c.want) })
	}
}

func (k JoinKind) name() string { return [...]string{"inner", "left", "right", "full"}[k] }

// TestHashJoinResidual: a pair failing the residual condition is no match,
// so outer joins pad those rows.
func TestHashJoinResidual(t *testing.T) {
	l := rowsOf([]types.Type{i64, i64}, row(int64(1), int64(10)), row(int64(2), int64(20)))
	r := rowsOf([]types.Type{i64, i64}, row(int64(1), int64(5)), row(int64(2), int64(50)))
	// Condition on the right row's second column (index 3): > 7.
	j := NewHashJoin(l, r, FullJoin, []int{0}, []int{0}, intGreater{col: 3, k: 7})
	expect(t, run(t, j), `
1 10 NULL NULL
2 20 2 50
NULL NULL 1 5
`)
}

func TestCrossJoinAndKeylessOuter(t *testing.T) {
	l := rowsOf([]types.Type{i64}, row(int64(1)), row(int64(2)))
	r := rowsOf([]types.Type{i64}, row(int64(10)), row(int64(20)))
	expect(t, run(t, NewHashJoin(l, r, InnerJoin, nil, nil, nil)), `
1 10
1 20
2 10
2 20
`)
	l = rowsOf([]types.Type{i64}, row(int64(1)), row(int64(2)))
	r = rowsOf([]types.Type{i64}, row(int64(10)), row(int64(20)))
	// Left join with only a residual condition: right.x > 15.
	expect(t, run(t, NewHashJoin(l, r, LeftJoin, nil, nil, intGreater{col: 1, k: 15})), `
1 20
2 20
`)
	empty := rowsOf([]types.Type{i64})
	l = rowsOf([]types.Type{i64}, row(int64(1)))
	expect(t, run(t, NewHashJoin(l, empty, LeftJoin, nil, nil, nil)), "1 NULL\n")
}

// TestHashJoinLargeOutput checks a join producing more than a chunk's rows
// from one left chunk splits its output.
func TestHashJoinLargeOutput(t *testing.T) {
	var lrows, rrows [][]types.Datum
	for i := range 100 {
		lrows = append(lrows, row(int64(i)))
		rrows = append(rrows, row(int64(i)))
	}
	j := NewHashJoin(rowsOf([]types.Type{i64}, lrows...), rowsOf([]types.Type{i64}, rrows...), InnerJoin, nil, nil, nil)
	defer j.Close()
	total := 0
	for {
		c, err := j.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		if c.NumRows() > ChunkSize {
			t.Fatalf("chunk of %d rows", c.NumRows())
		}
		total += c.NumRows()
		c.Release()
	}
	if total != 10000 {
		t.Fatalf("got %d rows", total)
	}
}
