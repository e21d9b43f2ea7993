package kafka

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hamba/avro/v2"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// EncodeAvro is ENCODE AVRO.
const EncodeAvro = "avro"

// ENCODE AVRO (...) options (RisingWave's names), among the connector
// options as OptEncodePrefix + name, and the ones CREATE stores.
const (
	OptSchemaRegistry     = OptEncodePrefix + "schema.registry"
	OptRegistryUsername   = OptEncodePrefix + "schema.registry.username"
	OptRegistryPassword   = OptEncodePrefix + "schema.registry.password"
	optRegistryStrategy   = OptEncodePrefix + "schema.registry.name.strategy"
	optAvroPrefix         = ReservedPrefix + "kafka.avro."
	optAvroValueSchema    = optAvroPrefix + "value.schema"
	optAvroValueID        = optAvroPrefix + "value.id"
	optAvroKeySchema      = optAvroPrefix + "key.schema"
	optAvroKeyID          = optAvroPrefix + "key.id"
	optAvroKeyColumns     = optAvroPrefix + "key.columns"
	topicNameStrategy     = "topic_name_strategy"
	avroRegistryHintValue = "ENCODE AVRO (schema.registry = 'http://host:8081')"
)

// AvroOptions are ENCODE AVRO's options: the registry, and what CREATE
// stored in the catalog (the relation's connector options) so that the
// relation never needs the registry again to read or write messages of
// the schema it was created with, after a restart included.
//
// A source stores the latest schema of subject <topic>-value at CREATE
// (the topic name strategy), with its id: the reader schema, which
// gives the columns. A message names its writer schema by id: the
// stored id decodes with the stored schema; another id is fetched from
// the registry once and resolved into the stored schema by Avro's rules
// (a field the writer added is skipped, one it removed takes the
// reader's default). An UPSERT table keyed by the message key's fields
// also stores subject <topic>-key's schema and the key columns it fills.
// A sink stores the schemas it registered at CREATE and their ids, which
// every message it writes names.
type AvroOptions struct {
	Registry       []string
	User, Password string
	// Value and Key are the stored schemas (ID 0, "" when none).
	Value, Key RegistrySchema
	// KeyColumns are the columns the message key fills, in the key
	// schema's order (a record's fields; one column for a primitive key).
	KeyColumns []string
}

// set parses one ENCODE AVRO option or stored key; false when k is
// neither.
func (a *AvroOptions) set(k, v string) (bool, error) {
	var err error
	switch k {
	case OptSchemaRegistry:
		a.Registry = a.Registry[:0]
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				a.Registry = append(a.Registry, u)
			}
		}
	case OptRegistryUsername:
		a.User = v
	case OptRegistryPassword:
		a.Password = v
	case optRegistryStrategy:
		if !strings.EqualFold(v, topicNameStrategy) {
			e := pgerr.New(pgerr.FeatureNotSupported, "schema.registry.name.strategy %q is not supported", v)
			e.Hint = "Only topic_name_strategy (subjects <topic>-value and <topic>-key) is supported."
			return true, e
		}
	case optAvroValueSchema:
		a.Value.Schema = v
	case optAvroKeySchema:
		a.Key.Schema = v
	case optAvroValueID:
		a.Value.ID, err = strconv.Atoi(v)
	case optAvroKeyID:
		a.Key.ID, err = strconv.Atoi(v)
	case optAvroKeyColumns:
		err = json.Unmarshal([]byte(v), &a.KeyColumns)
	default:
		return false, nil
	}
	if err != nil {
		return true, optionError(k, v, "An internal option: the stored Avro schema.")
	}
	return true, nil
}

// check checks the options of ENCODE e.
func (a *AvroOptions) check(encode string) error {
	switch {
	case encode != EncodeAvro && (len(a.Registry) > 0 || a.User != "" || a.Value.Schema != ""):
		return optionError(OptSchemaRegistry, strings.Join(a.Registry, ","), "schema.registry is an option of ENCODE AVRO.")
	case encode == EncodeAvro && len(a.Registry) == 0:
		return optionError(OptSchemaRegistry, "", "ENCODE AVRO needs a schema registry: "+avroRegistryHintValue+".")
	}
	return nil
}

func (a *AvroOptions) registry() *Registry { return NewRegistry(a.Registry, a.User, a.Password) }

// stored returns the options that record a's stored schemas.
func (a *AvroOptions) stored() map[string]string {
	out := map[string]string{}
	if a.Value.Schema != "" {
		out[optAvroValueSchema], out[optAvroValueID] = a.Value.Schema, strconv.Itoa(a.Value.ID)
	}
	if a.Key.Schema != "" {
		out[optAvroKeySchema], out[optAvroKeyID] = a.Key.Schema, strconv.Itoa(a.Key.ID)
	}
	if len(a.KeyColumns) > 0 {
		b, _ := json.Marshal(a.KeyColumns) // strings: cannot fail
		out[optAvroKeyColumns] = string(b)
	}
	return out
}

// valueSubject and keySubject are the topic name strategy's subjects.
func valueSubject(topic string) string { return topic + "-value" }
func keySubject(topic string) string   { return topic + "-key" }

// SchemaSource is what CREATE of an ENCODE AVRO or ENCODE PROTOBUF
// source or table learns from its schema (a registry, or a
// schema.location): its payload columns, and the connector options that
// store the schema with the relation, so a restart needs neither.
type SchemaSource struct {
	Columns []connector.Column
	// Stored are reserved connector options to add to the relation's.
	Stored map[string]string
}

// ResolveAvroSource fetches, at CREATE, the latest schema of o's value
// subject and maps it to columns; for an UPSERT table keyed by columns
// (pk, the names of its primary key columns, not empty), also the key
// subject's schema, whose fields (or, for a primitive key, whose value)
// fill them. Registry errors are 08001 (unreachable, naming the URL),
// 42704 (no such subject, with a hint) and 28000 (credentials).
func ResolveAvroSource(ctx context.Context, o Options, pk []string) (SchemaSource, error) {
	a := o.Avro
	reg := a.registry()
	subject := valueSubject(o.Topic)
	v, err := reg.Latest(ctx, subject)
	if err != nil {
		return SchemaSource{}, registryPGError(err, subject, a.Registry)
	}
	s, err := parseAvroSchema(v.Schema)
	if err != nil {
		return SchemaSource{}, pgerr.Wrap(err, pgerr.FeatureNotSupported, "subject "+subject)
	}
	cols, err := AvroColumns(s)
	if err != nil {
		return SchemaSource{}, err
	}
	a.Value = v
	if len(pk) > 0 {
		subject = keySubject(o.Topic)
		k, err := reg.Latest(ctx, subject)
		if err != nil {
			return SchemaSource{}, registryPGError(err, subject, a.Registry)
		}
		if a.KeyColumns, err = avroKeyColumns(k.Schema, pk, cols); err != nil {
			return SchemaSource{}, err
		}
		a.Key = k
	}
	return SchemaSource{Columns: cols, Stored: a.stored()}, nil
}

// avroKeyColumns checks that a key schema names exactly the columns pk
// (a record of those fields, of their types; or a primitive of the one
// key column's type) and returns them in the key's order.
func avroKeyColumns(text string, pk []string, cols []connector.Column) ([]string, error) {
	s, err := parseAvroSchema(text)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.FeatureNotSupported, "the key schema")
	}
	typeOf := map[string]types.Type{}
	for _, c := range cols {
		typeOf[c.Name] = c.Type
	}
	mismatch := func(detail string) error {
		e := pgerr.New(pgerr.DatatypeMismatch, "the Avro key schema does not match the primary key (%s): %s", strings.Join(pk, ", "), detail)
		e.Hint = "The message key's fields must be the primary key's columns, or a primitive key a one-column primary key of its type."
		return e
	}
	rec, ok := s.(*avro.RecordSchema)
	if !ok {
		t, err := avroType(s)
		if err != nil {
			return nil, fieldError("(key)", err)
		}
		if len(pk) != 1 || typeOf[pk[0]].ID != t.ID {
			return nil, mismatch("a key of type " + t.String())
		}
		return pk, nil
	}
	if len(rec.Fields()) != len(pk) {
		return nil, mismatch(strconv.Itoa(len(rec.Fields())) + " key fields")
	}
	want := map[string]bool{}
	for _, p := range pk {
		want[p] = true
	}
	out := make([]string, 0, len(pk))
	for _, f := range rec.Fields() {
		t, err := avroType(f.Type())
		if err != nil {
			return nil, fieldError(f.Name(), err)
		}
		if !want[f.Name()] || typeOf[f.Name()].ID != t.ID {
			return nil, mismatch("key field " + f.Name() + " " + t.String())
		}
		out = append(out, f.Name())
	}
	return out, nil
}
