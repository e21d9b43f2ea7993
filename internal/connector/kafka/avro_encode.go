package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/hamba/avro/v2"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// avroNamespace is the namespace of the records a sink registers.
const avroNamespace = "streamdb"

// sinkAvroSchema is the Avro schema of a sink's records of cols, named
// name: a record with a field per column, in order, each a union of null
// and the column's type (sinkAvroType) with default null, so that a
// later schema may drop it. A column whose name is not a valid Avro name
// is an error (0A000) naming it.
func sinkAvroSchema(name string, cols []SinkColumn) (string, error) {
	fields := make([]map[string]any, len(cols))
	for i, c := range cols {
		if !validAvroName(c.Name) {
			e := pgerr.New(pgerr.FeatureNotSupported, "column %q is not a valid Avro field name", c.Name)
			e.Hint = "Avro names are letters, digits and underscores, not starting with a digit: rename the column in the sink's query (AS)."
			return "", e
		}
		fields[i] = map[string]any{"name": c.Name, "type": []any{"null", sinkAvroType(c.Type)}, "default": nil}
	}
	b, err := json.Marshal(map[string]any{"type": "record", "name": avroName(name), "namespace": avroNamespace, "fields": fields})
	return string(b), err
}

// RegisterAvroSink registers, at CREATE of an ENCODE AVRO sink named
// name, the schema of its values under <topic>-value and, when its
// messages are keyed, the schema of its keys under <topic>-key, and
// returns the connector options that store both with their ids, which
// its messages will name. The schemas follow from the sink's columns,
// so the same sink registers the same schemas (the registry answers a
// schema it holds with its id).
func RegisterAvroSink(ctx context.Context, o SinkOptions, name string, cols, key []SinkColumn) (map[string]string, error) {
	a := o.Avro
	reg := a.registry()
	register := func(subject, record string, cols []SinkColumn) (RegistrySchema, error) {
		text, err := sinkAvroSchema(record, cols)
		if err != nil {
			return RegistrySchema{}, err
		}
		if _, err := parseAvroSchema(text); err != nil {
			return RegistrySchema{}, pgerr.Wrap(err, pgerr.Internal, "the sink's Avro schema")
		}
		id, err := reg.Register(ctx, subject, text)
		if err != nil {
			return RegistrySchema{}, registryPGError(err, subject, a.Registry)
		}
		return RegistrySchema{ID: id, Schema: text}, nil
	}
	var err error
	if a.Value, err = register(valueSubject(o.Topic), name, cols); err != nil {
		return nil, err
	}
	if len(key) > 0 {
		if a.Key, err = register(keySubject(o.Topic), name+"_key", key); err != nil {
			return nil, err
		}
	}
	return a.stored(), nil
}

// avroSinkEncoder writes a sink's rows as Avro records in the Confluent
// wire format, with the schemas stored at CREATE.
type avroSinkEncoder struct {
	value, key *avroRecordEncoder
}

func newAvroSinkEncoder(a AvroOptions, cols, key []SinkColumn) (*avroSinkEncoder, error) {
	e := &avroSinkEncoder{}
	var err error
	if e.value, err = newAvroRecordEncoder(a.Value, cols); err != nil {
		return nil, err
	}
	if len(key) > 0 {
		if e.key, err = newAvroRecordEncoder(a.Key, key); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// avroRecordEncoder encodes rows' cols as records of one schema.
type avroRecordEncoder struct {
	id     int
	schema avro.Schema
	cols   []SinkColumn
	m      map[string]any
}

func newAvroRecordEncoder(stored RegistrySchema, cols []SinkColumn) (*avroRecordEncoder, error) {
	if stored.Schema == "" {
		return nil, optionError(optAvroValueSchema, "", "An internal option: CREATE stores the sink's Avro schemas.")
	}
	s, err := parseAvroSchema(stored.Schema)
	if err != nil {
		return nil, err
	}
	return &avroRecordEncoder{id: stored.ID, schema: s, cols: cols, m: make(map[string]any, len(cols))}, nil
}

// encode returns row's record with its wire header.
func (e *avroRecordEncoder) encode(row []types.Datum) ([]byte, error) {
	for _, c := range e.cols {
		v, err := avroSinkValue(row[c.Index], c.Type)
		if err != nil {
			return nil, fmt.Errorf("kafka: column %q: %w", c.Name, err)
		}
		e.m[c.Name] = v
	}
	body, err := avroAPI.Marshal(e.schema, e.m)
	if err != nil {
		return nil, fmt.Errorf("kafka: encoding an Avro record: %w", err)
	}
	return append(appendWireHeader(make([]byte, 0, wireHeader+len(body)), e.id), body...), nil
}

// avroSinkValue is the value hamba/avro encodes as d's field (see
// sinkAvroType).
func avroSinkValue(d types.Datum, t types.Type) (any, error) {
	if d == nil {
		return nil, nil
	}
	switch t.ID {
	case types.IDBool, types.IDInt64, types.IDFloat64:
		return d, nil
	case types.IDInt16, types.IDInt32:
		return int32(d.(int64)), nil
	case types.IDFloat32:
		return float32(d.(float64)), nil
	case types.IDNumeric:
		if t.Precision > 0 {
			r, ok := new(big.Rat).SetString(types.Format(d, t))
			if !ok {
				return nil, fmt.Errorf("%s is not a finite decimal", types.Format(d, t))
			}
			return r, nil
		}
	case types.IDDate:
		return time.Unix(int64(d.(types.Date))*86400, 0).UTC(), nil
	case types.IDTimestamp, types.IDTimestampTZ:
		return time.UnixMicro(int64(d.(types.Timestamp))).UTC(), nil
	case types.IDBytea:
		return []byte(d.(string)), nil
	case types.IDArray:
		elem := types.Type{ID: t.Elem}
		elems, err := types.ParseArray(d.(string), elem)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, x := range elems {
			if out[i], err = avroSinkValue(x, elem); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if s, ok := d.(string); ok && !t.IsRawBytes() {
		return s, nil
	}
	return types.Format(d, t), nil // uuid, inet, time, ...: their text
}
