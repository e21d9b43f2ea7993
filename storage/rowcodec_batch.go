package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// Batch decoding: a RowDecoder that decodes many rows before the chunk
// builder sees them (ChunkScan.AppendRows). The fixed-width columns of
// a scan's rows (integers, dates, timestamps, double precision) are
// decoded into plain Go slices, one per column ("staged"), and handed to
// their Arrow builder once per batch with AppendValues: a copy and a
// bulk validity update instead of a length check, a store and a
// validity bit per value. Other columns (bool, real, text, numeric,
// intervals, and columns whose Arrow builder is not the staged kind)
// are appended to their builder row by row as Append does, and pruned
// columns have their bytes skipped and a NULL appended, so a batch
// leaves the builder exactly as Append row by row would (the randomized
// TestAppendBatchMatchesAppend checks it). A row with no NULL and every
// column stored (the common case) is decoded without a bit test per
// column.
//
// The staged values are the builder's only once flush runs: a batch is
// begun (beginBatch), rows are staged (stageRow), and flush appends them
// and records the rows with their op. On error the builder holds part of
// the batch and must be discarded, as after a failed Append.

// stagedCol is one column's batch decoding step and, for the staged
// kinds, its values decoded since the batch began: row r of the batch at
// i64[r] (sized for the batch at its start), as an int64 whatever the
// column's width (a double precision as its IEEE bits), so that decoding
// a row is the same step for every staged column; flush narrows them.
type stagedCol struct {
	kind  valueKind
	i64   []int64
	valid []bool // nil while every value of the batch is non-NULL, else validBuf
	// validBuf is the array of valid, kept from batch to batch.
	validBuf []bool
}

// batch kinds: the staged decoding steps (valueKind continues here).
const (
	kindStageInt64 valueKind = iota + kindSkip + 1
	kindStageInt32
	kindStageInt16
	kindStageFloat64
	kindStageTimestamp
	kindStageDate
)

// bindBatch resolves each column's batch decoding step for builder b:
// the staged kinds where the column's Arrow builder is the one Append
// would fill with the same values, else Append's own step.
func (d *RowDecoder) bindBatch(b *chunk.Builder) {
	d.bind(b)
	d.batchBound = b
	d.staged = make([]stagedCol, len(d.ts))
	for i, t := range d.ts {
		k := d.kinds[i]
		switch k {
		case kindInt64:
			k = kindStageInt64
		case kindInt32:
			k = kindStageInt32
		case kindInt16:
			k = kindStageInt16
		case kindOther:
			switch d.cols[i].(type) {
			case *array.Float64Builder:
				if t.IsFloat() {
					k = kindStageFloat64
				}
			case *array.TimestampBuilder:
				if t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ {
					k = kindStageTimestamp
				}
			case *array.Date32Builder:
				if t.ID == types.IDDate {
					k = kindStageDate
				}
			}
		}
		d.staged[i].kind = k
	}
	d.varintsOnly = true
	for _, st := range d.staged {
		switch st.kind {
		case kindStageInt64, kindStageInt32, kindStageInt16, kindStageTimestamp:
		default:
			d.varintsOnly = false
		}
	}
}

// beginBatch readies d to stage up to room rows for b.
func (d *RowDecoder) beginBatch(b *chunk.Builder, room int) {
	if b != d.batchBound || b != d.bound {
		d.bindBatch(b)
	} else {
		b.Columns() // at a chunk's first row: makes room for its rows
	}
	d.batchRows = 0
	for i := range d.staged {
		st := &d.staged[i]
		if st.kind >= kindStageInt64 {
			st.i64 = sized(st.i64, room)
		}
		st.valid = nil
	}
	d.batchRoom, d.batchNulls = room, false
}

// sized returns a slice of n values, s's array when it has room.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// stageNull records a NULL as row r of column st (column i of the row).
func (d *RowDecoder) stageNull(st *stagedCol, i, r int) {
	if st.kind < kindStageInt64 {
		d.cols[i].AppendNull()
		return
	}
	st.i64[r] = 0
	d.batchNulls = true
	if st.valid == nil {
		// The rows staged before this one are all valid.
		st.validBuf = sized(st.validBuf, d.batchRoom)
		st.valid = st.validBuf
		for j := range r {
			st.valid[j] = true
		}
	}
	st.valid[r] = false
}

// zigzag decodes a zigzag varint (binary.Varint) from buf with uvarint's
// inline fast path; n <= 0 on error.
func zigzag(buf []byte) (int64, int) {
	u, n := uvarint(buf)
	return int64(u>>1) ^ -int64(u&1), n
}

// stageRow decodes the row buf (as written by EncodeRow) as the batch's
// next row; the caller has sized the batch (beginBatch) for it.
func (d *RowDecoder) stageRow(buf []byte) error {
	if d.table != nil {
		var err error
		if buf, err = d.fit(buf); err != nil {
			return err
		}
	}
	var n uint64
	if len(buf) > 0 && buf[0] < 0x80 {
		n, buf = uint64(buf[0]), buf[1:]
	} else {
		var k int
		if n, k = binary.Uvarint(buf); k <= 0 {
			return errCorrupt("row", "bad column count")
		}
		buf = buf[k:]
	}
	if n > uint64(len(d.staged)) {
		return errCorrupt("row", "bad column count")
	}
	nulls := (int(n) + 7) / 8
	if len(buf) < nulls {
		return errCorrupt("row", "short null bitmap")
	}
	bitmap, buf := buf[:nulls], buf[nulls:]
	// every: each column stored and none NULL, so no bit is tested.
	every := int(n) == len(d.staged)
	for _, m := range bitmap {
		if m != 0 {
			every = false
		}
	}
	r := d.batchRows
	if every && d.varintsOnly && !d.batchNulls {
		// The common row of an integer table: one step for every column
		// (and no validity to record: the batch has no NULL so far).
		for i := range d.staged {
			v, k := zigzag(buf)
			if k <= 0 {
				return errColumn(i, errCorrupt("integer value", "bad varint"))
			}
			d.staged[i].i64[r], buf = v, buf[k:]
		}
		if len(buf) != 0 {
			return errCorrupt("row", "trailing bytes")
		}
		d.batchRows++
		return nil
	}
	for i := range d.staged {
		st := &d.staged[i]
		if !every && (i >= int(n) || bitmap[i/8]&(1<<(i%8)) != 0) {
			d.stageNull(st, i, r)
			continue
		}
		var err error
		switch st.kind {
		case kindStageInt64, kindStageInt32, kindStageInt16, kindStageTimestamp:
			v, k := zigzag(buf)
			if k <= 0 {
				return errColumn(i, errCorrupt("integer value", "bad varint"))
			}
			st.i64[r], buf = v, buf[k:]
		case kindStageDate:
			v, k := zigzag(buf)
			if k <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
				return errColumn(i, errCorrupt("date value", "bad varint"))
			}
			st.i64[r], buf = v, buf[k:]
		case kindStageFloat64:
			if len(buf) < 8 {
				return errColumn(i, errCorrupt("float value", "short"))
			}
			st.i64[r], buf = int64(binary.LittleEndian.Uint64(buf)), buf[8:]
		case kindSkip:
			d.cols[i].AppendNull()
			buf, err = skipValue(buf, d.ts[i])
		default:
			buf, err = appendColumnValue(d.cols[i], d.ts[i], buf)
		}
		if err != nil {
			return errColumn(i, err)
		}
		if st.valid != nil {
			st.valid[r] = true
		}
	}
	if len(buf) != 0 {
		return errCorrupt("row", "trailing bytes")
	}
	d.batchRows++
	return nil
}

// errColumn wraps err, an error decoding column i, as Append does.
func errColumn(i int, err error) error { return fmt.Errorf("column %d: %w", i, err) }

// flush appends the staged values to their builders and records the
// batch's rows in b with operation op.
func (d *RowDecoder) flush(b *chunk.Builder, op chunk.Op) {
	r := d.batchRows
	if r == 0 {
		return
	}
	for i := range d.staged {
		st := &d.staged[i]
		if st.kind < kindStageInt64 {
			continue // appended row by row
		}
		var valid []bool
		if st.valid != nil {
			valid = st.valid[:r]
		}
		vals := st.i64[:r]
		switch st.kind {
		case kindStageInt64:
			d.i64[i].AppendValues(vals, valid)
		case kindStageInt32:
			d.i32[i].AppendValues(narrow[int32](&d.scratch32, vals), valid)
		case kindStageInt16:
			d.i16[i].AppendValues(narrow[int16](&d.scratch16, vals), valid)
		case kindStageFloat64:
			// The IEEE bits, as stored: reinterpreted, not converted.
			d.cols[i].(*array.Float64Builder).AppendValues(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(vals))), r), valid)
		case kindStageTimestamp:
			d.cols[i].(*array.TimestampBuilder).AppendValues(unsafe.Slice((*arrow.Timestamp)(unsafe.Pointer(unsafe.SliceData(vals))), r), valid)
		case kindStageDate:
			d.cols[i].(*array.Date32Builder).AppendValues(narrow[arrow.Date32](&d.scratchDate, vals), valid)
		}
	}
	b.AppendedRows(op, r)
	d.batchRows = 0
}

// narrow returns vals converted to T (truncating, as the row-by-row
// decoder does), in *scratch's array.
func narrow[T int16 | int32 | arrow.Date32](scratch *[]T, vals []int64) []T {
	out := sized(*scratch, len(vals))
	for j, v := range vals {
		out[j] = T(v)
	}
	*scratch = out
	return out
}
