package engine

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
)

// readsSplits reports whether a connector reads splits (Kafka's
// partitions): its source then runs as many actors as its parallelism,
// each reading the splits it owns (planner.buildSplitJob), and ALTER
// SOURCE ... SET PARALLELISM rescales it as ALTER TABLE does a table,
// the splits moving between actors with their committed offsets.
func readsSplits(conn map[string]string) bool {
	return conn != nil && kafka.IsKafka(conn)
}

// checkSourceParallelism refuses ALTER SOURCE name SET PARALLELISM on
// anything but a Kafka source (0A000, as before sources could rescale:
// a generator reads its connector as one stream).
func (db *DB) checkSourceParallelism(a *sql.AlterStmt) error {
	rel, ok := db.Relation(a.Name)
	if !ok || rel.ID == 0 {
		return pgerr.New(pgerr.UndefinedTable, "source %q does not exist", a.Name)
	}
	if rel.Kind == catalog.KindSource && readsSplits(rel.Connector) {
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported,
		"%q does not read its connector as splits: SET PARALLELISM applies to Kafka sources, tables and materialized views", a.Name)
}
