package kafka

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Decoder turns one message's value into a row of the source's columns.
// An error is a malformed message: the source skips and records it.
type Decoder interface {
	Decode(msg []byte, dst []types.Datum) ([]types.Datum, error)
}

// NewDecoder returns the decoder of o.Encode for cols, the relation's
// columns: those of the payload, then o.Include's, which it leaves out.
func NewDecoder(o Options, cols []connector.Column) (Decoder, error) {
	if len(cols) < len(o.Include) {
		return nil, fmt.Errorf("kafka: %d columns for %d INCLUDE columns", len(cols), len(o.Include))
	}
	cols = cols[:len(cols)-len(o.Include)]
	if o.Encode == EncodeAvro {
		return newAvroDecoder(o, cols)
	}
	if o.Encode == EncodeProtobuf {
		return newProtobufDecoder(o, cols)
	}
	convs := make([]columnConv, len(cols))
	byName := make(map[string]int, len(cols))
	for i, c := range cols {
		cv, err := newColumnConv(c.Type)
		if err != nil {
			return nil, err
		}
		convs[i] = cv
		byName[strings.ToLower(c.Name)] = i
	}
	if o.Debezium {
		return newDebeziumDecoder(convs, byName), nil
	}
	if o.Encode == "csv" {
		return &csvDecoder{cols: cols, convs: convs, delim: o.Delimiter, header: !o.WithoutHeader}, nil
	}
	return &jsonDecoder{convs: convs, byName: byName}, nil
}

// columnConv converts a JSON or text value to one column's type with the
// engine's own casts: a JSON number or boolean as jsonb::type (and an
// object or array as jsonb::text for a text column), a JSON string as
// text::type.
type columnConv struct {
	t         types.Type
	fromJSONB expr.Expr // nil: no cast from jsonb
	fromText  expr.Expr // nil: no cast from text
}

func newColumnConv(t types.Type) (columnConv, error) {
	c := columnConv{t: t}
	if e, err := expr.Cast(expr.NewColumn(0, types.TJSONB, "v"), t); err == nil {
		c.fromJSONB = e
	}
	if e, err := expr.Cast(expr.NewColumn(0, types.TText, "v"), t); err == nil {
		c.fromText = e
	}
	if c.fromJSONB == nil && c.fromText == nil {
		return c, pgerr.New(pgerr.FeatureNotSupported, "a Kafka source cannot fill a column of type %s", t)
	}
	return c, nil
}

// fromJSON converts one JSON value.
func (c *columnConv) fromJSON(v jsonb.Value) (types.Datum, error) {
	if v.IsNull() {
		return nil, nil
	}
	if c.t.ID == types.IDJSONB || c.t.ID == types.IDJSON {
		return v.String(), nil
	}
	if s, ok := v.Str(); ok {
		return c.fromString(s)
	}
	if c.t.IsInteger() {
		if text, ok := v.NumText(); ok {
			if n, err := strconv.ParseInt(text, 10, 64); err == nil {
				return checkInt(n, c.t)
			}
		}
	}
	if c.fromJSONB == nil || !v.IsScalar() && !c.t.IsString() {
		return nil, fmt.Errorf("cannot convert a JSON %s to %s", v.Typeof(), c.t)
	}
	return c.fromJSONB.Eval([]types.Datum{v.String()})
}

// fromString converts a JSON string or a CSV field.
func (c *columnConv) fromString(s string) (types.Datum, error) {
	if c.t.ID == types.IDText {
		return s, nil
	}
	if c.fromText == nil {
		return nil, fmt.Errorf("cannot convert a string to %s", c.t)
	}
	return c.fromText.Eval([]types.Datum{s})
}

func checkInt(n int64, t types.Type) (types.Datum, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.ID {
	case types.IDInt16:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.IDInt32:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if n < lo || n > hi {
		return nil, pgerr.New(pgerr.NumericOutOfRange, "%d is out of range for type %s", n, t)
	}
	return n, nil
}

// jsonDecoder reads one JSON object per message: fields by column name
// (case-insensitive, as RisingWave matches them), missing fields NULL,
// fields that name no column ignored.
type jsonDecoder struct {
	convs  []columnConv
	byName map[string]int
}

func (d *jsonDecoder) Decode(msg []byte, dst []types.Datum) ([]types.Datum, error) {
	v, err := jsonb.Parse(string(msg))
	if err != nil {
		return nil, err
	}
	keys, vals, err := v.Each()
	if err != nil {
		return nil, fmt.Errorf("a message is a JSON %s, not an object", v.Typeof())
	}
	dst = append(dst[:0], make([]types.Datum, len(d.convs))...)
	for k, key := range keys {
		i, ok := d.byName[key]
		if !ok {
			if i, ok = d.byName[strings.ToLower(key)]; !ok {
				continue
			}
		}
		if dst[i], err = d.convs[i].fromJSON(vals[k]); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
	}
	return dst, nil
}

// csvDecoder reads one CSV record per message, fields by position; an
// empty field is NULL. With a header (without_header = 'false', the
// default as in RisingWave) a record that repeats the column names is a
// header and skipped (ErrHeader).
type csvDecoder struct {
	cols   []connector.Column
	convs  []columnConv
	delim  byte
	header bool
}

// ErrHeader is what a CSV decoder returns for a header record: not a
// row, and not an error to record.
var ErrHeader = fmt.Errorf("kafka: a CSV header")

func (d *csvDecoder) Decode(msg []byte, dst []types.Datum) ([]types.Datum, error) {
	r := csv.NewReader(bytes.NewReader(msg))
	r.Comma = rune(d.delim)
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		return nil, err
	}
	if len(rec) != len(d.convs) {
		return nil, fmt.Errorf("a record of %d fields, want %d", len(rec), len(d.convs))
	}
	if d.header && d.isHeader(rec) {
		return nil, ErrHeader
	}
	dst = append(dst[:0], make([]types.Datum, len(d.convs))...)
	for i, f := range rec {
		if f == "" {
			continue
		}
		if dst[i], err = d.convs[i].fromString(f); err != nil {
			return nil, fmt.Errorf("field %d (%s): %w", i+1, d.cols[i].Name, err)
		}
	}
	return dst, nil
}

func (d *csvDecoder) isHeader(rec []string) bool {
	for i, f := range rec {
		if !strings.EqualFold(strings.TrimSpace(f), d.cols[i].Name) {
			return false
		}
	}
	return true
}
