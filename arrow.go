package streamdb

import (
	"context"
	"math/big"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ArrowBatchRows is how many rows each record batch of QueryArrow holds
// (the last one fewer).
const ArrowBatchRows = 8192

// The Arrow type of each SQL type, in QueryArrow's results (every field
// nullable):
//
//	boolean                     bool
//	smallint, integer, bigint   int16, int32, int64
//	real, double precision      float32, float64
//	numeric(p,s), p <= 38       decimal128(p, s)
//	numeric (unconstrained)     utf8, its Postgres text
//	text, varchar, json, jsonb  utf8
//	bytea                       binary
//	date                        date32
//	timestamp                   timestamp[us] (no time zone: the wall-clock reading)
//	timestamp with time zone    timestamp[us, UTC]
//	interval                    month_day_nano_interval
//	time                        time64[us]
//	uuid                        fixed_size_binary[16]
//	character(n)                utf8 (blank-padded)
//	any other type              utf8, its Postgres text
func arrowType(t types.Type) arrow.DataType {
	switch t.ID {
	case types.IDBool:
		return arrow.FixedWidthTypes.Boolean
	case types.IDInt16:
		return arrow.PrimitiveTypes.Int16
	case types.IDInt32:
		return arrow.PrimitiveTypes.Int32
	case types.IDInt64:
		return arrow.PrimitiveTypes.Int64
	case types.IDFloat32:
		return arrow.PrimitiveTypes.Float32
	case types.IDFloat64:
		return arrow.PrimitiveTypes.Float64
	case types.IDNumeric:
		if t.Precision > 0 && t.Precision <= 38 {
			return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
		}
	case types.IDBytea:
		return arrow.BinaryTypes.Binary
	case types.IDTime:
		return arrow.FixedWidthTypes.Time64us
	case types.IDUUID:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}
	case types.IDDate:
		return arrow.FixedWidthTypes.Date32
	case types.IDTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case types.IDTimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case types.IDInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	}
	return arrow.BinaryTypes.String
}

// RecordReader is a query's rows as Arrow record batches of up to
// ArrowBatchRows rows each, built as the rows stream from the executor.
// It implements array.RecordReader: the batch RecordBatch returns is
// valid until the next call of Next (Retain it to keep it). Release it,
// or Close it, when done; its Err is an *Error.
type RecordReader struct {
	refs   atomic.Int64
	rows   *Rows
	types  []types.Type
	schema *arrow.Schema
	b      *array.RecordBuilder
	cur    arrow.RecordBatch
	err    error
}

var _ array.RecordReader = (*RecordReader)(nil)

// QueryArrow runs a query on a new session and returns its rows as Arrow
// record batches.
func (db *DB) QueryArrow(ctx context.Context, query string, args ...any) (*RecordReader, error) {
	return db.NewSession().QueryArrow(ctx, query, args...)
}

// QueryArrow runs query on this session and returns the last statement's
// rows as Arrow record batches; see DB.QueryArrow.
func (s *Session) QueryArrow(ctx context.Context, query string, args ...any) (*RecordReader, error) {
	rows, err := s.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	rr := &RecordReader{rows: rows}
	fields := make([]arrow.Field, len(rows.Columns))
	for i, c := range rows.r.Columns {
		rr.types = append(rr.types, c.Type)
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true}
	}
	rr.schema = arrow.NewSchema(fields, nil)
	rr.b = array.NewRecordBuilder(memory.DefaultAllocator, rr.schema)
	rr.refs.Store(1)
	return rr, nil
}

// Schema returns the batches' schema.
func (r *RecordReader) Schema() *arrow.Schema { return r.schema }

// Next builds the next batch; it reports false at the end or on an error
// (see Err).
func (r *RecordReader) Next() bool {
	r.releaseCur()
	if r.err != nil {
		return false
	}
	n := 0
	for n < ArrowBatchRows && r.rows.Next() {
		if err := r.appendRow(); err != nil {
			r.err = err
			r.rows.Close()
			return false
		}
		n++
	}
	if err := r.rows.Err(); err != nil {
		r.err = err
		return false
	}
	if n == 0 {
		return false
	}
	r.cur = r.b.NewRecordBatch()
	return true
}

func (r *RecordReader) appendRow() error {
	for i, d := range r.rows.r.Row() {
		if err := appendArrow(r.b.Field(i), d, r.types[i]); err != nil {
			return scanError(i, r.rows.Columns[i].Name, err)
		}
	}
	return nil
}

// RecordBatch returns the current batch.
func (r *RecordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *RecordReader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended the batches, if any.
func (r *RecordReader) Err() error { return r.err }

// Retain adds a reference.
func (r *RecordReader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one closes the reader.
func (r *RecordReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.close()
	}
}

// Close ends the batches and frees what the reader holds, whatever its
// references. It is idempotent.
func (r *RecordReader) Close() error {
	r.close()
	return nil
}

func (r *RecordReader) close() {
	r.releaseCur()
	r.rows.Close()
	if r.b != nil {
		r.b.Release()
		r.b = nil
	}
}

func (r *RecordReader) releaseCur() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// appendArrow appends d, of SQL type t, to fb, a builder of arrowType(t).
func appendArrow(fb array.Builder, d types.Datum, t types.Type) error {
	if d == nil {
		fb.AppendNull()
		return nil
	}
	switch b := fb.(type) {
	case *array.BooleanBuilder:
		b.Append(d.(bool))
	case *array.Int16Builder:
		b.Append(int16(d.(int64)))
	case *array.Int32Builder:
		b.Append(int32(d.(int64)))
	case *array.Int64Builder:
		b.Append(d.(int64))
	case *array.Float32Builder:
		b.Append(float32(d.(float64)))
	case *array.Float64Builder:
		b.Append(d.(float64))
	case *array.Decimal128Builder:
		n, err := decimal128Of(d.(*apd.Decimal), t.Scale)
		if err != nil {
			return err
		}
		b.Append(n)
	case *array.BinaryBuilder:
		if s, ok := d.(string); ok && t.ID == types.IDBytea {
			b.AppendString(s)
		} else {
			b.AppendString(textOf(d, t))
		}
	case *array.Date32Builder:
		b.Append(arrow.Date32(d.(types.Date)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(d.(int64)))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte(d.(string)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(d.(types.Timestamp)))
	case *array.MonthDayNanoIntervalBuilder:
		iv := d.(types.Interval)
		ns := iv.Micros * 1000
		if ns/1000 != iv.Micros {
			return &Error{Code: pgerr.DatetimeFieldOverflow, Message: "interval out of range for Arrow's month_day_nano_interval"}
		}
		b.Append(arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: ns})
	case *array.StringBuilder:
		b.Append(textOf(d, t))
	}
	return nil
}

// decimalCtx rounds exactly numbers of any size numeric holds.
var decimalCtx = apd.BaseContext.WithPrecision(1000)

// decimal128Of is d at scale as a decimal128.
func decimal128Of(d *apd.Decimal, scale int) (decimal128.Num, error) {
	if d.Form != apd.Finite {
		return decimal128.Num{}, &Error{Code: pgerr.NumericOutOfRange, Message: "cannot convert " + d.String() + " to decimal128"}
	}
	var q apd.Decimal
	if _, err := decimalCtx.Quantize(&q, d, int32(-scale)); err != nil {
		return decimal128.Num{}, &Error{Code: pgerr.NumericOutOfRange, Message: err.Error()}
	}
	n := new(big.Int).Set(q.Coeff.MathBigInt())
	if n.BitLen() > 126 {
		return decimal128.Num{}, &Error{Code: pgerr.NumericOutOfRange, Message: "numeric value " + d.String() + " out of range for decimal128"}
	}
	if q.Negative {
		n.Neg(n)
	}
	return decimal128.FromBigInt(n), nil
}
