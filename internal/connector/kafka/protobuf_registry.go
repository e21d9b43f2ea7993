package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// ENCODE PROTOBUF with schema.registry stores, besides the value's
// FileDescriptorSet (optProtoDescriptors), the ids of the schemas it was
// created with and, for an UPSERT table keyed by columns, the key
// subject's set.
const (
	optProtoValueID        = optProtoPrefix + "value.id"
	optProtoKeyID          = optProtoPrefix + "key.id"
	optProtoKeyDescriptors = optProtoPrefix + "key.descriptors"
	// maxReferences bounds the files one registry schema imports,
	// transitively.
	maxReferences = 256
)

// protoMainFile is the name the .proto text of registry schema id is
// compiled under: its references are imported by their own names, the
// schema itself by none, so any name they do not use will do; this one
// is fixed so that the stored set's main file is found again.
func protoMainFile(id int) string { return "streamdb-registry/schema-" + strconv.Itoa(id) + ".proto" }

// compileRegistryProtobuf compiles a registry's PROTOBUF schema: its
// .proto text, and the texts of its references, fetched from the
// registry (each a subject and version, whose own references are
// fetched in turn), with google/protobuf/*.proto from protocompile's
// standard imports. It returns the FileDescriptorSet of the schema and
// everything it imports, serialized, dependencies first, the schema's
// file last (protoMainFile(s.ID)). A registry error is returned as is;
// a schema that is not PROTOBUF or does not compile is 22P02.
func compileRegistryProtobuf(ctx context.Context, reg *Registry, s RegistrySchemaInfo) ([]byte, error) {
	if !strings.EqualFold(s.SchemaType, "PROTOBUF") {
		t := s.SchemaType
		if t == "" {
			t = "AVRO"
		}
		return nil, pgerr.New(pgerr.InvalidTextRep, "schema id %d of the schema registry is a %s schema, not Protobuf", s.ID, t)
	}
	main := protoMainFile(s.ID)
	sources := map[string]string{main: s.Schema}
	todo := append([]RegistryReference(nil), s.References...)
	for len(todo) > 0 {
		ref := todo[0]
		todo = todo[1:]
		if _, ok := sources[ref.Name]; ok {
			continue
		}
		if len(sources) > maxReferences {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "schema id %d references more than %d schemas", s.ID, maxReferences)
		}
		r, err := reg.Version(ctx, ref.Subject, ref.Version)
		if err != nil {
			return nil, fmt.Errorf("reference %q (subject %q version %d): %w", ref.Name, ref.Subject, ref.Version, err)
		}
		sources[ref.Name] = r.Schema
		todo = append(todo, r.References...)
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(sources)})}
	files, err := c.Compile(ctx, main)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidTextRep, "schema id %d of the schema registry does not compile as Protobuf: %v", s.ID, err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			add(imps.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(files[0])
	return proto.Marshal(set)
}

// registryProtobufMessage returns the message named name in the main
// file of registry schema id in s, or, when name is "", the file's first
// message (Confluent's default: message index [0]).
func registryProtobufMessage(s *protobufSchema, id int, name string) (protoreflect.MessageDescriptor, error) {
	if name != "" {
		return s.message(name)
	}
	f, err := s.files.FindFileByPath(protoMainFile(id))
	if err != nil || f.Messages().Len() == 0 {
		return nil, pgerr.New(pgerr.UndefinedObject, "schema id %d of the schema registry defines no message", id)
	}
	return f.Messages().Get(0), nil
}

// resolveProtobufRegistry is ResolveProtobufSource under
// schema.registry: the latest schema of subject <topic>-value, compiled
// with its references, gives the columns (message's fields); for an
// UPSERT table keyed by columns, subject <topic>-key's latest schema
// gives the key message (key.message, else its first message). Both
// sets and their ids are stored.
func resolveProtobufRegistry(ctx context.Context, o Options, pk []string) (SchemaSource, error) {
	p, a := o.Protobuf, o.Avro
	reg := a.registry()
	fetch := func(subject string) (RegistrySchemaInfo, []byte, *protobufSchema, error) {
		info, err := reg.LatestInfo(ctx, subject)
		if err != nil {
			return info, nil, nil, protobufRegistryPGError(err, subject, a.Registry)
		}
		set, err := compileRegistryProtobuf(ctx, reg, info)
		if err != nil {
			return info, nil, nil, protobufRegistryPGError(err, subject, a.Registry)
		}
		s, err := parseProtobufSchema(set)
		return info, set, s, err
	}
	info, set, s, err := fetch(valueSubject(o.Topic))
	if err != nil {
		return SchemaSource{}, err
	}
	md, err := s.message(p.Message)
	if err != nil {
		return SchemaSource{}, err
	}
	cols := ProtobufColumns(md)
	stored := map[string]string{}
	if len(pk) > 0 {
		kinfo, kset, ks, err := fetch(keySubject(o.Topic))
		if err != nil {
			return SchemaSource{}, err
		}
		km, err := registryProtobufMessage(ks, kinfo.ID, p.KeyMessage)
		if err != nil {
			return SchemaSource{}, err
		}
		if err := checkProtobufKey(km, pk, cols); err != nil {
			return SchemaSource{}, err
		}
		p.KeyColumns = pk
		stored[optProtoKeyID] = strconv.Itoa(kinfo.ID)
		stored[optProtoKeyDescriptors] = encodeDescriptors(kset)
	}
	p.Descriptors = set
	for k, v := range p.stored() {
		stored[k] = v
	}
	stored[optProtoValueID] = strconv.Itoa(info.ID)
	return SchemaSource{Columns: cols, Stored: stored}, nil
}

// protobufRegistryPGError is registryPGError with ENCODE PROTOBUF's
// hints; a reference the registry lacks is 42704 too.
func protobufRegistryPGError(err error, subject string, urls []string) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && !errors.Is(err, ErrRegistryUnreachable) && !errors.Is(err, ErrRegistryNotFound) {
		return err
	}
	e := registryPGError(err, subject, urls)
	if errors.As(e, &pe) && pe.Hint != "" {
		pe.Hint = strings.ReplaceAll(pe.Hint, "ENCODE AVRO", "ENCODE PROTOBUF")
		if errors.Is(err, ErrRegistryNotFound) && !strings.Contains(err.Error(), "reference") {
			return pe
		}
		if errors.Is(err, ErrRegistryNotFound) {
			pe.Message = fmt.Sprintf("a reference of subject %q not found in the schema registry: %v", subject, err)
		}
	}
	return e
}

// pbView is how messages of one schema id and message index path read
// into a resolver's columns: the message, and the field of each column's
// name (nil: the message has none, NULL).
type pbView struct {
	schema *protobufSchema
	md     protoreflect.MessageDescriptor
	fields []protoreflect.FieldDescriptor
}

// pbResolver resolves messages of one subject in Confluent's Protobuf
// wire format (magic byte 0, the writer schema's id as 4 bytes
// big-endian, the message-index array, the payload) to the message that
// wrote them, and maps that message's fields by name to its columns.
// The stored id reads with the set stored at CREATE; another id is
// fetched from the registry once (with its references), compiled and
// cached, as avroResolver does for Avro. An id the registry does not
// know, a schema that does not compile, an index that names no message
// or a field of another type than its column is an error of each such
// message (cached too). While the registry does not answer it retries,
// with backoff, until it does or the reader stops: a message is never
// skipped because the registry was down.
//
// It is used by the Reader's goroutine only.
type pbResolver struct {
	reg     *Registry
	subject string
	names   []string
	types   []types.Type
	schemas map[int]*protobufSchema
	bad     map[int]error
	views   map[string]*pbView
	badView map[string]error
	ctx     context.Context // nil before start: no retries
	state   func(string)
}

func newPBResolver(reg *Registry, subject string, id int, set []byte, names []string, tys []types.Type) (*pbResolver, error) {
	s, err := parseProtobufSchema(set)
	if err != nil {
		return nil, err
	}
	return &pbResolver{reg: reg, subject: subject, names: names, types: tys,
		schemas: map[int]*protobufSchema{id: s}, bad: map[int]error{},
		views: map[string]*pbView{}, badView: map[string]error{}}, nil
}

// parseProtobufFraming splits a message in Confluent's Protobuf wire
// format into its schema id, message indexes and payload.
func parseProtobufFraming(msg []byte) (int, []int, []byte, error) {
	if len(msg) < wireHeader || msg[0] != wireMagic {
		return 0, nil, nil, errors.New("kafka: a Protobuf message not in the Confluent wire format (magic byte 0, 4-byte schema id, message indexes)")
	}
	id := int(binary.BigEndian.Uint32(msg[1:wireHeader]))
	b := msg[wireHeader:]
	n, k := binary.Varint(b)
	if k <= 0 || n < 0 || n > int64(len(b)) {
		return 0, nil, nil, errors.New("kafka: a Protobuf message with a bad message-index array in its Confluent framing")
	}
	b = b[k:]
	if n == 0 {
		return id, []int{0}, b, nil
	}
	idx := make([]int, n)
	for i := range idx {
		v, k := binary.Varint(b)
		if k <= 0 || v < 0 || v > 1<<20 {
			return 0, nil, nil, errors.New("kafka: a Protobuf message with a bad message-index array in its Confluent framing")
		}
		idx[i], b = int(v), b[k:]
	}
	return id, idx, b, nil
}

// resolve returns the view of msg's writer message and its payload.
func (r *pbResolver) resolve(msg []byte) (*pbView, []byte, error) {
	id, idx, payload, err := parseProtobufFraming(msg)
	if err != nil {
		return nil, nil, err
	}
	key := fmt.Sprint(id, idx)
	if v, ok := r.views[key]; ok {
		return v, payload, nil
	}
	if err, ok := r.badView[key]; ok {
		return nil, nil, err
	}
	s, err := r.schema(id)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.view(s, id, idx)
	if err != nil {
		r.badView[key] = err
		return nil, nil, err
	}
	r.views[key] = v
	return v, payload, nil
}

// view resolves idx in schema id's main file and maps the message's
// fields to the columns by name.
func (r *pbResolver) view(s *protobufSchema, id int, idx []int) (*pbView, error) {
	f, err := s.files.FindFileByPath(protoMainFile(id))
	if err != nil {
		return nil, fmt.Errorf("kafka: Protobuf schema id %d: %w", id, err)
	}
	var md protoreflect.MessageDescriptor
	ms := f.Messages()
	for _, i := range idx {
		if i >= ms.Len() {
			return nil, fmt.Errorf("kafka: Protobuf message indexes %v name no message of schema id %d", idx, id)
		}
		md = ms.Get(i)
		ms = md.Messages()
	}
	v := &pbView{schema: s, md: md, fields: make([]protoreflect.FieldDescriptor, len(r.names))}
	for i, name := range r.names {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			continue
		}
		if t := protobufType(fd); t.ID != r.types[i].ID || t.Elem != r.types[i].Elem {
			return nil, fmt.Errorf("kafka: field %q of Protobuf %s (schema id %d) is %s, its column %s", name, md.FullName(), id, t, r.types[i])
		}
		v.fields[i] = fd
	}
	return v, nil
}

// schema returns the compiled schema of id, fetching it once.
func (r *pbResolver) schema(id int) (*protobufSchema, error) {
	if s, ok := r.schemas[id]; ok {
		return s, nil
	}
	if err, ok := r.bad[id]; ok {
		return nil, err
	}
	set, err := r.fetch(id)
	if err != nil {
		if errors.Is(err, ErrRegistryNotFound) {
			err = fmt.Errorf("kafka: unknown Protobuf schema id %d: the schema registry does not have it (%v)", id, err)
			r.bad[id] = err
			return nil, err
		}
		var pe *pgerr.Error
		if errors.As(err, &pe) { // not Protobuf, does not compile
			r.bad[id] = err
		}
		return nil, err
	}
	s, err := parseProtobufSchema(set)
	if err != nil {
		r.bad[id] = err
		return nil, err
	}
	r.schemas[id] = s
	return s, nil
}

// fetch fetches and compiles id's schema, retrying while the registry
// does not answer (once started).
func (r *pbResolver) fetch(id int) ([]byte, error) {
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	backoff := 200 * time.Millisecond
	for {
		info, err := r.reg.InfoByID(ctx, id)
		var set []byte
		if err == nil {
			set, err = compileRegistryProtobuf(ctx, r.reg, info)
		}
		if err == nil || !errors.Is(err, ErrRegistryUnreachable) || r.ctx == nil || ctx.Err() != nil {
			if err == nil && r.state != nil && r.ctx != nil {
				r.state("running")
			}
			return set, err
		}
		if r.state != nil {
			r.state("retrying: " + err.Error())
		}
		sleep(ctx, backoff)
		backoff = min(2*backoff, 5*time.Second)
	}
}

// newProtobufRegistryDecoder is newProtobufDecoder under schema.registry.
func newProtobufRegistryDecoder(o Options, cols []connector.Column) (Decoder, error) {
	p := o.Protobuf
	if len(p.Descriptors) == 0 || p.valueID == 0 {
		return nil, optionError(optProtoDescriptors, "", "An internal option: CREATE stores the Protobuf schema.")
	}
	reg := o.Avro.registry()
	names := make([]string, len(cols))
	tys := make([]types.Type, len(cols))
	byName := map[string]int{}
	for i, c := range cols {
		names[i], tys[i] = c.Name, c.Type
		byName[c.Name] = i
	}
	value, err := newPBResolver(reg, valueSubject(o.Topic), p.valueID, p.Descriptors, names, tys)
	if err != nil {
		return nil, err
	}
	md, err := value.schemas[p.valueID].message(p.Message)
	if err != nil {
		return nil, err
	}
	d := &protobufDecoder{schema: value.schemas[p.valueID], msg: md, cols: cols, value: value}
	if len(p.KeyColumns) == 0 {
		return d, nil
	}
	var kt []types.Type
	for _, name := range p.KeyColumns {
		i, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("kafka: key column %q is not a column", name)
		}
		d.keyCols, kt = append(d.keyCols, i), append(kt, cols[i].Type)
	}
	if d.keyReg, err = newPBResolver(reg, keySubject(o.Topic), p.keyID, p.keyDescriptors, p.KeyColumns, kt); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *protobufDecoder) start(ctx context.Context, state func(string)) {
	for _, r := range []*pbResolver{d.value, d.keyReg} {
		if r != nil {
			r.ctx, r.state = ctx, state
		}
	}
}

// decodeRegistryKey is DecodeKey under schema.registry: the key's
// message, whatever schema of <topic>-key wrote it, fills the key
// columns from the fields of their names.
func (d *protobufDecoder) decodeRegistryKey(key []byte, row []types.Datum) error {
	v, payload, err := d.keyReg.resolve(key)
	if err != nil {
		return fmt.Errorf("the message key: %w", err)
	}
	m, err := parseProtobuf(v.schema, payload, v.md)
	if err != nil {
		return fmt.Errorf("the message key: %w", err)
	}
	for k, f := range v.fields {
		if f == nil {
			return fmt.Errorf("the message key %s has no field %q", v.md.FullName(), d.keyReg.names[k])
		}
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
