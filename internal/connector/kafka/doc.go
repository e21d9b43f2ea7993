// Package kafka is streamdb's Kafka source connector (issue 23, first
// increment: sources in, exactly once), over franz-go's kgo client:
//
//	CREATE SOURCE s (cols...) WITH (connector = 'kafka', topic = 't',
//	    properties.bootstrap.server = 'host:port',
//	    scan.startup.mode = 'earliest' | 'latest' | 'timestamp',
//	    scan.startup.timestamp.millis = ...)
//	FORMAT PLAIN ENCODE JSON | CSV [(without_header = 'true', delimiter = ';')]
//
// and CREATE TABLE ... WITH (connector = 'kafka', ...), which keeps the
// rows (with a primary key, a later message with the same key replaces
// the row; without one, each message is a row keyed by where it is).
//
// # Splits, offsets and epochs
//
// Each partition of the topic is a split. A source's position is one row
// per split in its state table, (partition, next offset), the layout of
// every connector's position table (exec/stream.ConnectorStateTable),
// plus two counters (rows emitted, messages skipped) under splits -1 and
// -2. The source executor (exec/stream.SplitSource) advances a split's
// next offset past each record it takes, row or not, and at every
// barrier writes the offsets that moved into the epoch's batch: the rows
// emitted in an epoch and the offsets after them commit in one Pebble
// batch, or neither does. After a restart, a recovery or a failure, the
// job is rebuilt, the executor loads the committed offsets and starts a
// new Reader there (kgo's client is seeked with kgo.NewOffset().At), so
// the rows of an epoch that did not commit are read again, and no row is
// lost or read twice (I3, I6). A table without a primary key keys each
// row by exec/stream.SplitRowID(partition, offset), so a message read
// again gets the id it had.
//
// A partition with no committed offset starts where the startup mode
// said at CREATE: the engine resolves the mode into one offset per
// partition then (Resolve, which also fails a CREATE over a topic that
// does not exist with 42704) and records them in the connector options
// (OptStartOffsets), so 'latest' means "latest at CREATE" across
// restarts too. A partition created later starts at its beginning: the
// Reader looks for new partitions every few seconds.
//
// # Goroutines
//
// A Reader owns one goroutine, started by Start (on the source actor's
// first Next, after the committed offsets are loaded) and stopped and
// joined by Close (an actor closer: it runs when the actor exits, for a
// DROP, a recovery or the database's Close). The goroutine polls kgo
// (which retries a broker that is down, with backoff; the reader's State
// then says "retrying: ...", shown in streamdb_catalog.sources), decodes
// the records, and hands them over through a channel of bufferBatches
// batches. The source actor takes batches only between barriers and
// prefers an upstream barrier to a batch, so a barrier never waits on a
// poll, and pause and rate limit (the ThrottleSource mutations of
// datagen) hold or pace what it emits while the bounded channel holds
// the reader back.
//
// # Bad input
//
// A message that does not decode (bad JSON, not an object, a value of
// the wrong type or out of range) is a record with an error and no row:
// the source skips it, counts it, and reports it with its partition and
// offset to the engine (streamdb_catalog.source_errors). JSON fields
// match columns case-insensitively; missing fields are NULL; values
// convert with the engine's casts: a JSON string as text::type, a number
// or boolean as jsonb::type, an object or array to json, jsonb or text.
//
// # Left for later increments
//
// One reader actor reads every partition (no ALTER SOURCE SET
// PARALLELISM, no moving splits between actors at a barrier: the split
// rows are keyed by partition so a later rescale can hand them over like
// vnodes). Not built yet: sinks (CREATE SINK ... FORMAT PLAIN | UPSERT |
// DEBEZIUM, transactions committed with the epoch), FORMAT UPSERT
// (Kafka key as primary key, null value deletes), INCLUDE key |
// partition | offset | timestamp | header, scan.startup.mode for
// partitions added after CREATE, a partition whose committed offset
// Kafka's retention already deleted (kgo then resets to the log start),
// kcat interop tests, and several processes over one topic (consumer
// group placement, repartition topics).
package kafka
