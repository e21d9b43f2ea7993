package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// RowEncoder encodes the rows of one chunk of a table's rows, keys as
// AppendRowKeyAt and values as AppendRowAt do, byte for byte, but with
// each column's Arrow array and the way to encode it resolved once per
// chunk rather than once per value (an interface call and a type switch
// per value were a third of a fast view's write path). Values of types
// without a shortcut go through AppendKeyAt and appendValueAt. Reset it
// for each chunk; it holds the chunk's arrays until the next Reset.
type RowEncoder struct {
	t    *Table
	c    *chunk.Chunk
	cols []colEncoder
}

// colEncoder reads one column: kind says which of the slices is set.
type colEncoder struct {
	kind  colKind
	arr   arrow.Array
	nulls bool // the column has NULLs
	ints  []int64
	i32   []int32
	i16   []int16
	flts  []float64
	ts    []arrow.Timestamp
	dates []arrow.Date32
	strs  *array.String
	bin   *array.Binary
}

type colKind uint8

const (
	colOther     colKind = iota // AppendKeyAt, appendValueAt
	colInt64                    // an integer type in an Int64 array
	colInt32                    // in an Int32 array
	colInt16                    // in an Int16 array
	colFloat64                  // a float type in a Float64 array
	colTimestamp                // timestamp[tz] (int64 micros)
	colDate                     // date (int32 days)
	colString                   // text stored as a string (not json, arrays: their keys differ)
	colNumeric                  // numeric in its binary form
)

// Reset readies e to encode rows of c, a chunk of t's rows.
func (e *RowEncoder) Reset(t *Table, c *chunk.Chunk) error {
	if err := t.checkWidth(c); err != nil {
		return err
	}
	e.t, e.c = t, c
	e.cols = e.cols[:0]
	for col, typ := range t.Types {
		e.cols = append(e.cols, resolveColumn(typ, c, col))
	}
	return nil
}

// Clear drops e's references to the last chunk.
func (e *RowEncoder) Clear() {
	clear(e.cols)
	e.cols, e.c = e.cols[:0], nil
}

// resolveColumn returns how to encode column col of c as type t.
func resolveColumn(t types.Type, c *chunk.Chunk, col int) colEncoder {
	a := c.Rec.Column(col)
	ce := colEncoder{arr: a, nulls: a.NullN() > 0}
	switch a := a.(type) {
	case *array.Int64:
		if storedAsInt(t) {
			ce.kind, ce.ints = colInt64, a.Int64Values()
		}
	case *array.Int32:
		if storedAsInt(t) {
			ce.kind, ce.i32 = colInt32, a.Int32Values()
		}
	case *array.Int16:
		if storedAsInt(t) {
			ce.kind, ce.i16 = colInt16, a.Int16Values()
		}
	case *array.Float64:
		if t.IsFloat() {
			ce.kind, ce.flts = colFloat64, a.Float64Values()
		}
	case *array.Timestamp:
		if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
			ce.kind, ce.ts = colTimestamp, a.TimestampValues()
		}
	case *array.Date32:
		if t.ID == types.IDDate {
			ce.kind, ce.dates = colDate, a.Date32Values()
		}
	case *array.String:
		if keyedAsString(t) {
			ce.kind, ce.strs = colString, a
		}
	case *array.Binary:
		if t.ID == types.IDNumeric && c.Types[col].ID == types.IDNumeric {
			ce.kind, ce.bin = colNumeric, a
		}
	}
	return ce
}

// AppendKey appends the key of row i (AppendRowKeyAt).
func (e *RowEncoder) AppendKey(buf []byte, i int) ([]byte, error) {
	t := e.t
	start := len(buf)
	buf = appendVnodePrefix(buf, t.ID, 0)
	pkStart := len(buf)
	var err error
	for _, col := range t.DistKey {
		if buf, err = e.appendKey(buf, col, i); err != nil {
			return buf[:start], err
		}
	}
	binary.BigEndian.PutUint16(buf[pkStart-2:], vnodeOfDistKey(buf[pkStart:]))
	buf = buf[:pkStart]
	for _, col := range t.PK {
		if buf, err = e.appendKey(buf, col, i); err != nil {
			return buf, fmt.Errorf("table %d pk column %d: %w", t.ID, col, err)
		}
	}
	return buf, nil
}

// appendKey appends the key encoding of row i of column col.
func (e *RowEncoder) appendKey(buf []byte, col, i int) ([]byte, error) {
	ce := &e.cols[col]
	if ce.nulls && ce.arr.IsNull(i) {
		return append(buf, keyNull), nil
	}
	switch ce.kind {
	case colInt64:
		return appendIntKey(buf, ce.ints[i]), nil
	case colInt32:
		return appendIntKey(buf, int64(ce.i32[i])), nil
	case colInt16:
		return appendIntKey(buf, int64(ce.i16[i])), nil
	case colFloat64:
		return appendFloatKey(buf, ce.flts[i]), nil
	case colTimestamp:
		return appendTimestampKey(buf, types.Timestamp(ce.ts[i])), nil
	case colDate:
		return appendDateKey(buf, types.Date(ce.dates[i])), nil
	case colString:
		return appendStringKey(append(buf, keyPresent), ce.strs.Value(i)), nil
	}
	return AppendKeyAt(buf, e.t.Types[col], e.c, col, i)
}

// AppendValue appends the value encoding of row i (AppendRowAt).
func (e *RowEncoder) AppendValue(buf []byte, i int) ([]byte, error) {
	n := len(e.cols)
	buf = binary.AppendUvarint(buf, uint64(n))
	start := len(buf)
	buf = append(buf, make([]byte, (n+7)/8)...)
	for col := range e.cols {
		ce := &e.cols[col]
		if ce.nulls && ce.arr.IsNull(i) {
			buf[start+col/8] |= 1 << (col % 8)
			continue
		}
		switch ce.kind {
		case colInt64:
			buf = binary.AppendVarint(buf, ce.ints[i])
		case colTimestamp:
			buf = binary.AppendVarint(buf, int64(ce.ts[i]))
		case colInt32:
			buf = binary.AppendVarint(buf, int64(ce.i32[i]))
		case colDate:
			buf = binary.AppendVarint(buf, int64(ce.dates[i]))
		case colInt16:
			buf = binary.AppendVarint(buf, int64(ce.i16[i]))
		case colFloat64:
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ce.flts[i]))
		case colString:
			s := ce.strs.Value(i)
			buf = append(binary.AppendUvarint(buf, uint64(len(s))), s...)
		case colNumeric:
			buf = append(buf, ce.bin.Value(i)...)
		default:
			var err error
			if buf, err = appendValueAt(buf, e.t.Types[col], e.c, col, i); err != nil {
				return buf, fmt.Errorf("table %d: column %d: %w", e.t.ID, col, err)
			}
		}
	}
	return buf, nil
}
