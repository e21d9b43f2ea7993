package failpoint

// The failpoints. Every point takes the actions Error (the call returns an
// error wrapping ErrInjected, which fails the actor or statement as a real
// error there would) and Panic (the call panics: the actor's recover turns
// it into an ActorError; at the storage points, which run on the
// coordinator's goroutine, a panic crashes the process). End means what
// each point says; where it says nothing it acts as Error.
const (
	// StorageCommit is in storage.Store.CommitEpoch before the epoch's
	// Pebble batch is committed: the commit fails and nothing of the
	// epoch is written. The coordinator recovers the graph; statements
	// waiting on the epoch get a retryable error (40001).
	StorageCommit = "storage/commit"
	// StorageSync is in storage.Store.CommitEpoch after the epoch's batch
	// has been applied, where its WAL sync fails: the epoch's durability
	// is unknown, as after a failed fsync. As Pebble does for its own WAL
	// errors (and Postgres for a failed fsync), the store stops: every
	// later write fails with storage.ErrStoreFailed (58030 io_error) and
	// the database must be reopened, which replays the WAL.
	StorageSync = "storage/sync"
	// StorageIngest is in storage.Store.CommitEpoch after an epoch with
	// bulk-ingested rows has committed, before its sstables are ingested
	// (and in Open, before it redoes such an ingest). An error fails the
	// store as StorageSync does; Exit is a crash there: the reopen must
	// ingest the files, so the rows the epoch acknowledged are all there.
	StorageIngest = "storage/ingest"

	// StreamSend is in stream.Dispatcher.Send, for every message an actor
	// sends downstream (chunks through exchanges and broadcast outputs,
	// barriers). End closes the channel of the first downstream output
	// without a barrier: the receiving actor sees its upstream end (I5).
	StreamSend = "stream/send"
	// StreamUpstreamEnd is in stream.Actor.run, for every message an actor
	// has taken from its pipeline. End makes the actor stop as if its
	// goroutine had ended: it closes every output channel without a
	// barrier and exits without an error. Its downstream actors see their
	// input end (I5) and the coordinator sees an actor that was not
	// stopped exit; either fails the graph.
	StreamUpstreamEnd = "stream/upstream-end"

	// ExecScanChunk and ExecScanBarrier are in stream.StreamScan, at each
	// chunk it handles (an upstream chunk, logged during a backfill or
	// passed through after; a snapshot or log-store chunk it emits) and
	// each barrier; ExecScanBarrier also in stream.Values, at each of its
	// job's barriers.
	ExecScanChunk   = "exec/scan/chunk"
	ExecScanBarrier = "exec/scan/barrier"
	// ExecHashAggChunk and ExecHashAggBarrier are in stream.HashAgg, at
	// each input chunk and each barrier (before the epoch's groups are
	// written).
	ExecHashAggChunk   = "exec/hash-agg/chunk"
	ExecHashAggBarrier = "exec/hash-agg/barrier"
	// ExecHashJoinChunk and ExecHashJoinBarrier are in stream.HashJoin, at
	// each input chunk (either side) and each aligned barrier.
	ExecHashJoinChunk   = "exec/hash-join/chunk"
	ExecHashJoinBarrier = "exec/hash-join/barrier"
	// ExecMaterializeChunk and ExecMaterializeBarrier are in
	// stream.Materialize (tables' and views'), at each input chunk and
	// each barrier.
	ExecMaterializeChunk   = "exec/materialize/chunk"
	ExecMaterializeBarrier = "exec/materialize/barrier"
	// ExecProjectChunk and ExecProjectBarrier are shared by the stateless
	// executors stream.Project, stream.Filter and stream.Expand, at each
	// input chunk and each barrier.
	ExecProjectChunk   = "exec/project/chunk"
	ExecProjectBarrier = "exec/project/barrier"

	// BackfillSnapshotRead is in stream.StreamScan before each chunk of a
	// backfill's snapshot is read from Pebble, as a failed read, and in
	// stream.Values before each chunk of constant rows it emits.
	BackfillSnapshotRead = "backfill/snapshot-read"
	// BackfillLogRead is in the backfill's log-store replay before each
	// chunk of logged changes is read, as a failed read.
	BackfillLogRead = "backfill/log-read"
	// BackfillJobCommit is in a creating job's barrier loop before each
	// of its own checkpoints commits, as a failed commit (it fails the
	// graph; the job resumes from its checkpoint before).
	BackfillJobCommit = "backfill/job-commit"
	// BackfillJoin is in a creating job's scans (and stream.Values) once
	// the running graph's barrier that joins the job has committed,
	// before they replay the rest of the log store: a failure just after
	// the switch.
	BackfillJoin = "backfill/join"

	// CatalogDropPurge is in the removal of a dropped relation's state
	// (DROP, or a view whose creation failed), after each of its state
	// tables is deleted; with Exit the process dies half-way through.
	CatalogDropPurge = "catalog/drop-purge"

	// CreateTableAsFilled is in CREATE TABLE AS once the table's rows
	// have committed, before the catalog entry that publishes the table
	// is written; with Exit the process dies in between (the table must
	// then be gone after the restart).
	CreateTableAsFilled = "ddl/create-table-as-filled"

	// SinkDelivered is in a sink's delivery goroutine after its
	// destination took a batch and before the batch is recorded as
	// delivered in Pebble, as a failure there (the crash window of an
	// exactly-once sink: the goroutine reconnects and asks the
	// destination what it holds).
	SinkDelivered = "sink/delivered"
)

// Names lists every failpoint.
var Names = []string{
	StorageCommit, StorageSync, StorageIngest,
	StreamSend, StreamUpstreamEnd,
	ExecScanChunk, ExecScanBarrier,
	ExecHashAggChunk, ExecHashAggBarrier,
	ExecHashJoinChunk, ExecHashJoinBarrier,
	ExecMaterializeChunk, ExecMaterializeBarrier,
	ExecProjectChunk, ExecProjectBarrier,
	BackfillSnapshotRead, BackfillLogRead, BackfillJobCommit, BackfillJoin,
	CatalogDropPurge, CreateTableAsFilled, SinkDelivered,
}
