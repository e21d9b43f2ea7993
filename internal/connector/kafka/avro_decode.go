package kafka

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/hamba/avro/v2"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// avroAPI decodes and encodes Avro: a message's bytes and strings are
// bounded (16 MiB; Kafka's messages are 1 MiB by default). A
// time.Time in a nullable union also resolves to local-timestamp-micros,
// which hamba/avro's resolver leaves out (a sink's timestamp column).
var avroAPI = func() avro.API {
	api := avro.Config{MaxByteSliceSize: 16 << 20}.Freeze()
	api.Register(string(avro.Long)+"."+string(avro.LocalTimestampMicros), time.Time{})
	return api
}()

// The Confluent wire format: a magic byte 0, the writer schema's id as
// 4 bytes big-endian, then the Avro binary encoding of the value.
const (
	wireMagic  = 0
	wireHeader = 5
)

// appendWireHeader appends the Confluent header naming schema id.
func appendWireHeader(b []byte, id int) []byte {
	return binary.BigEndian.AppendUint32(append(b, wireMagic), uint32(id))
}

// startedDecoder is a Decoder that the Reader starts with its goroutine's
// context, which stops its retries, and its State setter.
type startedDecoder interface {
	start(ctx context.Context, state func(string))
}

// keyDecoder is a Decoder that also fills an UPSERT message's key
// columns from its key (nil: a message without a key, an error).
type keyDecoder interface {
	DecodeKey(key []byte, row []types.Datum) error
}

// avroResolver reads messages of one subject into its stored (reader)
// schema, whatever schema of the subject wrote them. A message names its
// writer schema's id; the stored id decodes with the stored schema,
// another is fetched from the registry once, resolved into the reader
// schema (Avro's schema resolution) and cached. An id the registry does
// not know, or a schema that does not resolve, is an error of each such
// message (cached too). While the registry does not answer it retries,
// with backoff, until it does or the reader stops: a message is never
// skipped because the registry was down.
//
// It is used by the Reader's goroutine only.
type avroResolver struct {
	reg      *Registry
	subject  string
	readerID int
	reader   avro.Schema
	byID     map[int]avro.Schema
	bad      map[int]error
	compat   *avro.SchemaCompatibility
	ctx      context.Context // nil before start: no retries
	state    func(string)
}

func newAvroResolver(reg *Registry, subject string, stored RegistrySchema) (*avroResolver, error) {
	s, err := parseAvroSchema(stored.Schema)
	if err != nil {
		return nil, err
	}
	return &avroResolver{reg: reg, subject: subject, readerID: stored.ID, reader: s,
		byID: map[int]avro.Schema{stored.ID: s}, bad: map[int]error{}, compat: avro.NewSchemaCompatibility()}, nil
}

// decode decodes one message (with its wire header) into v.
func (r *avroResolver) decode(msg []byte, v any) (err error) {
	if len(msg) < wireHeader || msg[0] != wireMagic {
		return errors.New("kafka: an Avro message not in the Confluent wire format (magic byte 0, 4-byte schema id)")
	}
	id := int(binary.BigEndian.Uint32(msg[1:wireHeader]))
	s, err := r.schema(id)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil { // hamba/avro on bytes it cannot read
			err = fmt.Errorf("kafka: an Avro message of schema id %d that does not decode: %v", id, p)
		}
	}()
	if err := avroAPI.Unmarshal(s, msg[wireHeader:], v); err != nil {
		return fmt.Errorf("kafka: an Avro message of schema id %d that does not decode: %w", id, err)
	}
	return nil
}

// schema returns the schema that reads id's messages into the reader
// schema.
func (r *avroResolver) schema(id int) (avro.Schema, error) {
	if s, ok := r.byID[id]; ok {
		return s, nil
	}
	if err, ok := r.bad[id]; ok {
		return nil, err
	}
	text, err := r.fetch(id)
	if err != nil {
		if errors.Is(err, ErrRegistryNotFound) {
			err = fmt.Errorf("kafka: unknown Avro schema id %d: the schema registry does not have it", id)
			r.bad[id] = err
		}
		return nil, err
	}
	w, err := parseAvroSchema(text)
	if err == nil {
		w, err = r.compat.Resolve(r.reader, w)
	}
	if err != nil {
		err = fmt.Errorf("kafka: Avro schema id %d cannot be read as the schema of subject %s stored at CREATE (id %d): %w", id, r.subject, r.readerID, err)
		r.bad[id] = err
		return nil, err
	}
	r.byID[id] = w
	return w, nil
}

// fetch asks the registry for id's schema, retrying while it does not
// answer (once started).
func (r *avroResolver) fetch(id int) (string, error) {
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	backoff := 200 * time.Millisecond
	for {
		text, err := r.reg.ByID(ctx, id)
		if err == nil || !errors.Is(err, ErrRegistryUnreachable) || r.ctx == nil || ctx.Err() != nil {
			if err == nil && r.state != nil && r.ctx != nil {
				r.state("running")
			}
			return text, err
		}
		if r.state != nil {
			r.state("retrying: " + err.Error())
		}
		sleep(ctx, backoff)
		backoff = min(2*backoff, 5*time.Second)
	}
}

// avroDecoder decodes ENCODE AVRO messages: the value into the payload
// columns (fields by name), and under FORMAT UPSERT keyed by columns, the
// key into its columns.
type avroDecoder struct {
	value *avroResolver
	names []string
	convs []avroConv
	key   *avroResolver
	// keyCols are the payload positions the key fills, in key order;
	// keyRecord: the key is a record of them (else one primitive).
	keyCols   []int
	keyRecord bool
}

func newAvroDecoder(o Options, cols []connector.Column) (Decoder, error) {
	a := o.Avro
	if a.Value.Schema == "" {
		return nil, optionError(optAvroValueSchema, "", "An internal option: CREATE stores the Avro schema.")
	}
	reg := a.registry()
	value, err := newAvroResolver(reg, valueSubject(o.Topic), a.Value)
	if err != nil {
		return nil, err
	}
	d := &avroDecoder{value: value}
	fields := map[string]avro.Schema{}
	if rec, ok := value.reader.(*avro.RecordSchema); ok {
		for _, f := range rec.Fields() {
			fields[f.Name()] = f.Type()
		}
	}
	byName := map[string]int{}
	for i, c := range cols {
		s, ok := fields[c.Name]
		if !ok {
			return nil, fmt.Errorf("kafka: column %q is not a field of the stored Avro schema", c.Name)
		}
		conv, err := newAvroConv(s, c.Type)
		if err != nil {
			return nil, fieldError(c.Name, err)
		}
		d.names, d.convs = append(d.names, c.Name), append(d.convs, conv)
		byName[c.Name] = i
	}
	if len(a.KeyColumns) == 0 {
		return d, nil
	}
	if d.key, err = newAvroResolver(reg, keySubject(o.Topic), a.Key); err != nil {
		return nil, err
	}
	_, d.keyRecord = d.key.reader.(*avro.RecordSchema)
	for _, name := range a.KeyColumns {
		i, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("kafka: key column %q is not a column", name)
		}
		d.keyCols = append(d.keyCols, i)
	}
	return d, nil
}

func (d *avroDecoder) start(ctx context.Context, state func(string)) {
	for _, r := range []*avroResolver{d.value, d.key} {
		if r != nil {
			r.ctx, r.state = ctx, state
		}
	}
}

func (d *avroDecoder) Decode(msg []byte, dst []types.Datum) ([]types.Datum, error) {
	var m map[string]any
	if err := d.value.decode(msg, &m); err != nil {
		return nil, err
	}
	dst = append(dst[:0], make([]types.Datum, len(d.convs))...)
	for i, name := range d.names {
		var err error
		if dst[i], err = d.convs[i](m[name]); err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
	}
	return dst, nil
}

// DecodeKey implements keyDecoder: the key's fields (or its value) set
// the key columns of row, replacing what the value said.
func (d *avroDecoder) DecodeKey(key []byte, row []types.Datum) error {
	if d.key == nil {
		return nil
	}
	var v any
	if err := d.key.decode(key, &v); err != nil {
		return fmt.Errorf("the message key: %w", err)
	}
	if !d.keyRecord {
		return d.setKey(row, d.keyCols[0], v)
	}
	m, _ := v.(map[string]any)
	for _, i := range d.keyCols {
		if err := d.setKey(row, i, m[d.names[i]]); err != nil {
			return err
		}
	}
	return nil
}

func (d *avroDecoder) setKey(row []types.Datum, i int, v any) error {
	var err error
	if row[i], err = d.convs[i](v); err != nil {
		return fmt.Errorf("the message key's %q: %w", d.names[i], err)
	}
	if row[i] == nil {
		return fmt.Errorf("the message key's %q is null", d.names[i])
	}
	return nil
}

// avroConv converts a value hamba/avro decoded (generically) to a datum
// of a column type.
type avroConv func(v any) (types.Datum, error)

// hamba/avro decodes a union into an interface as its value when it can
// name a Go type for every member, else as {"member type name": value}:
// a nullable union of a record, map, array, enum or fixed comes wrapped,
// and is unwrapped here (a value of the other members is never a map).
func newAvroConv(s avro.Schema, t types.Type) (avroConv, error) {
	inner, nullable := nonNull(s)
	conv, err := newAvroConvOf(inner, t)
	if err != nil || !nullable {
		return conv, err
	}
	return func(v any) (types.Datum, error) {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			for _, x := range m {
				v = x
			}
		}
		return conv(v)
	}, nil
}

func newAvroConvOf(s avro.Schema, t types.Type) (avroConv, error) {
	switch t.ID {
	case types.IDNumeric:
		scale := 0
		if l, ok := s.(avro.LogicalTypeSchema); ok {
			if dl, ok := l.Logical().(*avro.DecimalLogicalSchema); ok {
				scale = dl.Scale()
			}
		}
		return func(v any) (types.Datum, error) { return avroDecimal(v, scale) }, nil
	case types.IDArray:
		elem, err := newAvroConv(s.(*avro.ArraySchema).Items(), types.Type{ID: t.Elem})
		if err != nil {
			return nil, err
		}
		return func(v any) (types.Datum, error) { return avroArray(v, elem, types.Type{ID: t.Elem}) }, nil
	case types.IDJSONB:
		return avroJSONB, nil
	}
	return func(v any) (types.Datum, error) { return avroScalar(v, t) }, nil
}

// avroScalar converts a scalar value to a datum of type t.
func avroScalar(v any, t types.Type) (types.Datum, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		switch t.ID {
		case types.IDUUID, types.IDInet, types.IDCidr, types.IDTime, types.IDTimeTZ, types.IDBpchar:
			return types.Parse(x, t) // their text
		}
		return x, nil
	case []byte:
		return string(x), nil
	case time.Time:
		if t.ID == types.IDDate {
			return types.Date(math.Floor(float64(x.Unix()) / 86400)), nil
		}
		return types.Timestamp(x.UnixMicro()), nil
	case avro.LogicalDuration:
		return types.Interval{Months: int32(x.Months), Days: int32(x.Days), Micros: int64(x.Milliseconds) * 1000}, nil
	}
	if b, ok := fixedBytes(v); ok {
		return string(b), nil
	}
	return nil, fmt.Errorf("an Avro value of Go type %T for a column of type %s", v, t)
}

// fixedBytes returns the bytes of a fixed value ([n]byte).
func fixedBytes(v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Array || rv.Type().Elem().Kind() != reflect.Uint8 {
		return nil, false
	}
	b := make([]byte, rv.Len())
	reflect.Copy(reflect.ValueOf(b), rv)
	return b, true
}

// avroDecimal converts a decimal (a *big.Rat) to a numeric with the
// schema's scale, exactly.
func avroDecimal(v any, scale int) (types.Datum, error) {
	if v == nil {
		return nil, nil
	}
	r, ok := v.(*big.Rat)
	if !ok {
		return nil, fmt.Errorf("an Avro decimal of Go type %T", v)
	}
	n := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	n.Quo(n, r.Denom())
	return apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(n), int32(-scale)), nil
}

func avroArray(v any, elem avroConv, t types.Type) (types.Datum, error) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("an Avro array of Go type %T", v)
	}
	out := make([]types.Datum, len(items))
	for i, it := range items {
		var err error
		if out[i], err = elem(it); err != nil {
			return nil, err
		}
	}
	return types.FormatArray(out, t), nil
}

// avroJSONB renders a record, map or array as jsonb: records and maps
// as objects, bytes and fixed as base64 strings, decimals as numbers,
// timestamps as RFC 3339 strings, a union that is not nullable as
// {"type": value}, as hamba/avro decodes it.
func avroJSONB(v any) (types.Datum, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(avroJSONValue(v))
	if err != nil {
		return nil, err
	}
	j, err := jsonb.Parse(string(b))
	if err != nil {
		return nil, err
	}
	return j.String(), nil
}

func avroJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = avroJSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = avroJSONValue(e)
		}
		return out
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case *big.Rat:
		return json.Number(ratText(x))
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return x.String()
	case float32:
		return floatJSON(float64(x))
	case float64:
		return floatJSON(x)
	}
	if b, ok := fixedBytes(v); ok {
		return base64.StdEncoding.EncodeToString(b)
	}
	return v
}

func floatJSON(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return f
}

// ratText is a decimal's exact text: the fewest fraction digits that
// hold it (a decimal's denominator divides a power of ten).
func ratText(r *big.Rat) string {
	for digits := 0; digits <= 76; digits++ {
		s := r.FloatString(digits)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return strings.TrimRight(r.FloatString(76), "0")
}
