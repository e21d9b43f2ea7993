package binder

import (
	"strings"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindKafka checks the options of a Kafka source or table and records its
// FORMAT, ENCODE and ENCODE (...) options and its INCLUDE columns among
// the connector options, which is where the planner's reader finds them.
// Whether the topic exists is checked when the statement runs (the engine
// asks the brokers), not here.
func (b *binder) bindKafka(s *sql.CreateTableStmt, ct *planner.CreateTable, conn map[string]string) error {
	for k, v := range ct.Connector { // the stored Avro or Protobuf schemas (withAvroColumns)
		conn[k] = v
	}
	if s.Format != "" {
		conn[kafka.OptFormat] = s.Format
	}
	if s.Encode != "" {
		conn[kafka.OptEncode] = s.Encode
	}
	for k, v := range s.EncodeOptions {
		conn[kafka.OptEncodePrefix+k] = v
	}
	if len(s.Includes) > 0 {
		incl := make([]kafka.Include, len(s.Includes))
		for i, d := range s.Includes {
			incl[i], _, _, _ = kafka.IncludeColumn(d.Kind, d.Header, d.TypeName) // checked by withIncludes
		}
		conn[kafka.OptInclude] = kafka.FormatIncludes(incl)
	}
	opts, err := kafka.ParseOptions(conn)
	if err != nil {
		return err
	}
	if opts.Upsert && len(opts.Avro.KeyColumns) == 0 && len(opts.Protobuf.KeyColumns) == 0 { // not keyed by Avro or Protobuf key fields (withAvroColumns, withProtobufColumns)
		if err := checkUpsert(s, ct, opts); err != nil {
			return err
		}
	}
	if opts.Debezium {
		if err := checkDebezium(s, ct, opts); err != nil { // bind_debezium.go
			return err
		}
	}
	cols := make([]connector.Column, len(ct.Columns))
	for i, c := range ct.Columns {
		cols[i] = connector.Column{Name: c.Name, Type: c.Type}
	}
	if _, err := kafka.NewDecoder(opts, cols); err != nil {
		return err
	}
	ct.Connector = conn
	return nil
}

// checkUpsert checks a FORMAT UPSERT relation as RisingWave does: a table
// (a source stores no rows to replace or delete), whose primary key is
// its INCLUDE KEY column alone: each message's key, as bytes, names the
// row its value replaces or its tombstone deletes.
func checkUpsert(s *sql.CreateTableStmt, ct *planner.CreateTable, opts kafka.Options) error {
	if s.Source {
		e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT UPSERT is not supported for a source")
		e.Hint = "A source stores no rows to update or delete: use CREATE TABLE ... FORMAT UPSERT ENCODE JSON."
		return e
	}
	key := -1
	for i, in := range opts.Include {
		if in.Kind == kafka.IncludeKey {
			key = len(ct.Columns) - len(opts.Include) + i
		}
	}
	hint := "Write INCLUDE KEY AS k after the columns and PRIMARY KEY (k) among them: the message key is the row's key."
	if key < 0 {
		e := pgerr.New(InvalidTableDefinition, "FORMAT UPSERT needs the message key as a column: INCLUDE KEY")
		e.Hint = hint
		return e
	}
	if len(ct.PK) != 1 || ct.PK[0] != key {
		e := pgerr.New(InvalidTableDefinition, "the primary key of a FORMAT UPSERT table must be its INCLUDE KEY column %q", ct.Columns[key].Name)
		if len(ct.PK) == 0 {
			e = pgerr.New(InvalidTableDefinition, "a FORMAT UPSERT table needs a primary key: its INCLUDE KEY column %q", ct.Columns[key].Name)
		}
		e.Hint = hint
		return e
	}
	return nil
}

// withIncludes returns s with a column definition added after its own for
// each INCLUDE item (named by its alias, else the connector's default
// name), so that the key and the constraints can name them. INCLUDE is for
// Kafka relations only.
func withIncludes(s *sql.CreateTableStmt) (*sql.CreateTableStmt, error) {
	if len(s.Includes) == 0 {
		return s, nil
	}
	if !kafka.IsKafka(s.With) {
		return nil, notSupported("INCLUDE without connector = 'kafka'")
	}
	out := *s
	out.Columns = append([]sql.ColumnDef(nil), s.Columns...)
	for _, d := range s.Includes {
		_, name, t, err := kafka.IncludeColumn(d.Kind, d.Header, d.TypeName)
		if err != nil {
			return nil, err
		}
		if d.Alias != "" {
			name = d.Alias
		}
		out.Columns = append(out.Columns, sql.ColumnDef{Name: name, TypeName: strings.ToLower(t.String())})
	}
	return &out, nil
}
