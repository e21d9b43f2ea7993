package streamdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Append bulk-loads an Arrow record batch into table, as COPY table
// (columns) FROM STDIN would, with its speed and its semantics: the
// batch's fields are matched to the table's columns by name (a field
// naming no column is an error, 42703); a column missing from the batch
// gets its DEFAULT, or NULL; values are checked as COPY checks them
// (types, NOT NULL, primary key: a duplicate key fails with 23505 and
// Where "COPY table, line N", N counting rows from 1); it loads every
// row or none. When it returns the rows are visible in every view.
//
// table is a table name, or schema.table, taken as written (no case
// folding, as a quoted identifier). A value converts to its column's type
// directly where the Arrow type holds that kind of value (any integer
// type into smallint, integer, bigint, real, double or numeric, range-
// checked; float16/32/64; utf8 into text, varchar or json; binary or utf8
// into bytea as raw bytes; date32/64; timestamp of any unit, taken as UTC;
// decimal128/256; month_day_nano_interval, its nanoseconds truncated to
// microseconds), and otherwise as its text would in COPY's text format
// (utf8 "42" into an integer column, "2024-01-02" into a date).
// Dictionary-encoded fields are read through their dictionary.
//
// The caller keeps ownership of rec.
func (db *DB) Append(ctx context.Context, table string, rec arrow.RecordBatch) error {
	return db.NewSession().Append(ctx, table, rec)
}

// AppendReader loads every record batch of rdr into table as one
// statement (one COPY), as Append loads one; it returns the number of rows
// loaded. The batches must share rdr's schema.
func (db *DB) AppendReader(ctx context.Context, table string, rdr array.RecordReader) (int64, error) {
	return db.NewSession().AppendReader(ctx, table, rdr)
}

// Append loads rec into table on this session; see DB.Append.
func (s *Session) Append(ctx context.Context, table string, rec arrow.RecordBatch) error {
	rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return &Error{Code: pgerr.InvalidParameterValue, Message: err.Error(), cause: err}
	}
	defer rdr.Release()
	_, err = s.AppendReader(ctx, table, rdr)
	return err
}

// AppendReader loads rdr's batches into table on this session; see
// DB.AppendReader.
func (s *Session) AppendReader(ctx context.Context, table string, rdr array.RecordReader) (int64, error) {
	schema := rdr.Schema()
	if schema.NumFields() == 0 {
		return 0, &Error{Code: pgerr.InvalidParameterValue, Message: "streamdb: Append of a record batch without fields"}
	}
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = quoteIdent(f.Name)
	}
	query := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", quoteTable(table), strings.Join(names, ", "))
	a := &arrowCopy{rdr: rdr, table: table, schema: schema}
	res, err := s.s.CopyFromColumns(ctx, query, a.open)
	if a.err != nil {
		return 0, publicError(a.err)
	}
	return res.RowsAffected, publicError(err)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteTable(table string) string {
	if schema, name, ok := strings.Cut(table, "."); ok {
		return quoteIdent(schema) + "." + quoteIdent(name)
	}
	return quoteIdent(table)
}

// arrowCopy is an io.Reader of COPY binary data encoded, as the COPY
// reads it, from the rows of a RecordReader: it holds one buffer of rows.
type arrowCopy struct {
	rdr    array.RecordReader
	table  string
	schema *arrow.Schema
	types  []types.Type // the target columns' types, field by field
	buf    []byte
	off    int
	rec    arrow.RecordBatch
	encs   []*fieldEncoder
	row    int   // next row of rec
	line   int64 // rows encoded so far
	begun  bool
	ended  bool
	enc    pgcopy.Encoder
	err    error // a conversion failed: the Append's error
}

// copyBufferRows is how many rows arrowCopy encodes at a time.
const copyBufferRows = 256

// binarySignature starts COPY binary data.
const binarySignature = "PGCOPY\n\xff\r\n\x00"

func (a *arrowCopy) open(cols []engine.Column) (io.Reader, error) {
	a.types = make([]types.Type, len(cols))
	for i, c := range cols {
		a.types[i] = c.Type
	}
	for i, f := range a.schema.Fields() {
		if _, err := newFieldEncoder(f.Type, a.types[i]); err != nil {
			return nil, a.fail(err, f.Name)
		}
	}
	return a, nil
}

// fail records err, of the field named col, as the Append's error.
func (a *arrowCopy) fail(err error, col string) error {
	e, ok := err.(*Error)
	if !ok {
		e = publicError(err).(*Error)
	}
	where := fmt.Sprintf("COPY %s", a.table)
	if a.line > 0 {
		where += fmt.Sprintf(", line %d", a.line)
	}
	e.Where = where + ", column " + col
	a.err = e
	return e
}

func (a *arrowCopy) Read(p []byte) (int, error) {
	for a.off == len(a.buf) {
		if a.ended {
			return 0, io.EOF
		}
		a.buf, a.off = a.buf[:0], 0
		if err := a.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, a.buf[a.off:])
	a.off += n
	return n, nil
}

// fill encodes the next rows into buf.
func (a *arrowCopy) fill() error {
	if !a.begun {
		a.begun = true
		a.buf = append(a.buf, binarySignature...)
		a.buf = append(a.buf, 0, 0, 0, 0, 0, 0, 0, 0) // flags, header extension
	}
	for n := 0; n < copyBufferRows; n++ {
		if a.rec == nil || a.row >= int(a.rec.NumRows()) {
			ok, err := a.nextRecord()
			if err != nil {
				return err
			}
			if !ok {
				a.ended = true
				a.buf = binary.BigEndian.AppendUint16(a.buf, 0xFFFF)
				return nil
			}
			continue
		}
		if err := a.encodeRow(); err != nil {
			return err
		}
	}
	return nil
}

// nextRecord moves to the reader's next batch.
func (a *arrowCopy) nextRecord() (bool, error) {
	a.rec, a.row = nil, 0
	if !a.rdr.Next() {
		if err := a.rdr.Err(); err != nil {
			a.err = &Error{Code: pgerr.DataException, Message: "streamdb: Append: reading the record batches: " + err.Error(), cause: err}
			return false, a.err
		}
		return false, nil
	}
	rec := a.rdr.RecordBatch()
	if !rec.Schema().Equal(a.schema) {
		a.err = &Error{Code: pgerr.InvalidParameterValue, Message: "streamdb: Append: a record batch's schema differs from the reader's"}
		return false, a.err
	}
	a.encs = a.encs[:0]
	for j := range a.schema.NumFields() {
		fe, err := newFieldEncoder(rec.Column(j).DataType(), a.types[j])
		if err != nil {
			return false, a.fail(err, a.schema.Field(j).Name)
		}
		fe.bind(rec.Column(j))
		a.encs = append(a.encs, fe)
	}
	a.rec = rec
	return true, nil
}

// encodeRow appends the current row as a COPY binary tuple.
func (a *arrowCopy) encodeRow() error {
	a.line++
	a.buf = binary.BigEndian.AppendUint16(a.buf, uint16(len(a.encs)))
	for j, fe := range a.encs {
		var err error
		if a.buf, err = fe.append(a.buf, a.row, &a.enc); err != nil {
			return a.fail(err, a.schema.Field(j).Name)
		}
	}
	a.row++
	return nil
}

// fieldEncoder encodes the values of one Arrow column into its target
// column's binary COPY form.
type fieldEncoder struct {
	target types.Type
	col    arrow.Array
	dict   *array.Dictionary // col when dictionary-encoded; col is then its dictionary
	fast   func(buf []byte, i int) ([]byte, bool, error)
}

// newFieldEncoder checks that values of Arrow type dt can load into a
// column of type t.
func newFieldEncoder(dt arrow.DataType, t types.Type) (*fieldEncoder, error) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	switch dt.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY, arrow.DATE32, arrow.DATE64,
		arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DECIMAL128, arrow.DECIMAL256, arrow.INTERVAL_MONTH_DAY_NANO, arrow.NULL:
		return &fieldEncoder{target: t}, nil
	}
	return nil, &Error{Code: pgerr.DatatypeMismatch, Message: fmt.Sprintf("streamdb: Append: Arrow type %s is not supported (column of type %s)", dt, t)}
}

// bind points the encoder at col, the column of a new batch.
func (fe *fieldEncoder) bind(col arrow.Array) {
	fe.col, fe.dict, fe.fast = col, nil, nil
	if d, ok := col.(*array.Dictionary); ok {
		fe.dict, fe.col = d, d.Dictionary()
		return
	}
	fe.fast = fastEncoder(col, fe.target)
}

// append appends row i's value, length-prefixed (-1 for NULL).
func (fe *fieldEncoder) append(buf []byte, i int, enc *pgcopy.Encoder) ([]byte, error) {
	col := fe.col
	if fe.dict != nil {
		if fe.dict.IsNull(i) {
			return binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF), nil
		}
		i = fe.dict.GetValueIndex(i)
	}
	if col.IsNull(i) {
		return binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF), nil
	}
	if fe.fast != nil {
		out, ok, err := fe.fast(buf, i)
		if ok || err != nil {
			return out, err
		}
	}
	d, nt, err := arrowValue(col, i)
	if err != nil {
		return buf, err
	}
	if d, err = coerce(d, nt, fe.target); err != nil {
		return buf, err
	}
	at := len(buf)
	buf = append(buf, 0, 0, 0, 0)
	if buf, err = enc.AppendBinary(buf, d, fe.target); err != nil {
		return buf, err
	}
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf, nil
}

// fastEncoder returns an encoder of the common cases that need no Datum
// (an integer into an integer column, a float into the same float, a
// string into text, bytes into bytea), or nil.
func fastEncoder(col arrow.Array, t types.Type) func([]byte, int) ([]byte, bool, error) {
	switch c := col.(type) {
	case *array.Int64:
		if t.IsInteger() {
			return func(buf []byte, i int) ([]byte, bool, error) { return appendInt(buf, c.Value(i), t) }
		}
	case *array.Int32:
		if t.IsInteger() {
			return func(buf []byte, i int) ([]byte, bool, error) { return appendInt(buf, int64(c.Value(i)), t) }
		}
	case *array.Float64:
		if t.ID == types.IDFloat64 {
			return func(buf []byte, i int) ([]byte, bool, error) {
				buf = binary.BigEndian.AppendUint32(buf, 8)
				return binary.BigEndian.AppendUint64(buf, math.Float64bits(c.Value(i))), true, nil
			}
		}
	case *array.String:
		if t.ID == types.IDText || t.ID == types.IDVarchar || t.ID == types.IDBytea {
			return func(buf []byte, i int) ([]byte, bool, error) {
				v := c.Value(i)
				buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
				return append(buf, v...), true, nil
			}
		}
	case *array.Binary:
		if t.ID == types.IDBytea {
			return func(buf []byte, i int) ([]byte, bool, error) {
				v := c.Value(i)
				buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
				return append(buf, v...), true, nil
			}
		}
	case *array.Boolean:
		if t.ID == types.IDBool {
			return func(buf []byte, i int) ([]byte, bool, error) {
				b := byte(0)
				if c.Value(i) {
					b = 1
				}
				return append(binary.BigEndian.AppendUint32(buf, 1), b), true, nil
			}
		}
	}
	return nil
}

// appendInt appends n in integer type t's binary form, range-checked.
func appendInt(buf []byte, n int64, t types.Type) ([]byte, bool, error) {
	if !types.IntFits(n, t) {
		return buf, false, intRangeError(t)
	}
	switch t.ID {
	case types.IDInt16:
		return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint32(buf, 2), uint16(n)), true, nil
	case types.IDInt32:
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(buf, 4), uint32(n)), true, nil
	}
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(n)), true, nil
}

func intRangeError(t types.Type) error {
	return &Error{Code: pgerr.NumericOutOfRange, Message: t.String() + " out of range"}
}

// arrowValue returns row i of col as a Datum with its natural SQL type.
func arrowValue(col arrow.Array, i int) (types.Datum, types.Type, error) {
	switch c := col.(type) {
	case *array.Boolean:
		return c.Value(i), types.TBool, nil
	case *array.Int8:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Int16:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Int32:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Int64:
		return c.Value(i), types.TInt64, nil
	case *array.Uint8:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Uint16:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Uint32:
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Uint64:
		if c.Value(i) > math.MaxInt64 {
			return apd.NewWithBigInt(new(apd.BigInt).SetUint64(c.Value(i)), 0), types.TNumeric, nil
		}
		return int64(c.Value(i)), types.TInt64, nil
	case *array.Float16:
		return float64(c.Value(i).Float32()), types.TFloat64, nil
	case *array.Float32:
		return float64(c.Value(i)), types.TFloat64, nil
	case *array.Float64:
		return c.Value(i), types.TFloat64, nil
	case *array.String:
		return c.Value(i), types.TText, nil
	case *array.LargeString:
		return c.Value(i), types.TText, nil
	case *array.StringView:
		return c.Value(i), types.TText, nil
	case *array.Binary:
		return string(c.Value(i)), types.TBytea, nil
	case *array.LargeBinary:
		return string(c.Value(i)), types.TBytea, nil
	case *array.BinaryView:
		return string(c.Value(i)), types.TBytea, nil
	case *array.FixedSizeBinary:
		return string(c.Value(i)), types.TBytea, nil
	case *array.Date32:
		return types.Date(c.Value(i)), types.TDate, nil
	case *array.Date64:
		return types.Date(floorDiv(int64(c.Value(i)), 86_400_000)), types.TDate, nil
	case *array.Timestamp:
		return timestampValue(c, i)
	case *array.Time32:
		return timeOfDay(int64(c.Value(i)), c.DataType().(*arrow.Time32Type).Unit)
	case *array.Time64:
		return timeOfDay(int64(c.Value(i)), c.DataType().(*arrow.Time64Type).Unit)
	case *array.Decimal128:
		n := c.Value(i).BigInt()
		scale := c.DataType().(*arrow.Decimal128Type).Scale
		return decimalOf(n, scale), types.TNumeric, nil
	case *array.Decimal256:
		n := c.Value(i).BigInt()
		scale := c.DataType().(*arrow.Decimal256Type).Scale
		return decimalOf(n, scale), types.TNumeric, nil
	case *array.MonthDayNanoInterval:
		v := c.Value(i)
		return types.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}, types.TInterval, nil
	}
	return nil, types.TUnknown, &Error{Code: pgerr.DatatypeMismatch, Message: fmt.Sprintf("streamdb: Append: Arrow type %s is not supported", col.DataType())}
}

func timestampValue(c *array.Timestamp, i int) (types.Datum, types.Type, error) {
	tt := c.DataType().(*arrow.TimestampType)
	v := int64(c.Value(i))
	switch tt.Unit {
	case arrow.Second:
		v *= 1_000_000
	case arrow.Millisecond:
		v *= 1_000
	case arrow.Nanosecond:
		v = floorDiv(v, 1_000)
	}
	t := types.TTimestamp
	if tt.TimeZone != "" {
		t = types.TTimestampTZ
	}
	return types.Timestamp(v), t, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func decimalOf(n *big.Int, scale int32) *apd.Decimal {
	return apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(n), -scale)
}

// coerce converts d, of type from, to a Datum of column type to: directly
// where both hold the same kind of value, else through its text, as
// COPY's text format would read it.
func coerce(d types.Datum, from, to types.Type) (types.Datum, error) {
	if v, ok, err := coerceExt(d, from, to); ok {
		return v, err
	}
	switch {
	case to.IsInteger():
		if n, ok := d.(int64); ok {
			if !types.IntFits(n, to) {
				return nil, intRangeError(to)
			}
			return n, nil
		}
	case to.IsFloat():
		switch v := d.(type) {
		case float64:
			return v, nil
		case int64:
			return float64(v), nil
		}
	case to.ID == types.IDNumeric:
		switch v := d.(type) {
		case *apd.Decimal:
			return v, nil
		case int64:
			return apd.New(v, 0), nil
		}
	case to.ID == types.IDBool:
		if v, ok := d.(bool); ok {
			return v, nil
		}
	case to.StoredAsText():
		if s, ok := d.(string); ok {
			return s, nil
		}
	case to.ID == types.IDDate:
		if v, ok := d.(types.Date); ok {
			return v, nil
		}
	case to.ID == types.IDTimestamp || to.ID == types.IDTimestampTZ:
		switch v := d.(type) {
		case types.Timestamp:
			return v, nil
		case types.Date:
			return types.Timestamp(int64(v) * 86_400_000_000), nil
		}
	case to.ID == types.IDInterval:
		if v, ok := d.(types.Interval); ok {
			return v, nil
		}
	}
	return types.ParseIn(types.Format(d, from), to, nil)
}

// timeOfDay is an Arrow time32 / time64 value in unit as a time Datum
// (microseconds since midnight; nanoseconds truncated).
func timeOfDay(v int64, unit arrow.TimeUnit) (types.Datum, types.Type, error) {
	switch unit {
	case arrow.Second:
		v *= 1_000_000
	case arrow.Millisecond:
		v *= 1_000
	case arrow.Nanosecond:
		v = floorDiv(v, 1_000)
	}
	if v < 0 || v > types.MicrosPerDay {
		return nil, types.TTime, &Error{Code: pgerr.DatetimeFieldOverflow, Message: "streamdb: Append: time out of range"}
	}
	return v, types.TTime, nil
}

// coerceExt is coerce into uuid, time, character(n), inet and cidr
// columns: a uuid from its 16 bytes (fixed_size_binary[16], binary) or
// its text, a time from an Arrow time, a character(n) from a string,
// padded, an inet or cidr from its text; ok is false for other columns.
func coerceExt(d types.Datum, from, to types.Type) (types.Datum, bool, error) {
	switch to.ID {
	case types.IDUUID:
		s, isStr := d.(string)
		switch {
		case isStr && from.ID == types.IDBytea && len(s) == 16:
			return s, true, nil
		case isStr && from.ID == types.IDText:
			v, err := types.ParseUUID(s)
			return v, true, err
		}
	case types.IDTime:
		if n, isInt := d.(int64); isInt && from.ID == types.IDTime {
			return types.RoundTime(n, to), true, nil
		}
	case types.IDBpchar:
		if s, isStr := d.(string); isStr && from.ID == types.IDText {
			v, err := types.CheckBpchar(s, to, false)
			return v, true, err
		}
	case types.IDInet, types.IDCidr:
		if s, isStr := d.(string); isStr && from.ID == types.IDText {
			v, err := types.ParseInet(s, to.ID == types.IDCidr)
			return v, true, err
		}
	}
	return nil, false, nil
}
