package binder

import (
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// checkDebezium checks a FORMAT DEBEZIUM relation as RisingWave does: a
// table (a source stores no rows for an update or a delete to change)
// with a primary key of the payload's columns, which names the row each
// change event replaces or deletes (see package kafka's debezium.go).
func checkDebezium(s *sql.CreateTableStmt, ct *planner.CreateTable, opts kafka.Options) error {
	const hint = "Use CREATE TABLE t (cols..., PRIMARY KEY (k)) WITH (connector = 'kafka', ...) FORMAT DEBEZIUM ENCODE JSON: the key names the row each change replaces or deletes."
	if s.Source {
		e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT DEBEZIUM is not supported for a source")
		e.Hint = hint
		return e
	}
	if len(ct.PK) == 0 {
		e := pgerr.New(InvalidTableDefinition, "a FORMAT DEBEZIUM table needs a primary key")
		e.Hint = hint
		return e
	}
	payload := len(ct.Columns) - len(opts.Include)
	for _, c := range ct.PK {
		if c >= payload {
			e := pgerr.New(InvalidTableDefinition, "the primary key of a FORMAT DEBEZIUM table cannot hold the INCLUDE column %q", ct.Columns[c].Name)
			e.Hint = "The key is the database row's: columns of the change events' before and after images."
			return e
		}
	}
	return nil
}
