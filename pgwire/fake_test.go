package pgwire

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// fakeBackend is a Backend whose sessions understand a tiny command
// language, enough to drive every protocol path:
//
//	SELECT 1, 2            one row of int4 values
//	SELECT $1::int8, $2    echo the parameters (untyped ones as text)
//	series N               N rows of int8 0..N-1, tag "SELECT N"
//	types                  one row holding a value of every type
//	null                   one row with a NULL text
//	sleep                  block until the statement context ends
//	fail                   syntax error (at Prepare / Run) with position
//	failexec               division by zero at execution
//	boom                   panic
//	begin|commit|rollback  transaction tags
//	insert                 tag "INSERT 0 5"
//	notice                 a NOTICE, then tag "DO"
//	copyin [binary]        COPY FROM STDIN: read the data, tag "COPY <lines>";
//	                       a line "bad" fails the statement (22P02)
//	copyout N [binary]     COPY TO STDOUT: N rows "i\n", tag "COPY N"
type fakeBackend struct {
	opened, closed atomic.Int32
	running        chan struct{} // if set, "sleep" signals it on start
	ended          chan struct{} // if set, "sleep" signals it on return
	maxSleep       time.Duration // if set, "sleep" returns after this long
}

func (b *fakeBackend) NewSession(_ context.Context, user, database string) (Session, error) {
	if database == "nodb" {
		return nil, pgerr.New("3D000", "database %q does not exist", database)
	}
	b.opened.Add(1)
	return &fakeSession{b: b}, nil
}

type fakeSession struct{ b *fakeBackend }

func (s *fakeSession) Close() error { s.b.closed.Add(1); return nil }

func (s *fakeSession) Run(ctx context.Context, query string, w ResultWriter) error {
	for _, q := range strings.Split(query, ";") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		_, cols, err := describe(q, nil)
		if err != nil {
			return err
		}
		if cols != nil {
			if err := w.Columns(cols); err != nil {
				return err
			}
		}
		if err := s.exec(ctx, q, nil, w); err != nil {
			return err
		}
	}
	return nil
}

func (s *fakeSession) Prepare(_ context.Context, query string, ptypes []types.Type) ([]types.Type, []Column, error) {
	return describe(strings.TrimSpace(query), ptypes)
}

func (s *fakeSession) Execute(ctx context.Context, query string, args []types.Datum, w ResultWriter) error {
	q := strings.TrimSpace(query)
	if _, cols, err := describe(q, nil); err == nil && cols != nil && !strings.Contains(q, "$") {
		if err := w.Columns(cols); err != nil {
			return err
		}
	}
	return s.exec(ctx, q, args, w)
}

var typesCols = []Column{
	{"b", types.TBool}, {"i2", types.TInt16}, {"i4", types.TInt32}, {"i8", types.TInt64},
	{"f4", types.TFloat32}, {"f8", types.TFloat64}, {"num", types.TNumeric}, {"t", types.TText},
	{"vc", types.Type{ID: types.IDVarchar, Width: 10}}, {"d", types.TDate}, {"ts", types.TTimestamp},
	{"tstz", types.TTimestampTZ}, {"iv", types.TInterval},
}

func typesRow() []types.Datum {
	num, _, _ := apd.NewFromString("12.345")
	return []types.Datum{true, int64(1), int64(2), int64(3), 1.5, 2.25, num, "hi", "v",
		types.Date(19000), types.Timestamp(1_700_000_000_123_456), types.Timestamp(1_700_000_000_123_456),
		types.Interval{Months: 1, Days: 2, Micros: 3_000_000}}
}

// describe returns the parameter and result types of q.
func describe(q string, ptypes []types.Type) ([]types.Type, []Column, error) {
	word, rest, _ := strings.Cut(q, " ")
	switch strings.ToLower(word) {
	case "select":
		if strings.Contains(rest, "$") {
			return describeEcho(rest, ptypes)
		}
		var cols []Column
		for range strings.Split(rest, ",") {
			cols = append(cols, Column{"?column?", types.TInt32})
		}
		return nil, cols, nil
	case "series":
		return nil, []Column{{"n", types.TInt64}}, nil
	case "types":
		return nil, typesCols, nil
	case "null":
		return nil, []Column{{"x", types.TText}}, nil
	case "sleep":
		return nil, []Column{{"x", types.TInt32}}, nil
	case "fail":
		return nil, nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: `syntax error at or near "fail"`,
			Position: 1, Detail: "some detail", Hint: "some hint"}
	case "failexec", "boom", "begin", "commit", "rollback", "insert", "notice", "copyin", "copyout":
		return nil, nil, nil
	}
	return nil, nil, pgerr.New(pgerr.SyntaxError, "unknown fake command %q", q)
}

// describeEcho handles "SELECT $1::int8, $2": parameter i has the client's
// type, else the cast's, else unknown; the columns echo them.
func describeEcho(list string, ptypes []types.Type) ([]types.Type, []Column, error) {
	items := strings.Split(list, ",")
	params := make([]types.Type, len(items))
	cols := make([]Column, len(items))
	for i, item := range items {
		_, cast, _ := strings.Cut(strings.TrimSpace(item), "::")
		t := types.TUnknown
		if i < len(ptypes) && ptypes[i].ID != types.IDUnknown {
			t = ptypes[i]
		} else if id, ok := types.ByName(cast); ok {
			t = types.Type{ID: id}
		}
		params[i] = t
		cols[i] = Column{"p" + strconv.Itoa(i+1), t}
		if t.ID == types.IDUnknown {
			cols[i].Type = types.TText
		}
	}
	return params, cols, nil
}

func (s *fakeSession) exec(ctx context.Context, q string, args []types.Datum, w ResultWriter) error {
	word, rest, _ := strings.Cut(q, " ")
	switch strings.ToLower(word) {
	case "select":
		return execSelect(rest, args, w)
	case "series":
		n, _ := strconv.Atoi(rest)
		for i := range n {
			if err := w.Row([]types.Datum{int64(i)}); err != nil {
				return err
			}
		}
		return w.Complete(fmt.Sprintf("SELECT %d", n))
	case "types":
		if err := w.Row(typesRow()); err != nil {
			return err
		}
		return w.Complete("SELECT 1")
	case "null":
		if err := w.Row([]types.Datum{nil}); err != nil {
			return err
		}
		return w.Complete("SELECT 1")
	case "sleep":
		if s.b.running != nil {
			s.b.running <- struct{}{}
		}
		s.sleep(ctx)
		if s.b.ended != nil {
			s.b.ended <- struct{}{}
		}
		return fmt.Errorf("fake: sleeping: %w", context.Canceled)
	case "failexec":
		return pgerr.New(pgerr.DivisionByZero, "division by zero")
	case "boom":
		panic("boom")
	case "notice":
		if err := w.Notice("NOTICE", "progress 50%"); err != nil {
			return err
		}
		return w.Complete("DO")
	case "insert":
		return w.Complete("INSERT 0 5")
	case "copyin":
		return fakeCopyIn(rest, w)
	case "copyout":
		return fakeCopyOut(rest, w)
	}
	return w.Complete(strings.ToUpper(word))
}

func (s *fakeSession) sleep(ctx context.Context) {
	if s.b.maxSleep == 0 {
		<-ctx.Done()
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(s.b.maxSleep):
	}
}

func execSelect(list string, args []types.Datum, w ResultWriter) error {
	if strings.Contains(list, "$") {
		if err := w.Row(args); err != nil {
			return err
		}
		return w.Complete("SELECT 1")
	}
	var row []types.Datum
	for _, item := range strings.Split(list, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(item), 10, 64)
		if err != nil {
			return pgerr.New(pgerr.InvalidTextRep, "bad integer %q", item)
		}
		row = append(row, n)
	}
	if err := w.Row(row); err != nil {
		return err
	}
	return w.Complete("SELECT 1")
}
