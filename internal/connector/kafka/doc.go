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
// # FORMAT UPSERT and INCLUDE
//
// After the column list, INCLUDE key | partition | offset | timestamp |
// header [AS col] adds a column holding that part of each message
// (include.go), typed as RisingWave types it: key bytea, partition and
// offset varchar, timestamp timestamptz. All the headers, which
// RisingWave gives as a struct<key varchar, value bytea>[], are a jsonb
// array of {"key", "value"} objects here (streamdb has no struct type;
// a value that is not text shows as "\x" and hex digits); INCLUDE
// header 'name' [varchar] AS col holds that one header's value, bytea
// by default. Without AS a column is named _kafka_key, _kafka_partition,
// _kafka_offset, _kafka_timestamp, _kafka_header (_kafka_header_<name>
// for one header), where RisingWave says _rw_kafka_... . The INCLUDE
// columns come after the payload's, and the binder records what each
// holds in OptInclude.
//
//	CREATE TABLE t (cols..., PRIMARY KEY (k)) INCLUDE key AS k
//	WITH (connector = 'kafka', ...) FORMAT UPSERT ENCODE JSON
//
// is a table keyed by the message key, as in RisingWave: the key column
// must be the primary key, alone (the key is opaque bytes, not JSON of
// payload columns); FORMAT UPSERT on a source, without INCLUDE key or
// with another key is an error at CREATE. A message's value (JSON)
// replaces the row of its key; a null value (a tombstone) deletes it: the
// reader turns it into a Delete with only the key set, and the table's
// materialization deletes by key and emits the row it held
// (stream.Materialize's KeyedDeletes), so views over the table retract
// it. A tombstone of a key the table lacks is a no-op. Replaying an epoch
// after a failure replays upserts and deletes, which are idempotent. A
// FORMAT PLAIN source skips tombstones silently, as RisingWave does.
//
// # FORMAT DEBEZIUM
//
//	CREATE TABLE t (cols..., PRIMARY KEY (k)) WITH (connector = 'kafka', ...)
//	FORMAT DEBEZIUM ENCODE JSON
//
// reads Debezium change events (with or without Kafka Connect's schema
// wrapper) into a table keyed by the database row's primary key, as
// RisingWave does: a table only, with a primary key of payload columns.
// c and r replace the row of after's key, u too (deleting before's key
// first when the update changed it), d deletes before's key, and the
// tombstones after deletes are skipped; Debezium's encodings of
// timestamps, dates, decimals, bytea and JSON are read as RisingWave
// reads them. See debezium.go. The messages of streamdb's own FORMAT
// DEBEZIUM sink read back as the changes they carry.
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
// # Several reader actors, and rescale
//
// A Kafka table or source runs as many reader actors as its
// parallelism (WITH (streaming_parallelism = n) or the session's
// streaming_parallelism at CREATE, 1 when unset, as for any table;
// planner.buildSplitJob). Actor i of n owns partition p when p mod n = i
// (connector.SplitOwner): its Reader consumes only those (Own), and its
// SplitSource loads and writes only their offsets. The rule needs no
// coordination: a partition added to the topic is found by every
// reader's metadata refresh, and exactly one of them, its owner, starts
// it at its beginning. With more actors than partitions some actors
// read nothing. A table's rows are then hashed on its key to its n
// materializing actors; a source's views attach to all n readers.
//
// ALTER SOURCE s SET PARALLELISM n (Kafka sources only) and ALTER TABLE
// t SET PARALLELISM n rescale it like any job: at one barrier the old
// actors write their offsets and counters into that epoch's batch and
// stop, and once it commits the new actors load the committed offsets of
// the partitions they now own and go on from there, so no message is
// lost or read twice across the switch (I3, I4). The split rows are
// keyed by partition, not by owner, so they need no moving; each actor
// scans the few rows of the table and keeps its own. The counters (rows
// emitted, messages skipped) are kept per actor: slot k under splits
// -1-2k and -2-2k (slot 0 is -1 and -2, as with one actor); after a
// rescale to fewer actors, slot k folds into actor k mod n's, deleted in
// the batch that writes the sum, and streamdb_catalog.sources shows the
// sum over the actors (stream.SplitTotals) once all have loaded. A
// source_rate_limit is shared out among the actors (each gets its
// ceiling share), so the source's rate stays the one set. A relation
// with a WATERMARK keeps one reader actor: its filter keeps one state
// row.
//
// # Views created after the source (source backfill)
//
// A SOURCE stores no rows, yet a view created over one that already runs
// sees the topic from the source's startup position, as in RisingWave's
// shared sources and Materialize: its scans read the topic again, each
// partition from the startup offset resolved at CREATE (OptStartOffsets;
// a partition added later from its log start) up to the source's
// committed next offset in the snapshot the view's backfill is pinned
// at, with a bounded Reader (NewBackfillReader, backfill.go); what the
// source emits after that epoch reaches the view through its log store.
// The progress is the backfill's per-vnode position over the source's row
// ids (exec/stream/split_backfill.go), committed in the job's epochs, so
// a restart, a recovery, a pause, a rate limit or a rescale act on it as
// on a table's backfill. A partition's read ends when its position (the
// offset after the last record fetched, transaction markers included)
// reaches the bound, or when the log's last stable offset shows nothing
// below the bound is left: a bound right after a commit or abort marker,
// inside an aborted transaction or a compacted hole never keeps a view
// waiting. The source's reader passes markers on as records without a
// row, so its committed offset after a transaction is the log's stable
// end. A range the topic's retention deleted since the source read it
// is skipped and listed in streamdb_catalog.source_errors under the
// source (the text names the view's job), written in the job's epoch
// with its progress past it. SHOW JOBS' rows_total is the number of
// offsets in the range (an estimate: markers, malformed and lost
// offsets count; a partition added after the source is counted from
// offset 0). A source with a WATERMARK, or keyed by a PRIMARY KEY, is
// not backfilled: a view over it sees the messages read after it
// exists, and CREATE MATERIALIZED VIEW says so in a NOTICE
// (planner.SourceNotBackfilled).
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
// the wrong type or out of range; under FORMAT UPSERT, a message without
// a key) is a record with an error and no row: the source skips it,
// counts it, and reports it with its partition and offset to the engine
// (streamdb_catalog.source_errors, kept in the source's error table,
// exec/stream.SplitErrorTable: written in the epoch's batch with the
// offsets, the latest 1000 per source, dropped with it). A relation an
// older streamdb created without that table is given one when the
// database opens (engine.giveErrorTables: one atomic catalog write), so
// every relation's errors outlive a restart. So does a range of messages the
// topic's retention deleted before the source read them: when a reader
// starts a partition at an offset below its log start, it reports the
// range lost (LostError, at the range's last offset, counted once) and
// reads on from the log start, where kgo alone would reset silently.
// JSON fields
// match columns case-insensitively; missing fields are NULL; values
// convert with the engine's casts: a JSON string as text::type, a number
// or boolean as jsonb::type, an object or array to json, jsonb or text.
//
// # ENCODE AVRO
//
// FORMAT PLAIN | UPSERT ENCODE AVRO (schema.registry = 'http://...',
// [schema.registry.username, schema.registry.password]) reads messages
// in the Confluent wire format (magic byte 0, a 4-byte big-endian schema
// id, Avro binary) over a schema registry (registry.go, a small client
// of its REST API). The statement gives no columns: at CREATE the binder
// fetches the latest schema of subject <topic>-value (the topic name
// strategy) and maps its fields to columns (avro_schema.go: RisingWave's
// table, but records and maps are jsonb, streamdb having no struct type,
// and unions other than ["null", T] are refused with 42804). The schema
// and its id are stored among the relation's connector options
// (reserved keys, avro_options.go), so a restart never needs the
// registry for messages of that id; a message of another id is read with
// its writer schema, fetched once and resolved into the stored one by
// Avro's schema resolution (avro_decode.go); an unknown id or bytes that
// do not decode are bad input like bad JSON. A registry that does not
// answer is retried, never a reason to skip a message. A FORMAT UPSERT
// table (PRIMARY KEY (cols)) also stores subject <topic>-key's schema,
// whose fields fill the key columns, of a value and of a tombstone.
// Sinks (avro_encode.go) register a schema derived from their columns
// under <topic>-value (and <topic>-key when keyed) at CREATE, store
// both with their ids, and write the wire format.
//
// # ENCODE PROTOBUF
//
// FORMAT PLAIN | UPSERT ENCODE PROTOBUF (message = 'pkg.Msg',
// schema.location = 'file://...' | 'http(s)://...' [, key.message =
// 'pkg.Key']) reads each value as the bare Protobuf encoding of message
// (protobuf_*.go), as RisingWave does with schema.location. The location
// holds a FileDescriptorSet (protoc --include_imports
// --descriptor_set_out), read once by the binder at CREATE; the set is
// stored, as read, among the relation's connector options (a reserved
// key), so a restart or a rebuild reads neither the file nor the URL
// again, and the columns never drift from what the set said at CREATE.
// The statement gives no columns: the message's fields give them
// (protobufType: RisingWave's mapping, but messages, maps and repeated
// messages are jsonb, in protojson's canonical form, streamdb having no
// struct type). An unset scalar reads as its default, an unset message
// or oneof member as NULL. Bytes that do not parse as the message are
// bad input like bad JSON. Errors at CREATE: 58P01 (no such file, or a
// 404), 08001 (the URL does not answer), 22P02 (not a FileDescriptorSet),
// 42704 (no such message, the hint naming those there are). A FORMAT
// UPSERT table is keyed either by INCLUDE KEY AS k, PRIMARY KEY (k) (the
// key's bytes, as for JSON), or by PRIMARY KEY (cols): each Kafka key is
// then a message of key.message (else of message) whose fields of those
// names fill the key columns, of a value and of a tombstone.
//
// With schema.registry = 'http://...' instead of schema.location
// (protobuf_registry.go; schema.registry.username/password as for Avro)
// messages are in Confluent's Protobuf wire format: magic byte 0, the
// schema id (4 bytes big-endian), the message-index array (a zig-zag
// varint count, then the indexes, the path from the file's messages to
// a nested one; the byte 0 alone is [0]), then the payload. At CREATE the
// latest schema of subject <topic>-value and its references (subjects
// and versions, fetched recursively) are compiled with protocompile
// (google/protobuf/*.proto built in) into a FileDescriptorSet, stored
// with the schema id like schema.location's set, so a restart needs no
// registry; the columns are message's fields. A message of another id
// (or of another message of the file) is read by field name into the
// stored columns: its schema fetched once and cached, a field the
// columns lack skipped, a column the message lacks NULL, a field of
// another column type an error of that message. An unknown id (404),
// bad framing or bytes are bad input; a registry that does not answer
// is retried with backoff (the source's state says so), never a reason
// to skip a message. A FORMAT UPSERT table keyed by PRIMARY KEY (cols)
// also stores subject <topic>-key's schema (key.message, else its
// file's first message, names the key's message at CREATE). Errors at
// CREATE as for Avro (08001, 42704 no subject, 28000) and 42704 for no
// such message.
//
// # Left for later increments
//
// A source_rate_limit shared by the
// partitions' traffic rather than evenly by the actors. ENCODE PROTOBUF
// with schema.registry supports only TopicNameStrategy. Sinks (CREATE SINK, sink_*.go: FORMAT PLAIN | UPSERT |
// DEBEZIUM ENCODE JSON, at least once or is_exactly_once with one Kafka
// transaction per batch that also commits the batch's number as a
// consumer-group offset) are built; left for sinks: ENCODE
// PROTOBUF, KEY ENCODE, a sink's own timestamp handling modes, sinks
// to several topics, and a sink's parallel writers. Not built yet:
// FORMAT UPSERT with
// a key that is JSON of payload columns (RisingWave's older form) or
// ENCODE CSV (RisingWave has no UPSERT CSV either), scan.startup.mode for partitions added
// after CREATE (they start at their beginning whatever the mode, as a
// consumer with auto.offset.reset = earliest does; whether RisingWave
// does the same was not checked), and several processes over one topic (consumer
// group placement, repartition topics).
package kafka
