package binder

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// isProtobuf reports whether s is a Kafka relation with ENCODE PROTOBUF.
func isProtobuf(s *sql.CreateTableStmt) bool {
	return kafka.IsKafka(s.With) && strings.EqualFold(s.Encode, kafka.EncodeProtobuf)
}

// withProtobufColumns returns s with the columns of a Kafka relation
// with ENCODE PROTOBUF, which come from the message's fields, as in
// RisingWave: the statement gives no columns (at most PRIMARY KEY (...)
// naming some), and the FileDescriptorSet at schema.location, read once,
// here, gives them. The set is stored with the relation (the connector
// options returned, which bindKafka adds), so neither a restart nor a
// rebuild reads the file or the URL again.
//
// A FORMAT UPSERT table is keyed either by INCLUDE KEY AS k with PRIMARY
// KEY (k) (the key's bytes, as for ENCODE JSON; checkUpsert), or by
// PRIMARY KEY (cols) of the message's fields, which each Kafka key, a
// message of key.message (else of message), fills by name.
func (b *binder) withProtobufColumns(s *sql.CreateTableStmt) (*sql.CreateTableStmt, map[string]string, error) {
	if len(s.Columns) > 0 {
		e := pgerr.New(pgerr.FeatureNotSupported, "a column list is not allowed with ENCODE PROTOBUF")
		e.Hint = "Leave the columns out: they come from the message's fields. A table may still name its key: (PRIMARY KEY (col, ...))."
		return nil, nil, e
	}
	conn := kafkaStatementOptions(s)
	o, err := kafka.ParseOptions(conn)
	if err != nil {
		return nil, nil, err
	}
	var pk []string
	if o.Upsert && !s.Source && !upsertByIncludeKey(s) { // a source: checkUpsert refuses it
		if len(s.PrimaryKey) == 0 {
			e := pgerr.New(InvalidTableDefinition, "a FORMAT UPSERT ENCODE PROTOBUF table needs a primary key")
			e.Hint = "Write (PRIMARY KEY (col, ...)) naming fields of the message key (key.message, else message), or INCLUDE KEY AS k with (PRIMARY KEY (k))."
			return nil, nil, e
		}
		pk = s.PrimaryKey
	}
	ctx, cancel := context.WithTimeout(context.Background(), avroResolveTimeout)
	defer cancel()
	src, err := kafka.ResolveProtobufSource(ctx, o, pk)
	if err != nil {
		return nil, nil, err
	}
	return withSchemaColumns(s, src.Columns), src.Stored, nil
}
