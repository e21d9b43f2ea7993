package kafka

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// SinkColumn is a column of a sink's messages: its name and type, and
// where it is in the input's rows.
type SinkColumn struct {
	Name  string
	Type  types.Type
	Index int
}

// SinkMessage is one Kafka message of a sink: a nil Value is a tombstone.
type SinkMessage struct {
	Key, Value []byte
}

// SinkEncoder turns a sink's changes into messages (ENCODE JSON):
//
//   - PLAIN: each insert's row as a JSON object, keyed by the primary key
//     when the sink has one. An update or a delete is an error at CREATE
//     unless force_append_only, which drops deletes and sends an
//     update's new row as an insert.
//   - UPSERT: each message keyed by the row's key columns (a JSON object),
//     valued the row; a delete is the key with a null value (a
//     tombstone); an update is one message, the new row (two when its
//     key changed: a tombstone of the old key first).
//   - DEBEZIUM: Debezium's envelope {"schema": ..., "payload": {"before",
//     "after", "op": "c" | "u" | "d", "ts_ms"}} keyed as UPSERT; a delete
//     is followed by a tombstone, and an update that changes the key is a
//     delete, a tombstone and a create, as Debezium writes them.
//
// Values are JSON as the Kafka source reads them back: integers, floats
// and numerics as JSON numbers (numerics exactly, with their digits; a
// NaN or an infinity as a string), booleans, json and jsonb nested,
// bytea as base64, and the rest as strings in PostgreSQL's text form
// (dates, timestamps as '2024-01-02 03:04:05.123456', timestamptz with
// its +00 offset, intervals, arrays).
type SinkEncoder struct {
	format string
	cols   []SinkColumn
	key    []SinkColumn
	force  bool
	schema []byte // DEBEZIUM's "schema", made once
	buf    []byte
	// avro encodes keys and values under ENCODE AVRO (avro_encode.go);
	// err is its first error, which Err reports.
	avro *avroSinkEncoder
	err  error
}

// NewSinkEncoder returns the encoder of o's format for the message
// columns cols, keyed by key (empty: PLAIN without a key).
func NewSinkEncoder(o SinkOptions, cols, key []SinkColumn) *SinkEncoder {
	e := &SinkEncoder{format: o.Format, cols: cols, key: key, force: o.ForceAppendOnly}
	if e.format == SinkDebezium {
		e.schema = debeziumSchema(o.Topic, cols)
	}
	if o.Encode == EncodeAvro {
		e.avro, e.err = newAvroSinkEncoder(o.Avro, cols, key)
	}
	return e
}

// Err returns the first error of an Avro encoding: the messages encoded
// since are not to be sent.
func (e *SinkEncoder) Err() error { return e.err }

// value is the message value of row: a JSON object, or an Avro record.
func (e *SinkEncoder) value(row []types.Datum) []byte {
	if e.avro == nil {
		return e.object(nil, row, e.cols)
	}
	return e.avroRecord(e.avro.value, row)
}

func (e *SinkEncoder) avroRecord(r *avroRecordEncoder, row []types.Datum) []byte {
	if e.err != nil {
		return nil
	}
	b, err := r.encode(row)
	if err != nil {
		e.err = err
	}
	return b
}

// Encode appends the messages of changes (n of them, at(i) the i-th) to
// out; nowMillis is the DEBEZIUM ts_ms.
func (e *SinkEncoder) Encode(out []SinkMessage, n int, at func(i int) (chunk.Op, []types.Datum), nowMillis int64) []SinkMessage {
	for i := 0; i < n; i++ {
		op, row := at(i)
		if op == chunk.UpdateDelete && i+1 < n {
			if op2, next := at(i + 1); op2 == chunk.UpdateInsert {
				out = e.update(out, row, next, nowMillis)
				i++
				continue
			}
		}
		switch op {
		case chunk.Insert, chunk.UpdateInsert:
			out = e.insert(out, row, nowMillis)
		default:
			out = e.delete(out, row, nowMillis)
		}
	}
	return out
}

func (e *SinkEncoder) insert(out []SinkMessage, row []types.Datum, now int64) []SinkMessage {
	switch e.format {
	case SinkDebezium:
		return append(out, SinkMessage{Key: e.keyOf(row), Value: e.envelope(nil, row, "c", now)})
	default:
		return append(out, SinkMessage{Key: e.keyOf(row), Value: e.value(row)})
	}
}

func (e *SinkEncoder) delete(out []SinkMessage, row []types.Datum, now int64) []SinkMessage {
	switch e.format {
	case SinkPlain:
		return out // dropped: force_append_only (or refused at CREATE)
	case SinkDebezium:
		key := e.keyOf(row)
		return append(out, SinkMessage{Key: key, Value: e.envelope(row, nil, "d", now)}, SinkMessage{Key: key})
	}
	return append(out, SinkMessage{Key: e.keyOf(row)})
}

func (e *SinkEncoder) update(out []SinkMessage, old, row []types.Datum, now int64) []SinkMessage {
	if e.format == SinkPlain {
		return e.insert(out, row, now)
	}
	oldKey, key := e.keyOf(old), e.keyOf(row)
	if string(oldKey) != string(key) {
		return e.insert(e.delete(out, old, now), row, now)
	}
	if e.format == SinkDebezium {
		return append(out, SinkMessage{Key: key, Value: e.envelope(old, row, "u", now)})
	}
	return append(out, SinkMessage{Key: key, Value: e.value(row)})
}

// keyOf is the JSON object of row's key columns (nil without a key).
func (e *SinkEncoder) keyOf(row []types.Datum) []byte {
	if len(e.key) == 0 {
		return nil
	}
	if e.avro != nil {
		return e.avroRecord(e.avro.key, row)
	}
	return e.object(nil, row, e.key)
}

// envelope is a Debezium message's value.
func (e *SinkEncoder) envelope(before, after []types.Datum, op string, now int64) []byte {
	b := append([]byte(nil), `{"schema":`...)
	b = append(b, e.schema...)
	b = append(b, `,"payload":{"before":`...)
	b = e.objectOrNull(b, before)
	b = append(b, `,"after":`...)
	b = e.objectOrNull(b, after)
	b = append(b, `,"op":"`...)
	b = append(b, op...)
	b = append(b, `","ts_ms":`...)
	b = strconv.AppendInt(b, now, 10)
	b = append(b, `,"source":{"db":"streamdb"}}}`...)
	return b
}

func (e *SinkEncoder) objectOrNull(b []byte, row []types.Datum) []byte {
	if row == nil {
		return append(b, "null"...)
	}
	return e.object(b, row, e.cols)
}

// object appends the JSON object of row's cols.
func (e *SinkEncoder) object(b []byte, row []types.Datum, cols []SinkColumn) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.Name)
		b = append(b, ':')
		b = AppendJSONValue(b, row[c.Index], c.Type)
	}
	return append(b, '}')
}

// AppendJSONValue appends d, of type t, as the sink's JSON encodes it
// (see SinkEncoder).
func AppendJSONValue(b []byte, d types.Datum, t types.Type) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	switch v := d.(type) {
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		if t.ID != types.IDTime && t.ID != types.IDTimeTZ { // those are their text
			return strconv.AppendInt(b, v, 10)
		}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return appendJSONString(b, types.Format(v, t))
		}
		return append(b, types.Format(v, t)...)
	case string:
		switch t.ID {
		case types.IDJSON, types.IDJSONB:
			if json.Valid([]byte(v)) {
				return append(b, v...)
			}
		case types.IDBytea:
			return appendJSONString(b, base64.StdEncoding.EncodeToString([]byte(v)))
		}
	}
	s := types.Format(d, t)
	if t.ID == types.IDNumeric && isJSONNumber(s) {
		return append(b, s...)
	}
	return appendJSONString(b, s)
}

// isJSONNumber reports whether a numeric's text is a JSON number (not
// NaN or Infinity).
func isJSONNumber(s string) bool {
	return s != "" && !strings.ContainsAny(s, "NnIi")
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// debeziumSchema is the "schema" of the sink's Debezium envelopes: a
// Kafka Connect struct schema of the before and after rows.
func debeziumSchema(topic string, cols []SinkColumn) []byte {
	var fields strings.Builder
	for i, c := range cols {
		if i > 0 {
			fields.WriteByte(',')
		}
		fields.WriteString(`{"field":`)
		fields.Write(appendJSONString(nil, c.Name))
		fields.WriteString(`,"optional":true,"type":"`)
		fields.WriteString(connectType(c.Type))
		fields.WriteString(`"}`)
	}
	row := func(name string) string {
		return `{"field":"` + name + `","optional":true,"type":"struct","fields":[` + fields.String() + `]}`
	}
	name := string(appendJSONString(nil, topic+".Envelope"))
	return []byte(`{"type":"struct","optional":false,"name":` + name + `,"fields":[` + row("before") + `,` + row("after") +
		`,{"field":"op","optional":false,"type":"string"},{"field":"ts_ms","optional":false,"type":"int64"}]}`)
}

// connectType is a column type's Kafka Connect schema type.
func connectType(t types.Type) string {
	switch t.ID {
	case types.IDBool:
		return "boolean"
	case types.IDInt16:
		return "int16"
	case types.IDInt32:
		return "int32"
	case types.IDInt64:
		return "int64"
	case types.IDFloat32:
		return "float"
	case types.IDFloat64:
		return "double"
	case types.IDBytea:
		return "bytes"
	}
	return "string"
}
