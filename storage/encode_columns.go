package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// InsertAt stages row i of c, as Insert(w, c.Row(i, nil)) would (same
// key, same value bytes), without making a Datum of each value.
func (t *Table) InsertAt(w *WriteBatch, c *chunk.Chunk, i int) error {
	if err := t.checkWidth(c); err != nil {
		return err
	}
	var err error
	if w.key, err = t.appendRowKeyAt(w.key[:0], c, i); err != nil {
		return err
	}
	if w.val, err = encodeRowAt(w.val[:0], t.Types, c, i); err != nil {
		return fmt.Errorf("table %d: %w", t.ID, err)
	}
	return w.set(w.key, w.val)
}

// DeleteAt stages the deletion of the row with the pk of row i of c.
func (t *Table) DeleteAt(w *WriteBatch, c *chunk.Chunk, i int) error {
	if err := t.checkWidth(c); err != nil {
		return err
	}
	var err error
	if w.key, err = t.appendRowKeyAt(w.key[:0], c, i); err != nil {
		return err
	}
	return w.delete(w.key)
}

func (t *Table) checkWidth(c *chunk.Chunk) error {
	if n := int(c.Rec.NumCols()); n != len(t.Types) {
		return fmt.Errorf("%w: table %d: row has %d columns, want %d", ErrBadLayout, t.ID, n, len(t.Types))
	}
	return nil
}

// AppendRowKeyAt appends the key of row i of c, a chunk of the table's
// rows (AppendRowKey without Datums).
func (t *Table) AppendRowKeyAt(buf []byte, c *chunk.Chunk, i int) ([]byte, error) {
	if err := t.checkWidth(c); err != nil {
		return buf, err
	}
	return t.appendRowKeyAt(buf, c, i)
}

// AppendRowAt appends the value encoding (EncodeRow) of row i of c, a
// chunk of the table's rows.
func (t *Table) AppendRowAt(buf []byte, c *chunk.Chunk, i int) ([]byte, error) {
	if err := t.checkWidth(c); err != nil {
		return buf, err
	}
	buf, err := encodeRowAt(buf, t.Types, c, i)
	if err != nil {
		return buf, fmt.Errorf("table %d: %w", t.ID, err)
	}
	return buf, nil
}

// appendRowKeyAt is appendRowKey of row i of c.
func (t *Table) appendRowKeyAt(buf []byte, c *chunk.Chunk, i int) ([]byte, error) {
	start := len(buf)
	buf = appendVnodePrefix(buf, t.ID, 0)
	pkStart := len(buf)
	var err error
	for _, col := range t.DistKey {
		if buf, err = AppendKeyAt(buf, t.Types[col], c, col, i); err != nil {
			return buf[:start], err
		}
	}
	binary.BigEndian.PutUint16(buf[pkStart-2:], vnodeOfDistKey(buf[pkStart:]))
	buf = buf[:pkStart]
	for _, col := range t.PK {
		if buf, err = AppendKeyAt(buf, t.Types[col], c, col, i); err != nil {
			return buf, fmt.Errorf("table %d pk column %d: %w", t.ID, col, err)
		}
	}
	return buf, nil
}

// AppendKeyAt appends the key encoding, as type t, of row i of column col
// of c: AppendKey(buf, t, chunk.Value(...)) without boxing a Datum of
// integers, strings, floats and intervals.
func AppendKeyAt(buf []byte, t types.Type, c *chunk.Chunk, col, i int) ([]byte, error) {
	a := c.Rec.Column(col)
	if a.IsNull(i) {
		return append(buf, keyNull), nil
	}
	switch a := a.(type) {
	case *array.Int64:
		if storedAsInt(t) {
			return appendIntKey(buf, a.Value(i)), nil
		}
	case *array.Int32:
		if storedAsInt(t) {
			return appendIntKey(buf, int64(a.Value(i))), nil
		}
	case *array.Int16:
		if storedAsInt(t) {
			return appendIntKey(buf, int64(a.Value(i))), nil
		}
	case *array.String:
		if keyedAsString(t) {
			return appendStringKey(append(buf, keyPresent), a.Value(i)), nil
		}
	case *array.Float64:
		if t.IsFloat() {
			return appendFloatKey(buf, a.Value(i)), nil
		}
	case *array.Binary:
		if t.ID == types.IDNumeric && c.Types[col].ID == types.IDNumeric {
			var d types.Decimal
			if _, err := types.DecodeNumericBinary(&d, a.Value(i)); err != nil {
				return buf, errCorrupt("numeric column", "bad encoding")
			}
			return appendNumericKey(append(buf, keyPresent), &d), nil
		}
	case *array.MonthDayNanoInterval:
		if t.ID == types.IDInterval {
			return appendIntervalKey(append(buf, keyPresent), chunk.IntervalAt(a, i)), nil
		}
	case *array.Timestamp:
		if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
			return appendTimestampKey(buf, types.Timestamp(a.Value(i))), nil
		}
	case *array.Date32:
		if t.ID == types.IDDate {
			return appendDateKey(buf, types.Date(a.Value(i))), nil
		}
	}
	return AppendKey(buf, t, chunk.Value(a, c.Types[col], i))
}

// encodeRowAt is EncodeRow of row i of c.
func encodeRowAt(buf []byte, ts []types.Type, c *chunk.Chunk, i int) ([]byte, error) {
	n := len(ts)
	buf = binary.AppendUvarint(buf, uint64(n))
	start := len(buf)
	buf = append(buf, make([]byte, (n+7)/8)...)
	for col := range n {
		if c.Rec.Column(col).IsNull(i) {
			buf[start+col/8] |= 1 << (col % 8)
			continue
		}
		var err error
		if buf, err = appendValueAt(buf, ts[col], c, col, i); err != nil {
			return buf, fmt.Errorf("column %d: %w", col, err)
		}
	}
	return buf, nil
}

// appendValueAt is appendValue of the non-NULL row i of column col.
func appendValueAt(buf []byte, t types.Type, c *chunk.Chunk, col, i int) ([]byte, error) {
	switch a := c.Rec.Column(col).(type) {
	case *array.Int64:
		if storedAsInt(t) {
			return binary.AppendVarint(buf, a.Value(i)), nil
		}
	case *array.Int32:
		if storedAsInt(t) {
			return binary.AppendVarint(buf, int64(a.Value(i))), nil
		}
	case *array.Int16:
		if storedAsInt(t) {
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
		if storedAsString(t) {
			s := a.Value(i)
			return append(binary.AppendUvarint(buf, uint64(len(s))), s...), nil
		}
	case *array.Binary:
		if t.ID == types.IDNumeric && c.Types[col].ID == types.IDNumeric {
			// A numeric column holds the value encoding (plain, as
			// chunk.Value's Decimal would encode).
			return append(buf, a.Value(i)...), nil
		}
	}
	return appendValue(buf, t, chunk.Value(c.Rec.Column(col), c.Types[col], i))
}
