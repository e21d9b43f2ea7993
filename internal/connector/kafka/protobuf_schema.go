package kafka

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/timestamppb" // registers google/protobuf/timestamp.proto (protobufFiles)

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// timestampName is the well-known type read as a timestamptz column.
const timestampName protoreflect.FullName = "google.protobuf.Timestamp"

// protobufSchema is a parsed FileDescriptorSet: its files and the types
// they define (which resolve google.protobuf.Any and extensions when
// messages are rendered as JSON).
type protobufSchema struct {
	files *protoregistry.Files
	types *dynamicpb.Types
}

// parseProtobufSchema parses a serialized FileDescriptorSet (protoc
// --include_imports --descriptor_set_out). An import the set lacks is
// taken from the well-known files linked into streamdb (Timestamp), so a
// set written without --include_imports still loads when that is all
// it lacks. A set that does not parse, or whose files do not link, is
// 22P02.
func parseProtobufSchema(b []byte) (*protobufSchema, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, badDescriptorSet(err)
	}
	if len(set.File) == 0 {
		return nil, badDescriptorSet(fmt.Errorf("it holds no files"))
	}
	addWellKnownImports(&set)
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, badDescriptorSet(err)
	}
	return &protobufSchema{files: files, types: dynamicpb.NewTypes(files)}, nil
}

func badDescriptorSet(err error) error {
	e := pgerr.New(pgerr.InvalidTextRep, "the Protobuf schema is not a valid FileDescriptorSet: %v", err)
	e.Hint = "schema.location names a file that protoc writes: protoc --include_imports --descriptor_set_out=schema.pb file.proto."
	return e
}

// addWellKnownImports appends to set the imports it names but lacks that
// are linked into streamdb (protoregistry.GlobalFiles), before the files
// that import them.
func addWellKnownImports(set *descriptorpb.FileDescriptorSet) {
	have := map[string]bool{}
	for _, f := range set.File {
		have[f.GetName()] = true
	}
	var add []*descriptorpb.FileDescriptorProto
	for _, f := range set.File {
		for _, dep := range f.Dependency {
			if have[dep] {
				continue
			}
			if fd, err := protoregistry.GlobalFiles.FindFileByPath(dep); err == nil {
				add = append(add, protodesc.ToFileDescriptorProto(fd))
				have[dep] = true
			}
		}
	}
	set.File = append(add, set.File...)
}

// message returns the message named name (a full name, "pkg.Msg"). One
// the set does not define is 42704, with a hint naming those it does.
func (s *protobufSchema) message(name string) (protoreflect.MessageDescriptor, error) {
	d, err := s.files.FindDescriptorByName(protoreflect.FullName(strings.TrimPrefix(name, ".")))
	if md, ok := d.(protoreflect.MessageDescriptor); err == nil && ok {
		return md, nil
	}
	e := pgerr.New(pgerr.UndefinedObject, "Protobuf message %q not found in the schema", name)
	names := s.messageNames()
	const most = 20
	if len(names) > most {
		names = append(names[:most], fmt.Sprintf("... (%d more)", len(names)-most))
	}
	e.Hint = "message = '...' names a message by its full name (package.Message). The schema defines: " + strings.Join(names, ", ") + "."
	return nil, e
}

// messageNames lists the full names of the messages the set defines,
// nested ones included, google.protobuf's left out, sorted.
func (s *protobufSchema) messageNames() []string {
	var out []string
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			if !m.IsMapEntry() {
				out = append(out, string(m.FullName()))
			}
			walk(m.Messages())
		}
	}
	s.files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if f.Package() != "google.protobuf" {
			walk(f.Messages())
		}
		return true
	})
	sort.Strings(out)
	return out
}

// ProtobufColumns maps a message's fields to columns, in field order, as
// RisingWave's table maps Protobuf types (protobufType).
func ProtobufColumns(md protoreflect.MessageDescriptor) []connector.Column {
	fields := md.Fields()
	cols := make([]connector.Column, fields.Len())
	for i := range cols {
		f := fields.Get(i)
		cols[i] = connector.Column{Name: string(f.Name()), Type: protobufType(f)}
	}
	return cols
}

// protobufType is the column type of a field:
//
//	int32, sint32, sfixed32 -> integer; int64, sint64, sfixed64,
//	uint32, fixed32 -> bigint; uint64, fixed64 -> numeric; float ->
//	real; double -> double precision; bool -> boolean; string and enum
//	(the value's name) -> varchar; bytes -> bytea;
//	google.protobuf.Timestamp -> timestamptz; repeated T -> T[] for the
//	scalar T above but bytes; other messages, maps and other repeated
//	fields -> jsonb (streamdb has no struct type).
//
// Every field has a column type.
func protobufType(f protoreflect.FieldDescriptor) types.Type {
	if f.IsMap() {
		return types.TJSONB
	}
	t := protobufScalarType(f)
	if !f.IsList() {
		return t
	}
	switch t.ID {
	case types.IDJSONB, types.IDBytea, types.IDTimestampTZ:
		return types.TJSONB
	}
	return types.ArrayOf(t.ID)
}

// protobufScalarType is the column type of one value of f's kind.
func protobufScalarType(f protoreflect.FieldDescriptor) types.Type {
	switch f.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return types.TInt32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return types.TInt64
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return types.TNumeric
	case protoreflect.FloatKind:
		return types.TFloat32
	case protoreflect.DoubleKind:
		return types.TFloat64
	case protoreflect.BoolKind:
		return types.TBool
	case protoreflect.StringKind, protoreflect.EnumKind:
		return types.TVarchar
	case protoreflect.BytesKind:
		return types.TBytea
	}
	if f.Message() != nil && f.Message().FullName() == timestampName {
		return types.TTimestampTZ
	}
	return types.TJSONB // a message or a group
}
