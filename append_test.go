package streamdb_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb"
)

// peopleSchema is the Arrow schema of the batches loaded into people:
// every column but note and n, which have defaults.
var peopleSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "born", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "seen", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "small", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// person is a row of peopleSchema; nil pointers are NULLs.
type person struct {
	id    int64
	name  *string
	score *float64
	born  *time.Time
	seen  *time.Time
	cents *int64
	flag  *bool
	small *int64
}

func ptr[T any](v T) *T { return &v }

func peopleBatch(ps ...person) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, peopleSchema)
	defer b.Release()
	for _, p := range ps {
		b.Field(0).(*array.Int64Builder).Append(p.id)
		appendOr(b.Field(1), p.name, func(v string) { b.Field(1).(*array.StringBuilder).Append(v) })
		appendOr(b.Field(2), p.score, func(v float64) { b.Field(2).(*array.Float64Builder).Append(v) })
		appendOr(b.Field(3), p.born, func(v time.Time) { b.Field(3).(*array.Date32Builder).Append(arrow.Date32FromTime(v)) })
		appendOr(b.Field(4), p.seen, func(v time.Time) { b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(v.UnixMilli())) })
		appendOr(b.Field(5), p.cents, func(v int64) { b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(v)) })
		appendOr(b.Field(6), p.flag, func(v bool) { b.Field(6).(*array.BooleanBuilder).Append(v) })
		appendOr(b.Field(7), p.small, func(v int64) { b.Field(7).(*array.Int64Builder).Append(v) })
	}
	return b.NewRecordBatch()
}

func appendOr[T any](b array.Builder, v *T, f func(T)) {
	if v == nil {
		b.AppendNull()
		return
	}
	f(*v)
}

func openPeople(t *testing.T) (*streamdb.DB, context.Context) {
	t.Helper()
	db, err := streamdb.Open("", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE people (id bigint PRIMARY KEY, name text, score double precision, born date,
			seen timestamp with time zone, amount numeric(10,2), flag boolean, small smallint,
			note text DEFAULT 'none', n int DEFAULT 7, must text)`,
		"CREATE MATERIALIZED VIEW people_stats AS SELECT count(*) AS n, sum(score) AS total FROM people",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, ctx
}

// TestAppend loads Arrow batches and reads them back: values, NULLs, the
// defaults of columns the batch leaves out, and a view over the table
// up to date when Append returns.
func TestAppend(t *testing.T) {
	db, ctx := openPeople(t)
	born := time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)
	seen := time.Date(2024, 1, 2, 3, 4, 5, 678000000, time.UTC)
	rec := peopleBatch(
		person{1, ptr("ann"), ptr(1.5), &born, &seen, ptr(int64(12345)), ptr(true), ptr(int64(-3))},
		person{id: 2},
		person{3, ptr("cé"), ptr(2.5), nil, &seen, ptr(int64(-5)), ptr(false), ptr(int64(32767))},
	)
	defer rec.Release()
	if err := db.Append(ctx, "people", rec); err != nil {
		t.Fatal(err)
	}
	got := queryValues(t, db, "SELECT * FROM people ORDER BY id")
	want := [][]any{
		{int64(1), "ann", 1.5, born, seen, "123.45", true, int64(-3), "none", int64(7), nil},
		{int64(2), nil, nil, nil, nil, nil, nil, nil, "none", int64(7), nil},
		{int64(3), "cé", 2.5, nil, seen, "-0.05", false, int64(32767), "none", int64(7), nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
	if v := queryValues(t, db, "SELECT * FROM people_stats"); !reflect.DeepEqual(v, [][]any{{int64(3), 4.0}}) {
		t.Fatalf("view right after Append: %v", v)
	}

	// Several batches as one statement.
	r1, r2 := peopleBatch(person{id: 10, score: ptr(1.0)}), peopleBatch(person{id: 11, score: ptr(2.0)}, person{id: 12})
	defer r1.Release()
	defer r2.Release()
	rdr, err := array.NewRecordReader(peopleSchema, []arrow.RecordBatch{r1, r2})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if n, err := db.AppendReader(ctx, "people", rdr); err != nil || n != 3 {
		t.Fatalf("AppendReader: %d %v", n, err)
	}
	if v := queryValues(t, db, "SELECT * FROM people_stats"); !reflect.DeepEqual(v, [][]any{{int64(6), 7.0}}) {
		t.Fatalf("view after AppendReader: %v", v)
	}

	// A text value loads as COPY's text format reads it.
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "born", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.StringBuilder).Append("20")
	b.Field(1).(*array.StringBuilder).Append("2020-02-02")
	trec := b.NewRecordBatch()
	b.Release()
	defer trec.Release()
	if err := db.Append(ctx, "people", trec); err != nil {
		t.Fatal(err)
	}
	if v := queryValues(t, db, "SELECT born FROM people WHERE id = 20"); !reflect.DeepEqual(v, [][]any{{time.Date(2020, 2, 2, 0, 0, 0, 0, time.UTC)}}) {
		t.Fatalf("text into date: %v", v)
	}
}

// TestAppendErrors: a duplicate key fails as COPY's does (23505, the
// same detail, the line), loads nothing, and leaves the view as it was;
// so do a value out of range, an unknown column and a NULL key.
func TestAppendErrors(t *testing.T) {
	db, ctx := openPeople(t)
	first := peopleBatch(person{id: 1, score: ptr(1.0)}, person{id: 2, score: ptr(2.0)})
	defer first.Release()
	if err := db.Append(ctx, "people", first); err != nil {
		t.Fatal(err)
	}
	dup := peopleBatch(person{id: 5}, person{id: 2})
	defer dup.Release()
	err := db.Append(ctx, "people", dup)
	var pe *streamdb.Error
	if !errors.As(err, &pe) || pe.Code != "23505" || pe.Detail != "Key (id)=(2) already exists." {
		t.Fatalf("duplicate: %#v", err)
	}
	_, copyErr := db.CopyFrom(ctx, "COPY people (id) FROM STDIN", strings.NewReader("5\n2\n"))
	var ce *streamdb.Error
	if !errors.As(copyErr, &ce) || ce.Code != pe.Code || ce.Message != pe.Message || ce.Detail != pe.Detail || ce.Where != pe.Where {
		t.Fatalf("Append's error %#v, COPY's %#v", pe, ce)
	}
	within := peopleBatch(person{id: 7}, person{id: 7})
	defer within.Release()
	if err := db.Append(ctx, "people", within); !errors.As(err, &pe) || pe.Code != "23505" {
		t.Fatalf("duplicate within the batch: %v", err)
	}
	big := peopleBatch(person{id: 8, small: ptr(int64(40000))})
	defer big.Release()
	if err := db.Append(ctx, "people", big); !errors.As(err, &pe) || pe.Code != "22003" || pe.Where != "COPY people, line 1, column small" {
		t.Fatalf("out of range: %#v", err)
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "nope", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).AppendNull()
	b.Field(1).(*array.Int64Builder).Append(1)
	bad := b.NewRecordBatch()
	b.Release()
	defer bad.Release()
	if err := db.Append(ctx, "people", bad); !errors.As(err, &pe) || pe.Code != "42703" {
		t.Fatalf("unknown column: %v", err)
	}
	nullKey := peopleBatch(person{id: 9})
	defer nullKey.Release()
	nk, _ := nullKey.SetColumn(0, bad.Column(0))
	defer nk.Release()
	if err := db.Append(ctx, "people", nk); !errors.As(err, &pe) || pe.Code != "23502" {
		t.Fatalf("NULL key: %v", err)
	}
	if err := db.Append(ctx, "nope", first); !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("unknown table: %v", err)
	}
	if v := queryValues(t, db, "SELECT * FROM people_stats"); !reflect.DeepEqual(v, [][]any{{int64(2), 3.0}}) {
		t.Fatalf("view after failed Appends: %v", v)
	}
}
