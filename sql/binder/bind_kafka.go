package binder

import (
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindKafka checks the options of a Kafka source or table and records its
// FORMAT, ENCODE and ENCODE (...) options among the connector options,
// which is where the planner's reader finds them. Whether the topic
// exists is checked when the statement runs (the engine asks the
// brokers), not here.
func (b *binder) bindKafka(s *sql.CreateTableStmt, ct *planner.CreateTable, conn map[string]string) error {
	if s.Format != "" {
		conn[kafka.OptFormat] = s.Format
	}
	if s.Encode != "" {
		conn[kafka.OptEncode] = s.Encode
	}
	for k, v := range s.EncodeOptions {
		conn[kafka.OptEncodePrefix+k] = v
	}
	opts, err := kafka.ParseOptions(conn)
	if err != nil {
		return err
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
