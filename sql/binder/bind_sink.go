package binder

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindCreateSink checks a sink's input (a table or materialized view for
// FROM, a query for AS) and its connector options, and binds its query:
// SELECT * FROM the relation for FROM. Only the Kafka connector is
// known.
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
	if !kafka.IsKafka(with) {
		e := pgerr.New(pgerr.FeatureNotSupported, "sink connector %q is not supported", with["connector"])
		e.Hint = "Use connector = 'kafka'."
		return nil, e
	}
	for _, k := range []string{kafka.OptFormat, kafka.OptEncode, kafka.OptSinkName} {
		if _, ok := with[k]; ok {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized Kafka sink option %q", k)
		}
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
