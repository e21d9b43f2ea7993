package binder

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindCreateSink checks a sink's input (a table or materialized view for
// FROM, a query for AS) and its connector options, and binds its query:
// SELECT * FROM the relation for FROM. The connectors are Kafka and
// RisingWave's blackhole, which drops what it is given.
func (b *binder) bindCreateSink(s *sql.CreateSinkStmt) (*planner.CreateSink, error) {
	name, err := b.creationName(s.Name)
	if err != nil {
		return nil, err
	}
	text, query := s.QueryText, s.Query
	if s.From != "" {
		from, ok := b.lookupName(s.From)
		if !ok {
			err := pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s.From)
			return nil, err.WithPosition(s.FromPos)
		}
		switch from.Kind {
		case catalog.KindTable, catalog.KindMaterializedView:
		default:
			err := pgerr.New(WrongObjectType, "%q is not a table or materialized view", s.From)
			err.Detail = "A sink delivers the changes of a table, a materialized view or a query; " + s.From + " is " + withArticle(from.Kind) + "."
			return nil, err.WithPosition(s.FromPos)
		}
		text = "SELECT * FROM " + qualifiedIdent(from.Name)
		stmts, err := sql.NewParser().Parse(text)
		if err != nil {
			return nil, err
		}
		query = stmts[0].Node.(*sql.SelectStmt)
	}
	if query == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE SINK needs FROM a relation or AS a query")
	}
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = v
	}
	if connector.IsBlackhole(with) {
		if err := blackholeOptions(s, with); err != nil {
			return nil, err
		}
		return b.bindSinkQuery(s, name, text, query, with)
	}
	if !kafka.IsKafka(with) {
		e := pgerr.New(pgerr.FeatureNotSupported, "sink connector %q is not supported", with["connector"])
		e.Hint = "Use connector = 'kafka' or 'blackhole'."
		return nil, e
	}
	for _, k := range []string{kafka.OptFormat, kafka.OptEncode, kafka.OptSinkName} {
		if _, ok := with[k]; ok {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized Kafka sink option %q", k)
		}
	}
	if err := sinkTypeFormat(s, with); err != nil {
		return nil, err
	}
	if s.Format != "" {
		with[kafka.OptFormat], with[kafka.OptEncode] = strings.ToLower(s.Format), strings.ToLower(s.Encode)
	}
	for k := range with {
		if strings.HasPrefix(k, kafka.ReservedPrefix) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized Kafka sink option %q", k)
		}
	}
	if len(s.EncodeOptions) > 0 && !strings.EqualFold(s.Encode, kafka.EncodeAvro) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ENCODE %s options are not supported for a Kafka sink", upper(s.Encode))
	}
	for k, v := range s.EncodeOptions { // ENCODE AVRO (schema.registry = ...)
		with[kafka.OptEncodePrefix+k] = v
	}
	if _, err := kafka.ParseSinkOptions(with); err != nil {
		return nil, err
	}
	return b.bindSinkQuery(s, name, text, query, with)
}

// bindSinkQuery binds a sink's query, as a view's.
func (b *binder) bindSinkQuery(s *sql.CreateSinkStmt, name, text string, query *sql.SelectStmt, with map[string]string) (*planner.CreateSink, error) {
	b.inView = true
	q, err := b.bindQuery(query)
	b.inView = false
	if err != nil {
		return nil, err
	}
	return &planner.CreateSink{Name: name, IfNotExists: s.IfNotExists, Query: q, Definition: text, With: with,
		SearchPath: b.searchPath(), TimeZone: zoneSetting(b.zone)}, nil
}

// qualifiedIdent quotes a stored relation name (schema.name) for SQL.
func qualifiedIdent(name string) string {
	schema, own := catalog.SplitName(name)
	if schema == catalog.PublicSchema {
		return expr.QuoteIdent(own)
	}
	return expr.QuoteIdent(schema) + "." + expr.QuoteIdent(own)
}

// sinkTypeFormat reads RisingWave's type = 'append-only' | 'upsert' |
// 'debezium' option of a Kafka sink as FORMAT PLAIN | UPSERT | DEBEZIUM
// ENCODE JSON (it cannot go with a FORMAT clause).
func sinkTypeFormat(s *sql.CreateSinkStmt, with map[string]string) error {
	v, ok := with[connector.OptSinkType]
	if !ok {
		return nil
	}
	delete(with, connector.OptSinkType)
	t := strings.ToLower(strings.TrimSpace(v))
	if s.Format != "" {
		return pgerr.New(pgerr.InvalidParameterValue, "sink option %q cannot be given with a FORMAT clause", connector.OptSinkType)
	}
	format := map[string]string{connector.SinkAppendOnly: kafka.SinkPlain, connector.SinkUpsert: kafka.SinkUpsert,
		connector.SinkDebezium: kafka.SinkDebezium}[t]
	if format == "" {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for connector option %q: %q", connector.OptSinkType, v)
		e.Hint = "type is 'append-only', 'upsert' or 'debezium'."
		return e
	}
	with[kafka.OptFormat], with[kafka.OptEncode] = format, "json"
	return nil
}

// blackholeOptions checks a blackhole sink's options, a FORMAT clause
// read as its type (FORMAT PLAIN: 'append-only'), any ENCODE.
func blackholeOptions(s *sql.CreateSinkStmt, with map[string]string) error {
	if s.Format != "" {
		if _, ok := with[connector.OptSinkType]; ok {
			return pgerr.New(pgerr.InvalidParameterValue, "sink option %q cannot be given with a FORMAT clause", connector.OptSinkType)
		}
		t := map[string]string{kafka.SinkPlain: connector.SinkAppendOnly, kafka.SinkUpsert: connector.SinkUpsert,
			kafka.SinkDebezium: connector.SinkDebezium}[strings.ToLower(s.Format)]
		if t == "" {
			return pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for a sink", upper(s.Format))
		}
		with[connector.OptSinkType] = t
	}
	_, err := connector.ParseBlackholeOptions(with)
	return err
}
