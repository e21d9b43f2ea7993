package kafka

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// EncodeProtobuf is ENCODE PROTOBUF.
const EncodeProtobuf = "protobuf"

// ENCODE PROTOBUF (...) options (RisingWave's names), among the
// connector options as OptEncodePrefix + name, and the ones CREATE
// stores.
const (
	OptProtoMessage     = OptEncodePrefix + "message"
	OptSchemaLocation   = OptEncodePrefix + "schema.location"
	OptProtoKeyMessage  = OptEncodePrefix + "key.message"
	optProtoPrefix      = ReservedPrefix + "kafka.protobuf."
	optProtoDescriptors = optProtoPrefix + "descriptors"
	optProtoKeyColumns  = optProtoPrefix + "key.columns"
	// maxSchemaSize bounds a FileDescriptorSet read at CREATE.
	maxSchemaSize = 16 << 20
)

// ProtobufOptions are ENCODE PROTOBUF's options, and what CREATE stored
// in the catalog (the relation's connector options): the
// FileDescriptorSet that schema.location named, as it was read then, so
// that neither a restart nor a rebuild reads the file or the URL again
// (it may be gone, or say something else by then; the columns were
// made from what it said at CREATE).
type ProtobufOptions struct {
	// Message is the full name of the message of each Kafka value.
	Message string
	// Location is schema.location: file:// or http(s):// of a
	// FileDescriptorSet.
	Location string
	// KeyMessage, under FORMAT UPSERT keyed by columns, is the message of
	// each Kafka key ("" : Message).
	KeyMessage string
	// Descriptors is the stored FileDescriptorSet, serialized.
	Descriptors []byte
	// KeyColumns are the primary key columns the message key fills, by
	// the key message's fields of their names (FORMAT UPSERT without
	// INCLUDE KEY).
	KeyColumns []string
	// valueID, keyID and keyDescriptors are what CREATE stored under
	// schema.registry (protobuf_registry.go): the ids of the value and key
	// schemas it read, and the key subject's FileDescriptorSet (the
	// value's is Descriptors).
	valueID, keyID int
	keyDescriptors []byte
}

// set parses one ENCODE PROTOBUF option or stored key; false when k is
// neither.
func (p *ProtobufOptions) set(k, v string) (bool, error) {
	var err error
	switch k {
	case OptProtoMessage:
		p.Message = v
	case OptSchemaLocation:
		p.Location = v
	case OptProtoKeyMessage:
		p.KeyMessage = v
	case optProtoDescriptors:
		p.Descriptors, err = base64.StdEncoding.DecodeString(v)
	case optProtoKeyColumns:
		err = json.Unmarshal([]byte(v), &p.KeyColumns)
	case optProtoValueID:
		p.valueID, err = strconv.Atoi(v)
	case optProtoKeyID:
		p.keyID, err = strconv.Atoi(v)
	case optProtoKeyDescriptors:
		p.keyDescriptors, err = base64.StdEncoding.DecodeString(v)
	default:
		return false, nil
	}
	if err != nil {
		return true, optionError(k, v, "An internal option: the stored Protobuf schema.")
	}
	return true, nil
}

// check checks the options of ENCODE encode; o's Avro options hold
// schema.registry, which ENCODE PROTOBUF takes instead of
// schema.location.
func (p *ProtobufOptions) check(encode string, o *Options) error {
	if encode != EncodeProtobuf {
		if p.Message != "" || p.Location != "" || p.KeyMessage != "" {
			return optionError(OptProtoMessage, p.Message, "message and schema.location are options of ENCODE PROTOBUF.")
		}
		return nil
	}
	switch {
	case p.Message == "":
		return optionError(OptProtoMessage, "", "ENCODE PROTOBUF needs message = 'package.Message'.")
	case len(o.Avro.Registry) > 0 && p.Location != "":
		return optionError(OptSchemaLocation, p.Location, "ENCODE PROTOBUF takes either schema.location or schema.registry, not both.")
	case len(o.Avro.Registry) > 0:
	case p.Location == "" && len(p.Descriptors) == 0:
		return optionError(OptSchemaLocation, "", "ENCODE PROTOBUF needs schema.location = 'file:///path/schema.pb' (a FileDescriptorSet).")
	}
	return nil
}

// stored returns the options that record p's stored schema.
func (p *ProtobufOptions) stored() map[string]string {
	out := map[string]string{optProtoDescriptors: encodeDescriptors(p.Descriptors)}
	if len(p.KeyColumns) > 0 {
		b, _ := json.Marshal(p.KeyColumns) // strings: cannot fail
		out[optProtoKeyColumns] = string(b)
	}
	return out
}

// encodeDescriptors is a serialized FileDescriptorSet as an option's
// value.
func encodeDescriptors(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// keyMessage is the message of an UPSERT table's Kafka keys.
func (p *ProtobufOptions) keyMessage() string {
	if p.KeyMessage != "" {
		return p.KeyMessage
	}
	return p.Message
}

// ResolveProtobufSource reads, at CREATE, the FileDescriptorSet at o's
// schema.location, finds the message and maps its fields to columns;
// for an UPSERT table keyed by columns (pk, the names of its primary
// key columns, not empty), it also checks that the key message has a
// field of each one's name and type. Errors: 58P01 (no such file, or
// the URL answers 404), 08001 (the URL does not answer), 22P02 (not a
// FileDescriptorSet), 42704 (no such message, with a hint naming those
// there are), 42804 (a key field of another type).
//
// Under schema.registry the schema is the latest of subject
// <topic>-value (resolveProtobufRegistry); errors as for ENCODE AVRO:
// 08001, 42704 (no subject), 28000.
func ResolveProtobufSource(ctx context.Context, o Options, pk []string) (SchemaSource, error) {
	if len(o.Avro.Registry) > 0 {
		return resolveProtobufRegistry(ctx, o, pk)
	}
	p := o.Protobuf
	b, err := readSchemaLocation(ctx, p.Location)
	if err != nil {
		return SchemaSource{}, err
	}
	s, err := parseProtobufSchema(b)
	if err != nil {
		return SchemaSource{}, err
	}
	md, err := s.message(p.Message)
	if err != nil {
		return SchemaSource{}, err
	}
	cols := ProtobufColumns(md)
	if len(pk) > 0 {
		km, err := s.message(p.keyMessage())
		if err != nil {
			return SchemaSource{}, err
		}
		if err := checkProtobufKey(km, pk, cols); err != nil {
			return SchemaSource{}, err
		}
		p.KeyColumns = pk
	}
	p.Descriptors = b
	return SchemaSource{Columns: cols, Stored: p.stored()}, nil
}

// checkProtobufKey checks that the key message has a field of each
// primary key column's name whose column type is the column's.
func checkProtobufKey(km protoreflect.MessageDescriptor, pk []string, cols []connector.Column) error {
	for _, name := range pk {
		f := km.Fields().ByName(protoreflect.Name(name))
		var col *connector.Column
		for i := range cols {
			if cols[i].Name == name {
				col = &cols[i]
			}
		}
		switch {
		case f == nil:
			e := pgerr.New(pgerr.UndefinedColumn, "the Protobuf key message %s has no field %q of the primary key", km.FullName(), name)
			e.Hint = "Under FORMAT UPSERT the message key (a message of key.message, or else of message) holds the primary key's fields by name; or key the table by INCLUDE KEY AS k, PRIMARY KEY (k)."
			return e
		case col != nil && protobufType(f).ID != col.Type.ID:
			return pgerr.New(pgerr.DatatypeMismatch, "the Protobuf key field %q is %s, the column %s", name, protobufType(f), col.Type)
		}
	}
	return nil
}

// readSchemaLocation reads the bytes at a file:// or http(s):// URL.
func readSchemaLocation(ctx context.Context, loc string) ([]byte, error) {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme == "" {
		return nil, optionError(OptSchemaLocation, loc, "A URL: 'file:///path/schema.pb' or 'https://host/schema.pb'.")
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		return readSchemaFile(u.Path)
	case "http", "https":
		return readSchemaURL(ctx, loc)
	}
	return nil, optionError(OptSchemaLocation, loc, "schema.location is a file:// or http(s):// URL.")
}

func readSchemaFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		code := pgerr.IOError
		if errors.Is(err, fs.ErrNotExist) {
			code = "58P01" // undefined_file
		}
		return nil, pgerr.New(code, "could not read the Protobuf schema file %q: %v", path, err)
	}
	defer f.Close()
	return readSchemaBody(f, path)
}

func readSchemaURL(ctx context.Context, loc string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, optionError(OptSchemaLocation, loc, "A URL: 'https://host/schema.pb'.")
	}
	resp, err := (&http.Client{Timeout: registryTimeout}).Do(req)
	if err != nil {
		return nil, pgerr.New(sqlstateConnection, "could not fetch the Protobuf schema at %s: %v", loc, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		code := pgerr.IOError
		if resp.StatusCode == http.StatusNotFound {
			code = "58P01"
		}
		return nil, pgerr.New(code, "could not fetch the Protobuf schema at %s: HTTP %s", loc, resp.Status)
	}
	return readSchemaBody(resp.Body, loc)
}

func readSchemaBody(r io.Reader, where string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSchemaSize+1))
	switch {
	case err != nil:
		return nil, pgerr.New(pgerr.IOError, "could not read the Protobuf schema at %s: %v", where, err)
	case len(b) > maxSchemaSize:
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "the Protobuf schema at %s is larger than %d MiB", where, maxSchemaSize>>20)
	}
	return b, nil
}
