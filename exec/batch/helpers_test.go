package batch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// rowsOf is a Values executor over literal rows of the given types.
func rowsOf(ts []types.Type, rows ...[]types.Datum) Executor {
	out := make([][]expr.Expr, len(rows))
	for i, r := range rows {
		out[i] = make([]expr.Expr, len(r))
		for j, v := range r {
			out[i][j] = expr.NewConst(v, ts[j])
		}
	}
	return NewValues(out, ts)
}

func row(vals ...types.Datum) []types.Datum { return vals }

// run drains and closes e, returning its rows rendered one per line.
func run(t *testing.T, e Executor) string {
	t.Helper()
	rows, err := ReadAll(context.Background(), e)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return render(rows)
}

func render(rows [][]types.Datum) string {
	var sb strings.Builder
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(renderDatum(v))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func renderDatum(v types.Datum) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case *types.Decimal:
		return x.Text('f')
	}
	return fmt.Sprint(v)
}

func expect(t *testing.T, got, want string) {
	t.Helper()
	want = strings.TrimLeft(want, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// intGreater is a test condition col > k over bigint columns, so the
// executors can be tested apart from the expression library.
type intGreater struct {
	col int
	k   int64
}

func (g intGreater) Type() types.Type { return types.TBool }
func (g intGreater) Eval(row []types.Datum) (types.Datum, error) {
	if row[g.col] == nil {
		return nil, nil
	}
	return row[g.col].(int64) > g.k, nil
}
func (g intGreater) String() string                { return fmt.Sprintf("$%d > %d", g.col, g.k) }
func (g intGreater) Children() []expr.Expr         { return nil }
func (g intGreater) WithChildren([]expr.Expr) Expr { return g }

// Expr is expr.Expr, shortened for the test types above.
type Expr = expr.Expr

// counting wraps an executor and counts calls of Next.
type counting struct {
	Executor
	calls int
}

func (c *counting) Next(ctx context.Context) (*chunk.Chunk, error) {
	c.calls++
	return c.Executor.Next(ctx)
}

var (
	i64  = types.TInt64
	i32  = types.TInt32
	text = types.TText
)
