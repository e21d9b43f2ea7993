// Package write is streamdb's write path: INSERT, UPDATE, DELETE and COPY
// FROM into tables, and the DML rate limit of each table.
//
// A statement locks its table (Table: the lock outlives graph rebuilds),
// pins a snapshot of committed state, and stages its changes: rows in
// memory up to a limit and then in a temporary file (copy_stage.go),
// primary keys in sorted runs merged at the end (copy_keys.go), so a
// 10M-row COPY or UPDATE streams instead of being held. Key uniqueness is
// checked on the sorted keys against the snapshot (bulk.go); the error
// reported is the first bad row's in input order, as PostgreSQL's
// row-by-row checks give. Only then does the statement wait for its
// table's Limiter (never holding the source, so barriers flow on), take
// the table's stream source, send every chunk into one epoch and wait for
// that epoch's checkpoint: when a statement returns, its changes are
// durable and visible in every view, or none of them is (a statement that
// fails after sending part of its changes aborts the epoch). A large
// insert into a table whose source ingests sends its rows as an sstable
// written here, not as chunks.
//
// Each row written first gets its generated columns, then is checked
// for NOT NULL and the table's CHECK constraints (row_rules.go), and
// against its UNIQUE constraints: in the statement's own rows and, in
// the snapshot, in each constraint's unique index (unique.go). A table
// whose constraint's index is not created refuses writes.
//
// The package sees the engine only through the Engine interface: the
// store, the coordinator, a table's write state and current source, a
// batch reader over a snapshot, and hidden row ids.
package write
