package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/types"
)

// Columns is a batch of rows held as Arrow columns (a chunk's record),
// with each column's SQL type, for writing rows without making a Datum of
// each value. Value decodes one value the slow way, for the types the
// encoders below do not read straight from Arrow.
type Columns struct {
	Cols  []arrow.Array
	Types []types.Type
	Value func(col arrow.Array, t types.Type, i int) types.Datum
}

// InsertAt stages row i of cs, as Insert(w, row) would: same key, same
// value bytes.
func (t *Table) InsertAt(w *WriteBatch, cs Columns, i int) error {
	if len(cs.Cols) != len(t.Types) {
		return fmt.Errorf("%w: table %d: row has %d columns, want %d", ErrBadLayout, t.ID, len(cs.Cols), len(t.Types))
	}
	var err error
	if w.key, err = t.appendRowKeyAt(w.key[:0], cs, i); err != nil {
		return err
	}
	if w.val, err = encodeRowAt(w.val[:0], t.Types, cs, i); err != nil {
		return fmt.Errorf("table %d: %w", t.ID, err)
	}
	return w.set(w.key, w.val)
}

// DeleteAt stages the deletion of the row with the pk of row i of cs.
func (t *Table) DeleteAt(w *WriteBatch, cs Columns, i int) error {
	if len(cs.Cols) != len(t.Types) {
		return fmt.Errorf("%w: table %d: row has %d columns, want %d", ErrBadLayout, t.ID, len(cs.Cols), len(t.Types))
	}
	var err error
	if w.key, err = t.appendRowKeyAt(w.key[:0], cs, i); err != nil {
		return err
	}
	return w.delete(w.key)
}

// appendRowKeyAt is appendRowKey of row i of cs.
func (t *Table) appendRowKeyAt(buf []byte, cs Columns, i int) ([]byte, error) {
	start := len(buf)
	buf = appendVnodePrefix(buf, t.ID, 0)
	pkStart := len(buf)
	var err error
	for _, c := range t.DistKey {
		if buf, err = appendKeyAt(buf, t.Types[c], cs, c, i); err != nil {
			return buf[:start], err
		}
	}
	binary.BigEndian.PutUint16(buf[pkStart-2:], vnodeOfDistKey(buf[pkStart:]))
	buf = buf[:pkStart]
	for _, c := range t.PK {
		if buf, err = appendKeyAt(buf, t.Types[c], cs, c, i); err != nil {
			return buf, fmt.Errorf("table %d pk column %d: %w", t.ID, c, err)
		}
	}
	return buf, nil
}

// appendKeyAt is AppendKey of row i of column c, as type t.
func appendKeyAt(buf []byte, t types.Type, cs Columns, c, i int) ([]byte, error) {
	col := cs.Cols[c]
	if col.IsNull(i) {
		return append(buf, keyNull), nil
	}
	switch a := col.(type) {
	case *array.Int64:
		if t.IsInteger() {
			return AppendKeyInt(buf, a.Value(i)), nil
		}
	case *array.Int32:
		if t.IsInteger() {
			return AppendKeyInt(buf, int64(a.Value(i))), nil
		}
	case *array.Int16:
		if t.IsInteger() {
			return AppendKeyInt(buf, int64(a.Value(i))), nil
		}
	case *array.String:
		if storedAsString(t) && cs.Types[c].ID != types.IDNumeric {
			return appendStringKey(append(buf, keyPresent), a.Value(i)), nil
		}
	}
	return AppendKey(buf, t, cs.Value(col, cs.Types[c], i))
}

// encodeRowAt is EncodeRow of row i of cs.
func encodeRowAt(buf []byte, ts []types.Type, cs Columns, i int) ([]byte, error) {
	n := len(ts)
	buf = binary.AppendUvarint(buf, uint64(n))
	start := len(buf)
	buf = append(buf, make([]byte, (n+7)/8)...)
	for c, col := range cs.Cols {
		if col.IsNull(i) {
			buf[start+c/8] |= 1 << (c % 8)
			continue
		}
		var err error
		if buf, err = appendValueAt(buf, ts[c], cs, c, i); err != nil {
			return buf, fmt.Errorf("column %d: %w", c, err)
		}
	}
	return buf, nil
}

// appendValueAt is appendValue of the non-NULL row i of column c.
func appendValueAt(buf []byte, t types.Type, cs Columns, c, i int) ([]byte, error) {
	switch a := cs.Cols[c].(type) {
	case *array.Int64:
		if t.IsInteger() {
			return binary.AppendVarint(buf, a.Value(i)), nil
		}
	case *array.Int32:
		if t.IsInteger() {
			return binary.AppendVarint(buf, int64(a.Value(i))), nil
		}
	case *array.Int16:
		if t.IsInteger() {
			return binary.AppendVarint(buf, int64(a.Value(i))), nil
		}
	case *array.Float64:
		if t.IsFloat() {
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(a.Value(i))), nil
		}
	case *array.Timestamp:
		if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
			return binary.AppendVarint(buf, int64(a.Value(i))), nil
		}
	case *array.Date32:
		if t.ID == types.IDDate {
			return binary.AppendVarint(buf, int64(a.Value(i))), nil
		}
	case *array.Boolean:
		if t.ID == types.IDBool {
			return append(buf, boolByte(a.Value(i))), nil
		}
	case *array.String:
		if storedAsString(t) && cs.Types[c].ID != types.IDNumeric {
			s := a.Value(i)
			return append(binary.AppendUvarint(buf, uint64(len(s))), s...), nil
		}
	}
	return appendValue(buf, t, cs.Value(cs.Cols[c], cs.Types[c], i))
}
