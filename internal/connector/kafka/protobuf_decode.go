package kafka

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/types"
)

// protobufDecoder decodes ENCODE PROTOBUF messages (the bare Protobuf
// encoding of the message, as schema.location's producers write it)
// into the payload columns, each from the field of its name, with the
// schema stored at CREATE. Under FORMAT UPSERT keyed by columns it also
// decodes each key, a message of the key message, into the key columns.
//
// What an unset field reads as follows RisingWave: a scalar its default
// (proto3's zero, proto2's declared default), a message NULL, a member of
// a oneof that another member (or none) holds NULL.
//
// Columns of type jsonb (messages, maps, repeated messages or bytes)
// hold the field's value as protojson renders it, the canonical JSON
// mapping (field names as written in the .proto, unset fields included):
// so int64s are JSON strings, bytes base64 strings, enums names,
// Timestamps RFC 3339 strings. A message field is rendered alone; a map
// or list is taken from the whole message's rendering (protojson renders
// only messages), done once per message that has one.
//
// It is used by the Reader's goroutine only (or the binder's, once).
type protobufDecoder struct {
	schema *protobufSchema
	msg    protoreflect.MessageDescriptor
	fields []protoreflect.FieldDescriptor // by column
	// key is the key message under FORMAT UPSERT keyed by columns (nil:
	// not), keyFields its fields of keyCols' columns.
	key       protoreflect.MessageDescriptor
	keyCols   []int
	keyFields []protoreflect.FieldDescriptor
	cols      []connector.Column
	// value and keyReg, under schema.registry, resolve each message's
	// Confluent framing to the message that wrote it (protobuf_registry.go);
	// nil under schema.location.
	value, keyReg *pbResolver
}

var protoJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// protoUnmarshal bounds nothing but the recursion depth (proto's
// default); Kafka bounds a message's size.
var protoUnmarshal = proto.UnmarshalOptions{}

func newProtobufDecoder(o Options, cols []connector.Column) (Decoder, error) {
	p := o.Protobuf
	if len(o.Avro.Registry) > 0 {
		return newProtobufRegistryDecoder(o, cols)
	}
	if len(p.Descriptors) == 0 {
		return nil, optionError(optProtoDescriptors, "", "An internal option: CREATE stores the Protobuf schema.")
	}
	s, err := parseProtobufSchema(p.Descriptors)
	if err != nil {
		return nil, err
	}
	md, err := s.message(p.Message)
	if err != nil {
		return nil, err
	}
	d := &protobufDecoder{schema: s, msg: md, cols: cols}
	byName := map[string]int{}
	for i, c := range cols {
		f := md.Fields().ByName(protoreflect.Name(c.Name))
		if f == nil {
			return nil, fmt.Errorf("kafka: column %q is not a field of the stored Protobuf message %s", c.Name, md.FullName())
		}
		if t := protobufType(f); t.ID != c.Type.ID || t.Elem != c.Type.Elem {
			return nil, fmt.Errorf("kafka: column %q is %s, its Protobuf field %s", c.Name, c.Type, t)
		}
		d.fields = append(d.fields, f)
		byName[c.Name] = i
	}
	if len(p.KeyColumns) == 0 {
		return d, nil
	}
	if d.key, err = s.message(p.keyMessage()); err != nil {
		return nil, err
	}
	for _, name := range p.KeyColumns {
		i, ok := byName[name]
		f := d.key.Fields().ByName(protoreflect.Name(name))
		if !ok || f == nil {
			return nil, fmt.Errorf("kafka: key column %q is not a column and a field of %s", name, d.key.FullName())
		}
		d.keyCols, d.keyFields = append(d.keyCols, i), append(d.keyFields, f)
	}
	return d, nil
}

// parse decodes b as a message of md.
func (d *protobufDecoder) parse(b []byte, md protoreflect.MessageDescriptor) (*dynamicpb.Message, error) {
	return parseProtobuf(d.schema, b, md)
}

// parseProtobuf decodes b as a message of md, of schema s.
func parseProtobuf(s *protobufSchema, b []byte, md protoreflect.MessageDescriptor) (*dynamicpb.Message, error) {
	m := dynamicpb.NewMessage(md)
	opts := protoUnmarshal
	opts.Resolver = s.types
	if err := opts.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("kafka: a message that does not decode as Protobuf %s: %w", md.FullName(), err)
	}
	return m, nil
}

func (d *protobufDecoder) Decode(msg []byte, dst []types.Datum) ([]types.Datum, error) {
	if d.value != nil {
		v, payload, err := d.value.resolve(msg)
		if err != nil {
			return nil, err
		}
		m, err := parseProtobuf(v.schema, payload, v.md)
		if err != nil {
			return nil, err
		}
		return d.fill(v.schema, m, v.fields, dst)
	}
	m, err := d.parse(msg, d.msg)
	if err != nil {
		return nil, err
	}
	return d.fill(d.schema, m, d.fields, dst)
}

// fill sets dst to the columns of m, a message of schema s: column i from
// fields[i] (nil: a field the message's schema lacks, NULL).
func (d *protobufDecoder) fill(s *protobufSchema, m *dynamicpb.Message, fields []protoreflect.FieldDescriptor, dst []types.Datum) ([]types.Datum, error) {
	var err error
	var obj map[string]jsonb.Value // the whole message's rendering, for lists and maps
	dst = append(dst[:0], make([]types.Datum, len(fields))...)
	for i, f := range fields {
		switch {
		case f == nil:
			continue
		case d.cols[i].Type.ID != types.IDJSONB:
		case !f.IsList() && !f.IsMap(): // a message: rendered alone, NULL when unset
			if m.Has(f) {
				if dst[i], err = jsonOfProtobuf(s, m.Get(f).Message()); err != nil {
					return nil, err
				}
			}
			continue
		default:
			if obj == nil {
				if obj, err = protobufJSONFields(s, m); err != nil {
					return nil, err
				}
			}
			if v, ok := obj[string(f.Name())]; ok && !v.IsNull() {
				dst[i] = v.String()
			}
			continue
		}
		if dst[i], err = protobufField(m, f); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name(), err)
		}
	}
	return dst, nil
}

// renderProtobuf renders m, of schema s, with protojson, as jsonb.
func renderProtobuf(s *protobufSchema, m protoreflect.Message) (jsonb.Value, error) {
	opts := protoJSON
	opts.Resolver = s.types
	b, err := opts.Marshal(m.Interface())
	if err != nil {
		return jsonb.Value{}, fmt.Errorf("kafka: Protobuf %s as JSON: %w", m.Descriptor().FullName(), err)
	}
	return jsonb.Parse(string(b))
}

// jsonOfProtobuf is the jsonb datum of a message.
func jsonOfProtobuf(s *protobufSchema, m protoreflect.Message) (types.Datum, error) {
	v, err := renderProtobuf(s, m)
	if err != nil {
		return nil, err
	}
	return v.String(), nil
}

// protobufJSONFields renders m and returns its fields by name.
func protobufJSONFields(s *protobufSchema, m protoreflect.Message) (map[string]jsonb.Value, error) {
	v, err := renderProtobuf(s, m)
	if err != nil {
		return nil, err
	}
	keys, vals, err := v.Each()
	if err != nil {
		return nil, err
	}
	out := make(map[string]jsonb.Value, len(keys))
	for i, k := range keys {
		out[k] = vals[i]
	}
	return out, nil
}

// DecodeKey implements keyDecoder: the key message's fields set the key
// columns of row, replacing what the value said.
func (d *protobufDecoder) DecodeKey(key []byte, row []types.Datum) error {
	if d.keyReg != nil {
		return d.decodeRegistryKey(key, row)
	}
	if d.key == nil {
		return nil
	}
	m, err := d.parse(key, d.key)
	if err != nil {
		return fmt.Errorf("the message key: %w", err)
	}
	for k, f := range d.keyFields {
		i := d.keyCols[k]
		if row[i], err = protobufField(m, f); err != nil {
			return fmt.Errorf("the message key's %q: %w", f.Name(), err)
		}
		if row[i] == nil {
			return fmt.Errorf("the message key's %q is null", f.Name())
		}
	}
	return nil
}

// protobufField is the datum of a field that is not jsonb: NULL for an
// unset message or oneof member, else its value (an unset scalar's
// default).
func protobufField(m protoreflect.Message, f protoreflect.FieldDescriptor) (types.Datum, error) {
	unsetIsNull := f.Message() != nil || f.ContainingOneof() != nil && !f.ContainingOneof().IsSynthetic()
	if !f.IsList() && unsetIsNull && !m.Has(f) {
		return nil, nil
	}
	v := m.Get(f)
	if !f.IsList() {
		return protobufScalar(f, v), nil
	}
	list := v.List()
	elems := make([]types.Datum, list.Len())
	for i := range elems {
		elems[i] = protobufScalar(f, list.Get(i))
	}
	return types.FormatArray(elems, protobufScalarType(f)), nil
}

// protobufScalar is the datum of one value of f's kind (protobufScalarType).
func protobufScalar(f protoreflect.FieldDescriptor, v protoreflect.Value) types.Datum {
	switch f.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int()
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return int64(v.Uint())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, _ := types.ParseNumeric(strconv.FormatUint(v.Uint(), 10), types.TNumeric) // digits: cannot fail
		return n
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float()
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BytesKind:
		return string(v.Bytes())
	case protoreflect.EnumKind:
		if ev := f.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.FormatInt(int64(v.Enum()), 10) // a number the schema does not name
	}
	// google.protobuf.Timestamp, the one message with a scalar column.
	tm := v.Message()
	fs := tm.Descriptor().Fields()
	secs, nanos := tm.Get(fs.ByName("seconds")).Int(), tm.Get(fs.ByName("nanos")).Int()
	return types.Timestamp(secs*1_000_000 + nanos/1000)
}
