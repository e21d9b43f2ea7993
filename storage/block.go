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

// Columnar blocks: up to blockMaxRows consecutive rows of one vnode of a
// table, in pk order, stored under one key (see block_keys.go) as
// columns rather than rows. A bulk load into an empty table writes them
// (issue 22): a scan then costs one Pebble key per block instead of one
// per row, and copies a block's fixed-width columns into Arrow builders
// with one memmove each instead of decoding every value.
//
// The format (version 1):
//
//	version byte (1) | uvarint(rows) | uvarint(columns) |
//	per column: uvarint(section length) | section
//
// and a column's section:
//
//	kind byte | nulls byte (0: none, 1: a bitmap follows) |
//	[bitmap: ceil(rows/8) bytes, bit r set = row r is NULL] | values
//
// by kind:
//   - blockInt (integers, dates, timestamps): frame of reference: the
//     least value (8 bytes little-endian), a width w (1, 2, 4 or 8) and
//     rows * w bytes, each value less the least as an unsigned
//     little-endian integer (0 where NULL): a block of ids or of small
//     numbers loads a half or a quarter of the bytes of plain int64s,
//     and a scan is bounded by loading and decompressing Pebble's
//     blocks (BenchmarkScanCeiling/table-blocks);
//   - blockFloat (real, double precision): rows * 8 bytes, the IEEE bits
//     of the float64 little-endian, as the row codec keeps them;
//   - blockVar (every other type): (rows+1) uint32 little-endian offsets
//     into the bytes that follow, each value as the row codec's
//     appendValue writes it (empty where NULL).
//
// Each column's length comes first, so a reader skips the columns it
// does not read without looking at them. The version byte lets the
// format change block by block.

// blockVersion is the format version blocks are written with.
const blockVersion byte = 1

// blockMaxRows is the most rows a block holds: about where
// BenchmarkScanCeiling stopped gaining (128 rows: 44 ns/row, 1024: 42).
const blockMaxRows = 128

// blockKind is how a column's values are laid out in a block.
type blockKind uint8

const (
	blockInt blockKind = iota
	blockFloat
	blockVar
)

func blockKindOf(t types.Type) blockKind {
	switch {
	case storedAsInt(t), t.ID == types.IDDate, t.ID == types.IDTimestamp, t.ID == types.IDTimestampTZ:
		return blockInt
	case t.IsFloat():
		return blockFloat
	}
	return blockVar
}

// littleEndian: the host's integers are little-endian, so a block's
// values copy into Go slices as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// BlockEncoder builds a block from rows encoded by EncodeRow. Not safe
// for concurrent use; reusable after Finish.
type BlockEncoder struct {
	ts    []types.Type
	kinds []blockKind
	cols  []blockColEnc
	rows  int
}

// blockColEnc is one column of the block being built.
type blockColEnc struct {
	nulls []byte // bitmap, grown per row
	any   bool   // a NULL was added
	vals  []byte // blockFloat: 8 bytes a row; blockVar: the values' bytes
	ints  []int64
	offs  []uint32
}

// NewBlockEncoder returns an encoder of blocks of rows of types ts.
func NewBlockEncoder(ts []types.Type) *BlockEncoder {
	e := &BlockEncoder{ts: ts, kinds: make([]blockKind, len(ts)), cols: make([]blockColEnc, len(ts))}
	for i, t := range ts {
		e.kinds[i] = blockKindOf(t)
	}
	e.Reset()
	return e
}

// Rows returns the number of rows added since the last Finish.
func (e *BlockEncoder) Rows() int { return e.rows }

// Reset drops the rows added.
func (e *BlockEncoder) Reset() {
	e.rows = 0
	for i := range e.cols {
		c := &e.cols[i]
		c.nulls, c.any, c.vals, c.ints, c.offs = c.nulls[:0], false, c.vals[:0], c.ints[:0], append(c.offs[:0], 0)
	}
}

// Add appends a row, as EncodeRow wrote it, to the block.
func (e *BlockEncoder) Add(row []byte) error {
	n, k := binary.Uvarint(row)
	if k <= 0 || n > uint64(len(e.ts)) {
		return errCorrupt("row", "bad column count")
	}
	row = row[k:]
	nb := (int(n) + 7) / 8
	if len(row) < nb {
		return errCorrupt("row", "short null bitmap")
	}
	bitmap, row := row[:nb], row[nb:]
	r := e.rows
	for i := range e.cols {
		c := &e.cols[i]
		if r%8 == 0 {
			c.nulls = append(c.nulls, 0)
		}
		if i >= int(n) || bitmap[i/8]&(1<<(i%8)) != 0 {
			c.nulls[r/8] |= 1 << (r % 8)
			c.any = true
			switch e.kinds[i] {
			case blockVar:
				c.offs = append(c.offs, uint32(len(c.vals)))
			case blockInt:
				c.ints = append(c.ints, nullInt)
			default:
				c.vals = binary.LittleEndian.AppendUint64(c.vals, 0)
			}
			continue
		}
		rest, err := skipValue(row, e.ts[i])
		if err != nil {
			return errColumn(i, err)
		}
		v := row[:len(row)-len(rest)]
		row = rest
		switch e.kinds[i] {
		case blockInt:
			x, k := binary.Varint(v)
			if k != len(v) {
				return errColumn(i, errCorrupt("integer value", "bad varint"))
			}
			c.ints = append(c.ints, x)
		case blockFloat:
			c.vals = append(c.vals, v...)
		default:
			c.vals = append(c.vals, v...)
			if len(c.vals) > math.MaxUint32 {
				return fmt.Errorf("%w: block column %d too large", ErrBadLayout, i)
			}
			c.offs = append(c.offs, uint32(len(c.vals)))
		}
	}
	if len(row) != 0 {
		return errCorrupt("row", "trailing bytes")
	}
	e.rows++
	return nil
}

// Finish appends the block of the rows added to buf and resets e.
func (e *BlockEncoder) Finish(buf []byte) []byte {
	buf = append(buf, blockVersion)
	buf = binary.AppendUvarint(buf, uint64(e.rows))
	buf = binary.AppendUvarint(buf, uint64(len(e.cols)))
	for i := range e.cols {
		c := &e.cols[i]
		if e.kinds[i] == blockInt {
			c.vals = appendFrame(c.vals[:0], c.ints, c.nulls)
		}
		size := 2 + len(c.vals)
		if c.any {
			size += len(c.nulls)
		}
		if e.kinds[i] == blockVar {
			size += 4 * len(c.offs)
		}
		buf = binary.AppendUvarint(buf, uint64(size))
		buf = append(buf, byte(e.kinds[i]))
		if c.any {
			buf = append(append(buf, 1), c.nulls...)
		} else {
			buf = append(buf, 0)
		}
		if e.kinds[i] == blockVar {
			for _, o := range c.offs {
				buf = binary.LittleEndian.AppendUint32(buf, o)
			}
		}
		buf = append(buf, c.vals...)
	}
	e.Reset()
	return buf
}

// nullInt stands for a NULL among an integer column's values until
// appendFrame stores it as the least value.
const nullInt = math.MinInt64

// appendFrame appends the frame of reference of vals (blockInt), the
// rows whose bit is set in nulls being NULL.
func appendFrame(buf []byte, vals []int64, nulls []byte) []byte {
	lo, hi, any := int64(0), int64(0), false
	for r, v := range vals {
		if nulls[r/8]&(1<<(r%8)) != 0 {
			continue
		}
		if !any || v < lo {
			lo = v
		}
		if !any || v > hi {
			hi = v
		}
		any = true
	}
	span := uint64(hi) - uint64(lo)
	width := 8
	switch {
	case span <= math.MaxUint8:
		width = 1
	case span <= math.MaxUint16:
		width = 2
	case span <= math.MaxUint32:
		width = 4
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(lo))
	buf = append(buf, byte(width))
	for r, v := range vals {
		d := uint64(v) - uint64(lo)
		if nulls[r/8]&(1<<(r%8)) != 0 {
			d = 0
		}
		switch width {
		case 1:
			buf = append(buf, byte(d))
		case 2:
			buf = binary.LittleEndian.AppendUint16(buf, uint16(d))
		case 4:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(d))
		default:
			buf = binary.LittleEndian.AppendUint64(buf, d)
		}
	}
	return buf
}

// block is a decoded view of a block's bytes (it aliases them).
type block struct {
	rows int
	cols []blockCol
}

// blockCol is one column of a block.
type blockCol struct {
	kind  blockKind
	nulls []byte // nil when the column has no NULL
	vals  []byte
	offs  []byte // blockVar: (rows+1) uint32 offsets into vals
	// base and width: blockInt's frame of reference (blockFloat: 0, 8).
	base  int64
	width int
}

// parseBlock reads the layout of buf (a block of rows of types ts) into
// b, reusing its columns. A column added after the block was written
// reads as missing holds it (the table's Missing values, see
// missing.go; nil or short: NULL).
func parseBlock(b *block, buf []byte, ts []types.Type, missing []types.Datum) error {
	if len(buf) < 1 || buf[0] != blockVersion {
		return errCorrupt("block", "unknown version")
	}
	buf = buf[1:]
	rows, k := binary.Uvarint(buf)
	if k <= 0 || rows == 0 || rows > 1<<20 {
		return errCorrupt("block", "bad row count")
	}
	buf = buf[k:]
	ncols, k := binary.Uvarint(buf)
	if k <= 0 || ncols > 1600 {
		return errCorrupt("block", "bad column count")
	}
	buf = buf[k:]
	b.rows = int(rows)
	b.cols = sized(b.cols, len(ts))
	for i := range b.cols {
		c := &b.cols[i]
		if i >= int(ncols) {
			// A column added after the block was written: all NULL.
			*c = blockCol{kind: blockKindOf(ts[i]), nulls: allNulls(b.rows), width: 8}
			if c.kind == blockVar {
				c.offs = make([]byte, 4*(b.rows+1))
			} else {
				c.vals = make([]byte, 8*b.rows)
			}
			continue
		}
		size, k := binary.Uvarint(buf)
		if k <= 0 || size > uint64(len(buf)-k) {
			return errCorrupt("block", "bad column length")
		}
		sec := buf[k : k+int(size)]
		buf = buf[k+int(size):]
		if err := c.parse(sec, b.rows, ts[i]); err != nil {
			return errColumn(i, err)
		}
	}
	// Columns past ts (a reader that knows the table as it was before an
	// ADD COLUMN, Table.Prefix) are skipped.
	for i := len(ts); i < int(ncols); i++ {
		size, k := binary.Uvarint(buf)
		if k <= 0 || size > uint64(len(buf)-k) {
			return errCorrupt("block", "bad column length")
		}
		buf = buf[k+int(size):]
	}
	if len(buf) != 0 {
		return errCorrupt("block", "trailing bytes")
	}
	if int(ncols) < len(ts) && hasMissing(missing, int(ncols)) {
		return fillMissing(b, ts, missing, int(ncols))
	}
	return nil
}

// hasMissing reports whether missing holds a value for a column from
// the from'th on.
func hasMissing(missing []types.Datum, from int) bool {
	for i := from; i < len(missing); i++ {
		if missing[i] != nil {
			return true
		}
	}
	return false
}

// fillMissing sets the columns of b from the from'th on, which its block
// was written without, to the table's missing values: it encodes a block
// of b.rows copies of them and takes its columns. Only blocks older than
// an ALTER TABLE ... ADD COLUMN with a DEFAULT take this step.
func fillMissing(b *block, ts []types.Type, missing []types.Datum, from int) error {
	tail := make([]types.Datum, len(ts)-from)
	copy(tail, missing[min(from, len(missing)):])
	row, err := EncodeRow(nil, ts[from:], tail)
	if err != nil {
		return fmt.Errorf("missing values: %w", err)
	}
	enc := NewBlockEncoder(ts[from:])
	for range b.rows {
		if err := enc.Add(row); err != nil {
			return fmt.Errorf("missing values: %w", err)
		}
	}
	var filled block
	if err := parseBlock(&filled, enc.Finish(nil), ts[from:], nil); err != nil {
		return fmt.Errorf("missing values: %w", err)
	}
	copy(b.cols[from:], filled.cols)
	return nil
}

func allNulls(rows int) []byte {
	m := make([]byte, (rows+7)/8)
	for r := range rows {
		m[r/8] |= 1 << (r % 8)
	}
	return m
}

// parse reads one column's section.
func (c *blockCol) parse(sec []byte, rows int, t types.Type) error {
	if len(sec) < 2 || blockKind(sec[0]) != blockKindOf(t) {
		return errCorrupt("block column", "bad kind")
	}
	c.kind, c.nulls, c.offs, c.base, c.width = blockKind(sec[0]), nil, nil, 0, 8
	nb := (rows + 7) / 8
	switch sec[1] {
	case 0:
		sec = sec[2:]
	case 1:
		if len(sec) < 2+nb {
			return errCorrupt("block column", "short bitmap")
		}
		c.nulls, sec = sec[2:2+nb], sec[2+nb:]
	default:
		return errCorrupt("block column", "bad nulls byte")
	}
	if c.kind == blockInt {
		if len(sec) < 9 {
			return errCorrupt("block column", "short frame")
		}
		c.base, c.width, sec = int64(binary.LittleEndian.Uint64(sec)), int(sec[8]), sec[9:]
		if c.width != 1 && c.width != 2 && c.width != 4 && c.width != 8 {
			return errCorrupt("block column", "bad width")
		}
	}
	if c.kind != blockVar {
		if len(sec) != c.width*rows {
			return errCorrupt("block column", "bad values length")
		}
		c.vals = sec
		return nil
	}
	if len(sec) < 4*(rows+1) {
		return errCorrupt("block column", "short offsets")
	}
	c.offs, c.vals = sec[:4*(rows+1)], sec[4*(rows+1):]
	prev := uint32(0)
	for r := 0; r <= rows; r++ {
		o := binary.LittleEndian.Uint32(c.offs[4*r:])
		if o < prev || int64(o) > int64(len(c.vals)) || (r == 0 && o != 0) {
			return errCorrupt("block column", "bad offsets")
		}
		prev = o
	}
	if int(prev) != len(c.vals) {
		return errCorrupt("block column", "bad values length")
	}
	return nil
}

func (c *blockCol) null(r int) bool { return c.nulls != nil && c.nulls[r/8]&(1<<(r%8)) != 0 }

// word returns row r's value of a fixed-width column.
func (c *blockCol) word(r int) uint64 {
	var d uint64
	switch c.width {
	case 1:
		d = uint64(c.vals[r])
	case 2:
		d = uint64(binary.LittleEndian.Uint16(c.vals[2*r:]))
	case 4:
		d = uint64(binary.LittleEndian.Uint32(c.vals[4*r:]))
	default:
		d = binary.LittleEndian.Uint64(c.vals[8*r:])
	}
	return uint64(c.base) + d
}

func (c *blockCol) varValue(r int) []byte {
	return c.vals[binary.LittleEndian.Uint32(c.offs[4*r:]):binary.LittleEndian.Uint32(c.offs[4*r+4:])]
}

// appendValue appends row r's value (not NULL) as the row codec's
// appendValue wrote it.
func (c *blockCol) appendValue(buf []byte, r int) []byte {
	switch c.kind {
	case blockInt:
		return binary.AppendVarint(buf, int64(c.word(r)))
	case blockFloat:
		return binary.LittleEndian.AppendUint64(buf, c.word(r))
	}
	return append(buf, c.varValue(r)...)
}

// appendRow appends row r as EncodeRow writes it.
func (b *block) appendRow(buf []byte, r int) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(b.cols)))
	start := len(buf)
	buf = append(buf, make([]byte, (len(b.cols)+7)/8)...)
	for i := range b.cols {
		c := &b.cols[i]
		if c.null(r) {
			buf[start+i/8] |= 1 << (i % 8)
			continue
		}
		buf = c.appendValue(buf, r)
	}
	return buf
}

// datum returns the Datum of column i (of type t) in row r.
func (b *block) datum(i, r int, t types.Type) (types.Datum, error) {
	c := &b.cols[i]
	if c.null(r) {
		return nil, nil
	}
	var scratch [binary.MaxVarintLen64]byte
	d, _, err := decodeValue(c.appendValue(scratch[:0], r), t)
	return d, err
}

// appendKey appends the storage key of row r: prefix ('t' | table |
// vnode) and the pk columns' memcomparable encoding.
func (b *block) appendKey(buf []byte, t *Table, r int) ([]byte, error) {
	for _, c := range t.PK {
		d, err := b.datum(c, r, t.Types[c])
		if err != nil {
			return buf, err
		}
		if buf, err = AppendKey(buf, t.Types[c], d); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// blockAppender appends a block's rows to a chunk builder's columns.
type blockAppender struct {
	ts     []types.Type
	read   []bool // nil: all
	bound  *chunk.Builder
	cols   []array.Builder
	i64    []int64
	i32    []int32
	i16    []int16
	dates  []arrow.Date32
	valid  []bool
	varBuf []byte
}

// appendRows appends rows [from, to) of b to bld with operation op.
func (a *blockAppender) appendRows(bld *chunk.Builder, op chunk.Op, b *block, from, to int) error {
	if bld != a.bound || bld.Len() == 0 {
		a.cols, a.bound = bld.Columns(), bld
	}
	n := to - from
	for i := range b.cols {
		if a.read != nil && !a.read[i] {
			a.cols[i].AppendNulls(n)
			continue
		}
		if err := a.appendColumn(a.cols[i], a.ts[i], &b.cols[i], from, to); err != nil {
			return errColumn(i, err)
		}
	}
	bld.AppendedRows(op, n)
	return nil
}

// validity returns the validity of rows [from, to) of c (nil: all valid).
func (a *blockAppender) validity(c *blockCol, from, to int) []bool {
	if c.nulls == nil {
		return nil
	}
	a.valid = sized(a.valid, to-from)
	for r := from; r < to; r++ {
		a.valid[r-from] = !c.null(r)
	}
	return a.valid
}

// words returns the values of rows [from, to) of a fixed-width column
// as int64s, in a.i64.
func (a *blockAppender) words(c *blockCol, from, to int) []int64 {
	out := sized(a.i64, to-from)
	a.i64 = out
	base := c.base
	switch src := c.vals[c.width*from : c.width*to]; c.width {
	case 1:
		for j, b := range src {
			out[j] = base + int64(b)
		}
	case 2:
		for j := range out {
			out[j] = base + int64(binary.LittleEndian.Uint16(src[2*j:]))
		}
	case 4:
		for j := range out {
			out[j] = base + int64(binary.LittleEndian.Uint32(src[4*j:]))
		}
	default:
		if littleEndian && base == 0 && len(out) > 0 {
			copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(src)), src)
			return out
		}
		for j := range out {
			out[j] = base + int64(binary.LittleEndian.Uint64(src[8*j:]))
		}
	}
	return out
}

func (a *blockAppender) appendColumn(fb array.Builder, t types.Type, c *blockCol, from, to int) error {
	switch f := fb.(type) {
	case *array.Int64Builder:
		if c.kind == blockInt && storedAsInt(t) {
			f.AppendValues(a.words(c, from, to), a.validity(c, from, to))
			return nil
		}
	case *array.Int32Builder:
		if c.kind == blockInt && storedAsInt(t) {
			f.AppendValues(narrow[int32](&a.i32, a.words(c, from, to)), a.validity(c, from, to))
			return nil
		}
	case *array.Int16Builder:
		if c.kind == blockInt && storedAsInt(t) {
			f.AppendValues(narrow[int16](&a.i16, a.words(c, from, to)), a.validity(c, from, to))
			return nil
		}
	case *array.Date32Builder:
		if c.kind == blockInt && t.ID == types.IDDate {
			f.AppendValues(narrow[arrow.Date32](&a.dates, a.words(c, from, to)), a.validity(c, from, to))
			return nil
		}
	case *array.TimestampBuilder:
		if c.kind == blockInt && (t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ) {
			w := a.words(c, from, to)
			f.AppendValues(unsafe.Slice((*arrow.Timestamp)(unsafe.Pointer(unsafe.SliceData(w))), len(w)), a.validity(c, from, to))
			return nil
		}
	case *array.Float64Builder:
		if c.kind == blockFloat && t.IsFloat() {
			w := a.words(c, from, to)
			f.AppendValues(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(w))), len(w)), a.validity(c, from, to))
			return nil
		}
	}
	// Any other column: value by value, as the row decoder appends it.
	for r := from; r < to; r++ {
		if c.null(r) {
			fb.AppendNull()
			continue
		}
		a.varBuf = c.appendValue(a.varBuf[:0], r)
		rest, err := appendColumnValue(fb, t, a.varBuf)
		if err != nil {
			return err
		}
		if len(rest) != 0 {
			return errCorrupt("block value", "trailing bytes")
		}
	}
	return nil
}
