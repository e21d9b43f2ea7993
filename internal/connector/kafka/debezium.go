package kafka

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// FORMAT DEBEZIUM ENCODE JSON: each message's value is a Debezium change
// event of one row of a database's table, with Kafka Connect's schema
// wrapper ({"schema": ..., "payload": {...}}) or without it (the payload
// alone):
//
//	{"before": {...} | null, "after": {...} | null, "op": "c" | "r" | "u" | "d", ...}
//
// A create (c) or a snapshot read (r) takes after as the row of its
// primary key, replacing any row the key had; an update (u) takes after
// the same way, and when before names another key (an update of the
// key), deletes before's key first, in the same record
// (connector.SplitRecord's Before); a delete (d) deletes before's key
// (before may hold the key columns alone, as PostgreSQL's default
// replica identity sends it). The table's materialization deletes by key
// and emits the row it held (stream.Materialize's KeyedDeletes), so a
// delete of a key the table lacks is a no-op, as in RisingWave. A Kafka
// tombstone (a null value, which Debezium writes after each delete) is
// skipped silently. Replayed after a failure, the events are idempotent
// upserts and deletes of the same keys.
//
// Fields decode as for FORMAT PLAIN ENCODE JSON (decode.go), plus
// Debezium's encodings, as RisingWave reads them:
//
//   - a number into a timestamp or timestamptz is time since 1970: in
//     the unit the schema names (io.debezium.time.Timestamp and Kafka
//     Connect's Timestamp: ms, MicroTimestamp: µs, NanoTimestamp: ns),
//     else guessed from its size as RisingWave does (below 1e11 seconds,
//     1e14 milliseconds, 1e17 microseconds, else nanoseconds);
//   - a number into a date is days since 1970 (io.debezium.time.Date);
//   - a number into an interval is microseconds (MicroDuration; ns for
//     NanoDuration);
//   - a number into a boolean is 0 or 1 (MySQL's tinyint(1));
//   - a string into bytea is base64 (Debezium's binary.handling.mode =
//     bytes, and streamdb's own sink);
//   - a string into a numeric is its text (decimal.handling.mode =
//     string), or, when the schema says Kafka Connect's Decimal, its
//     base64 unscaled bytes with the schema's scale (precise mode); an
//     object {"scale", "value"} is a VariableScaleDecimal;
//   - a string into json or jsonb is the JSON it holds
//     (io.debezium.data.Json) when the schema says so or, without a
//     schema, when it parses as JSON; nested JSON is taken as it is.
type debeziumDecoder struct {
	convs  []columnConv
	byName map[string]int
	// key are the primary key's columns (Reader.SetKey); nil: unknown,
	// and every update with a before deletes before's key first.
	key []int
	// schemaText and hints cache the field hints of the last schema
	// seen: the messages of a topic repeat one schema.
	schemaText string
	hints      map[string]fieldHint
}

// fieldHint is what a Kafka Connect schema says of a field.
type fieldHint struct {
	logical string // its semantic type's name (io.debezium.time.Date, ...)
	scale   int    // a Decimal's scale
	schema  bool   // the message has a schema (which may not name the field)
}

// debeziumEvent is one decoded change event; skip marks a message that
// changes nothing (a payload of null).
type debeziumEvent struct {
	op            string
	before, after []types.Datum
	skip          bool
}

func newDebeziumDecoder(convs []columnConv, byName map[string]int) *debeziumDecoder {
	return &debeziumDecoder{convs: convs, byName: byName}
}

// Decode implements Decoder: the row an event leaves (a delete's
// before).
func (d *debeziumDecoder) Decode(msg []byte, dst []types.Datum) ([]types.Datum, error) {
	ev, err := d.event(msg)
	if err != nil || ev.skip {
		return nil, err
	}
	if ev.op == "d" {
		return ev.before, nil
	}
	return ev.after, nil
}

// event decodes one message's value.
func (d *debeziumDecoder) event(msg []byte) (debeziumEvent, error) {
	v, err := jsonb.Parse(string(msg))
	if err != nil {
		return debeziumEvent{}, err
	}
	if v.Kind() != jsonb.Object {
		return debeziumEvent{}, fmt.Errorf("a Debezium message is a JSON %s, not an object", v.Typeof())
	}
	hints := map[string]fieldHint(nil)
	if p, ok := v.Field("payload"); ok {
		schema, _ := v.Field("schema")
		hints = d.schemaHints(schema)
		if v = p; v.IsNull() {
			return debeziumEvent{skip: true}, nil
		}
		if v.Kind() != jsonb.Object {
			return debeziumEvent{}, fmt.Errorf("a Debezium payload is a JSON %s, not an object", v.Typeof())
		}
	}
	opv, _ := v.Field("op")
	op, ok := opv.Str()
	if !ok {
		return debeziumEvent{}, errors.New(`a Debezium message without "op"`)
	}
	ev := debeziumEvent{op: op}
	switch op {
	case "c", "r", "u":
		if ev.after, err = d.image(v, "after", hints); err == nil && op == "u" {
			ev.before, err = d.optionalImage(v, "before", hints)
		}
	case "d":
		ev.before, err = d.image(v, "before", hints)
	default:
		err = fmt.Errorf("a Debezium %q event is not supported (only c, r, u and d)", op)
	}
	if err != nil {
		return debeziumEvent{}, err
	}
	return ev, d.checkKeys(ev)
}

// image decodes the row image field of v, which must be an object.
func (d *debeziumDecoder) image(v jsonb.Value, field string, hints map[string]fieldHint) ([]types.Datum, error) {
	row, err := d.optionalImage(v, field, hints)
	if err == nil && row == nil {
		err = fmt.Errorf("a Debezium %q event without %q", mustStr(v.Field("op")), field)
	}
	return row, err
}

// optionalImage decodes the row image field of v; nil when it is null
// or missing.
func (d *debeziumDecoder) optionalImage(v jsonb.Value, field string, hints map[string]fieldHint) ([]types.Datum, error) {
	img, ok := v.Field(field)
	if !ok || img.IsNull() {
		return nil, nil
	}
	keys, vals, err := img.Each()
	if err != nil {
		return nil, fmt.Errorf("%q is a JSON %s, not an object", field, img.Typeof())
	}
	row := make([]types.Datum, len(d.convs))
	for k, key := range keys {
		i, ok := d.byName[key]
		if !ok {
			if i, ok = d.byName[strings.ToLower(key)]; !ok {
				continue
			}
		}
		h := hints[strings.ToLower(key)]
		h.schema = hints != nil
		if row[i], err = d.value(i, vals[k], h); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", field, key, err)
		}
	}
	return row, nil
}

func mustStr(v jsonb.Value, _ bool) string {
	s, _ := v.Str()
	return s
}

// checkKeys fails an event whose row images lack a primary key column:
// it names no row to replace or delete.
func (d *debeziumDecoder) checkKeys(ev debeziumEvent) error {
	for _, row := range [][]types.Datum{ev.before, ev.after} {
		if row == nil {
			continue
		}
		for _, c := range d.key {
			if c < len(row) && row[c] == nil {
				return fmt.Errorf("a Debezium %q event without its key column %d", ev.op, c+1)
			}
		}
	}
	return nil
}

// keyChanged reports whether an update's before and after name different
// rows (true when the key is not known).
func (d *debeziumDecoder) keyChanged(before, after []types.Datum) bool {
	if d.key == nil {
		return true
	}
	for _, c := range d.key {
		t := d.convs[c].t
		if types.Format(before[c], t) != types.Format(after[c], t) {
			return true
		}
	}
	return false
}

// value converts one field of a row image to column i's type.
func (d *debeziumDecoder) value(i int, v jsonb.Value, h fieldHint) (types.Datum, error) {
	c := &d.convs[i]
	if v.IsNull() {
		return nil, nil
	}
	if text, ok := v.NumText(); ok {
		if datum, done, err := numberValue(c.t, text, h); done {
			return datum, err
		}
	}
	if s, ok := v.Str(); ok {
		if datum, done, err := stringValue(c, s, h); done {
			return datum, err
		}
	}
	if c.t.ID == types.IDNumeric && v.Kind() == jsonb.Object {
		return variableScaleDecimal(c, v)
	}
	return c.fromJSON(v)
}

// numberValue converts a JSON number as Debezium's temporal encodings
// and MySQL's booleans say; done is false for a number to convert as
// FORMAT PLAIN does.
func numberValue(t types.Type, text string, h fieldHint) (types.Datum, bool, error) {
	switch t.ID {
	case types.IDTimestamp, types.IDTimestampTZ, types.IDDate, types.IDInterval, types.IDBool:
	default:
		return nil, false, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, true, fmt.Errorf("cannot convert the number %s to %s", text, t)
	}
	switch t.ID {
	case types.IDTimestamp, types.IDTimestampTZ:
		ts := types.Timestamp(epochMicros(n, h.logical))
		if !types.TimestampValid(ts) {
			return nil, true, fmt.Errorf("%s is out of range for type %s", text, t)
		}
		return ts, true, nil
	case types.IDDate:
		if n < math.MinInt32 || n > math.MaxInt32 || !types.DateValid(types.Date(n)) {
			return nil, true, fmt.Errorf("%s days is out of range for type date", text)
		}
		return types.Date(n), true, nil
	case types.IDInterval:
		if h.logical == "io.debezium.time.NanoDuration" {
			n /= 1000
		}
		return types.Interval{Micros: n}, true, nil
	}
	if n != 0 && n != 1 {
		return nil, true, fmt.Errorf("cannot convert the number %s to boolean", text)
	}
	return n == 1, true, nil
}

// epochMicros converts n, a time since 1970 in the unit logical names,
// to microseconds; without a known unit the unit is guessed from n's
// size as RisingWave guesses it.
func epochMicros(n int64, logical string) int64 {
	switch logical {
	case "io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp":
		return n * 1000
	case "io.debezium.time.MicroTimestamp":
		return n
	case "io.debezium.time.NanoTimestamp":
		return n / 1000
	}
	a := n
	if a < 0 {
		a = -a
	}
	switch {
	case a < 1e11:
		return n * 1_000_000
	case a < 1e14:
		return n * 1000
	case a < 1e17:
		return n
	}
	return n / 1000
}

// stringValue converts a JSON string as Debezium's encodings say; done
// is false for a string to convert as FORMAT PLAIN does.
func stringValue(c *columnConv, s string, h fieldHint) (types.Datum, bool, error) {
	switch c.t.ID {
	case types.IDBytea:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, true, fmt.Errorf("bytea is base64 in a Debezium message: %w", err)
		}
		return string(b), true, nil
	case types.IDNumeric:
		if h.logical != "org.apache.kafka.connect.data.Decimal" {
			return nil, false, nil
		}
		v, err := decimalText(s, h.scale)
		if err != nil {
			return nil, true, err
		}
		datum, err := c.fromString(v)
		return datum, true, err
	case types.IDJSON, types.IDJSONB:
		isJSON := h.logical == "io.debezium.data.Json"
		if h.schema && !isJSON {
			return nil, false, nil // a string value
		}
		if v, err := jsonb.Parse(s); err == nil {
			return v.String(), true, nil
		}
		if isJSON {
			return nil, true, fmt.Errorf("an io.debezium.data.Json field that is not JSON: %q", s)
		}
	}
	return nil, false, nil
}

// decimalText is the text of Kafka Connect's Decimal: b64, base64 of a
// big-endian two's complement unscaled value, with scale.
func decimalText(b64 string, scale int) (string, error) {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("a Decimal is base64 in a Debezium message: %w", err)
	}
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n.String() + "E" + strconv.Itoa(-scale), nil
}

// variableScaleDecimal converts Debezium's VariableScaleDecimal, an
// object {"scale": s, "value": base64}.
func variableScaleDecimal(c *columnConv, v jsonb.Value) (types.Datum, error) {
	sv, _ := v.Field("scale")
	vv, _ := v.Field("value")
	st, ok1 := sv.NumText()
	b64, ok2 := vv.Str()
	scale, err := strconv.Atoi(st)
	if !ok1 || !ok2 || err != nil {
		return nil, fmt.Errorf("cannot convert a JSON object to %s", c.t)
	}
	text, err := decimalText(b64, scale)
	if err != nil {
		return nil, err
	}
	return c.fromString(text)
}

// schemaHints returns the field hints of a message's Kafka Connect
// schema: the fields of its after (else before) struct, by lower-cased
// name; nil without a schema.
func (d *debeziumDecoder) schemaHints(schema jsonb.Value) map[string]fieldHint {
	if schema.Kind() != jsonb.Object {
		d.schemaText, d.hints = "", nil
		return nil
	}
	text := schema.String()
	if text == d.schemaText && d.hints != nil {
		return d.hints
	}
	hints := map[string]fieldHint{}
	fields, _ := schema.Field("fields")
	elems, _ := fields.Elements()
	for _, want := range []string{"before", "after"} {
		for _, f := range elems {
			if name, _ := f.Field("field"); mustStr(name, true) != want {
				continue
			}
			inner, _ := f.Field("fields")
			cols, _ := inner.Elements()
			for _, col := range cols {
				addHint(hints, col)
			}
		}
	}
	d.schemaText, d.hints = text, hints
	return hints
}

// addHint records the hint of one field of a row image's schema.
func addHint(hints map[string]fieldHint, col jsonb.Value) {
	field, _ := col.Field("field")
	name, _ := col.Field("name")
	h := fieldHint{logical: mustStr(name, true)}
	if params, ok := col.Field("parameters"); ok {
		if sc, ok := params.Field("scale"); ok {
			text, _ := sc.Str()
			if text == "" {
				text, _ = sc.NumText()
			}
			h.scale, _ = strconv.Atoi(text)
		}
	}
	hints[strings.ToLower(mustStr(field, true))] = h
}
