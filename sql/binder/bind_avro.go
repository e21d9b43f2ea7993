package binder

import (
	"context"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// avroResolveTimeout bounds the schema registry requests of one CREATE.
const avroResolveTimeout = 15 * time.Second

// withAvroColumns returns s with the columns of a Kafka relation with
// ENCODE AVRO, which come from the schema registry, as in RisingWave:
// the statement gives no columns (at most PRIMARY KEY (...) naming
// some), and the latest schema of subject <topic>-value gives them,
// once, here; the schema is stored with the relation (the connector
// options returned, which bindKafka adds), so neither a restart nor a
// rebuild asks the registry for it again. A FORMAT UPSERT table keyed by
// columns also takes subject <topic>-key's schema, whose fields fill its
// key columns. Other statements are returned as they are, but a table
// without a column list (which only ENCODE AVRO may omit).
func (b *binder) withAvroColumns(s *sql.CreateTableStmt) (*sql.CreateTableStmt, map[string]string, error) {
	if isProtobuf(s) {
		return b.withProtobufColumns(s) // bind_protobuf.go
	}
	avro := kafka.IsKafka(s.With) && strings.EqualFold(s.Encode, kafka.EncodeAvro)
	switch {
	case !avro && len(s.Columns) == 0:
		e := pgerr.New(pgerr.SyntaxError, "CREATE %s needs a column list", tableWord(s))
		e.Hint = "Only a Kafka relation with ENCODE AVRO or PROTOBUF takes its columns from its schema."
		return nil, nil, e
	case !avro:
		return s, nil, nil
	case len(s.Columns) > 0:
		e := pgerr.New(pgerr.FeatureNotSupported, "a column list is not allowed with ENCODE AVRO")
		e.Hint = "Leave the columns out: they come from the schema registry. A table may still name its key: (PRIMARY KEY (col, ...))."
		return nil, nil, e
	}
	conn := kafkaStatementOptions(s)
	o, err := kafka.ParseOptions(conn)
	if err != nil {
		return nil, nil, err
	}
	var pk []string
	if o.Upsert && !upsertByIncludeKey(s) {
		if len(s.PrimaryKey) == 0 && !s.Source {
			e := pgerr.New(InvalidTableDefinition, "a FORMAT UPSERT ENCODE AVRO table needs a primary key")
			e.Hint = "Write (PRIMARY KEY (col, ...)) naming the fields of the message key (subject <topic>-key)."
			return nil, nil, e
		}
		pk = s.PrimaryKey
	}
	ctx, cancel := context.WithTimeout(context.Background(), avroResolveTimeout)
	defer cancel()
	src, err := kafka.ResolveAvroSource(ctx, o, pk)
	if err != nil {
		return nil, nil, err
	}
	return withSchemaColumns(s, src.Columns), src.Stored, nil
}

// upsertByIncludeKey reports whether s keys its rows by the message key's
// bytes: INCLUDE KEY, the form of FORMAT UPSERT ENCODE JSON (checkUpsert).
func upsertByIncludeKey(s *sql.CreateTableStmt) bool {
	for _, in := range s.Includes {
		if strings.EqualFold(in.Kind, kafka.IncludeKey) {
			return true
		}
	}
	return false
}

func tableWord(s *sql.CreateTableStmt) string {
	if s.Source {
		return "SOURCE"
	}
	return "TABLE"
}

// kafkaStatementOptions returns the connector options of a Kafka CREATE
// statement as kafka.ParseOptions takes them: its FORMAT and ENCODE, its
// WITH options that configure the connector, and its ENCODE options
// under kafka.OptEncodePrefix.
func kafkaStatementOptions(s *sql.CreateTableStmt) map[string]string {
	conn := map[string]string{kafka.OptFormat: s.Format, kafka.OptEncode: s.Encode}
	for k, v := range s.With {
		if connector.IsConnectorOption(k) {
			conn[k] = v
		}
	}
	for k, v := range s.EncodeOptions {
		conn[kafka.OptEncodePrefix+k] = v
	}
	return conn
}

// withSchemaColumns returns s with the columns a schema gave (ENCODE AVRO
// or PROTOBUF: the statement names none).
func withSchemaColumns(s *sql.CreateTableStmt, cols []connector.Column) *sql.CreateTableStmt {
	out := *s
	out.Columns = make([]sql.ColumnDef, len(cols))
	for i, c := range cols {
		out.Columns[i] = sql.ColumnDef{Name: c.Name, TypeName: strings.ToLower(c.Type.String())}
	}
	return &out
}
