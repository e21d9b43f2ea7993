package chunk

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take returns a new chunk of the rows of c at the given indexes, in that
// order, with the given ops (len(ops) == len(rows)). Values are copied a
// column at a time, without decoding them to Datums. c stays owned by the
// caller; the caller owns the result.
func Take(c *Chunk, rows []int, ops []Op) *Chunk {
	n := int(c.Rec.NumCols())
	cols := make([]arrow.Array, n)
	for j := range n {
		cols[j] = takeColumn(c.Rec.Column(j), rows)
	}
	rec := array.NewRecordBatch(c.Rec.Schema(), cols, int64(len(rows)))
	for _, a := range cols {
		a.Release()
	}
	return &Chunk{Rec: rec, Ops: ops, Types: c.Types}
}

func takeColumn(col arrow.Array, rows []int) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, col.DataType())
	defer b.Release()
	b.Reserve(len(rows))
	switch a := col.(type) {
	case *array.Boolean:
		takeValues(a, b.(*array.BooleanBuilder), rows)
	case *array.Int16:
		takeValues(a, b.(*array.Int16Builder), rows)
	case *array.Int32:
		takeValues(a, b.(*array.Int32Builder), rows)
	case *array.Int64:
		takeValues(a, b.(*array.Int64Builder), rows)
	case *array.Float32:
		takeValues(a, b.(*array.Float32Builder), rows)
	case *array.Float64:
		takeValues(a, b.(*array.Float64Builder), rows)
	case *array.Date32:
		takeValues(a, b.(*array.Date32Builder), rows)
	case *array.Timestamp:
		takeValues(a, b.(*array.TimestampBuilder), rows)
	case *array.MonthDayNanoInterval:
		takeValues(a, b.(*array.MonthDayNanoIntervalBuilder), rows)
	case *array.String:
		takeValues(a, b.(*array.StringBuilder), rows)
	default:
		panic(fmt.Sprintf("chunk: unsupported arrow column %T", col))
	}
	return b.NewArray()
}

// valueArray and appender are the typed Arrow arrays and builders Take
// copies between.
type valueArray[T any] interface {
	IsNull(i int) bool
	Value(i int) T
}

type appender[T any] interface {
	Append(v T)
	AppendNull()
}

func takeValues[T any](a valueArray[T], b appender[T], rows []int) {
	for _, i := range rows {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(a.Value(i))
	}
}
