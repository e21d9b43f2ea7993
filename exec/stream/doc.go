// Package stream is the streaming engine: executors that maintain
// materialized views incrementally, the actors that run them, the channels
// and dispatchers between actors, and the barrier protocol that cuts the
// streams into epochs.
//
// # Actors and ownership
//
// An actor is one goroutine, started, owned and joined by the Coordinator,
// running a pipeline of executors (Executor.Next pulls from the input); its output goes
// to a dispatcher that sends each message to the receivers of downstream
// actors. Between actors messages travel on bounded channels (back-pressure).
//
// # Parallelism: vnodes, exchanges, merges
//
// A view's fragments run as N actors each (see ../../planner/fragment.go);
// each actor owns a set of the 256 vnodes (storage.VnodeBitmap). An
// Exchange, one kind of dispatcher output, sends each row to the actor of
// the downstream fragment that owns the row's vnode, hashed from the key
// columns exactly as a state table hashes its DistKey (storage.VnodeOf),
// so an actor sees the rows whose state it owns; update pairs that change
// owner are split into a Delete and an Insert. A Merge reads the channels
// of all the actors of the upstream fragment and aligns their barriers
// (I1); Align is a Merge whose inputs form two sides (a join). The actors
// of a fragment share its state tables, each reading and writing only the
// keys of its vnodes; a scan's backfill progress and log store are kept
// per upstream vnode.
//
// # Rescale
//
// Vnodes change owner only at a barrier (I4), and by replacing actors,
// not by handing vnodes from one running actor to another: an
// UpdateMutation carries the actors of the rebuilt jobs (the rescaled
// relation's and those of every view downstream of it, built by the
// planner for the new parallelism with their vnodes split anew). At its
// barrier the old actors forward it and stop, and the dispatchers feeding
// them swap their outputs to them for Exchanges to the new actors, so the
// rows after the barrier reach the new owners. Once the epoch commits, the
// new actors start on the committed state: every operator's state, a
// scan's backfill progress and its log store are keyed by vnode, so each
// vnode's state is found by whichever actor now owns it, and a job still
// backfilling resumes from its committed progress in whatever phase it was
// (as after a restart). MutateIn refuses the mutation when the graph was
// rebuilt after the new actors were built; the caller rebuilds and retries.
//
// # Epochs and state
//
// Each actor has a StateContext holding the Pebble write batch of the
// current epoch. Executors stage their state changes in it and read through
// it (reads see committed state plus the batch). When a barrier leaves the
// actor, the batch is handed to the coordinator, which commits every actor's
// batch for the epoch atomically, with the committed-epoch record, in one
// synced Pebble batch. The actor waits for that commit before it reads or
// writes state for the next epoch.
//
// Every key, in memory or stored, is storage's key encoding (AppendKey,
// AppendKeyAt, AppendDatumKey): the exchange's vnode, a group of HashAgg
// and LocalAgg, a join key's state rows, a distinct value's count. Values
// equal in SQL encode equal (interval '1 mon' and '30 days', numeric 1.0
// and 1.00, float -0 and 0), so a view groups, joins and dedupes as its
// query does in package batch, which keys its hash tables the same way.
// A group keeps the spelling it was first seen with (the stored one).
//
// # Backfill and flow control
//
// A new view is a CreatingJob (creating.go) until it has caught up: its
// LogWriters (log_writer.go) run in the running graph and append the
// upstream's changes to a log-store table in Pebble, in the running
// graph's epochs; its StreamScans (stream_scan.go) and everything below
// them run on the job's own barriers, which the job's loop injects and
// commits on its own (storage.Store.CommitJob). The scans read a snapshot
// of the upstream at the epoch of the Add barrier, vnode by vnode, then
// replay the log store as its epochs commit. So the running graph's epoch
// commit never waits for a backfill (I8). Once every scan has drained the
// log, the job parks its scans on a last barrier of its own and joins the
// running graph at one barrier (JoinMutation): its writers then pass
// upstream on to the scans, which replay what the log still holds and
// follow. Progress commits with each of the job's checkpoints, so a
// restart resumes (Resume mode). ThrottleMutations for a creating job
// travel on its own barriers and pause it or set its rate limit in all
// its scans at once; a Stop or Update mutation that stops its actors first
// ends the job with a last barrier of its own.
//
// Constant rows (VALUES, a SELECT without FROM) are a backfill whose
// snapshot never changes and has no log (values.go): a Values, in a
// fragment of one actor, emits them on the job's barriers and records at
// each of them how many it emitted, with the view's state; its writer
// passes on the barriers of a source of its own (it has no upstream),
// and once the job has joined the Values actor owns that source and
// emits nothing ever again (I3).
//
// # Failures
//
// An actor's error or panic (ActorError), an actor that ends without a
// Stop barrier, or an epoch that fails to commit makes the Coordinator
// tear the graph down, join every actor, and call OnFailure, which
// rebuilds the graph from committed state. Statements waiting on the
// failed epoch then get ErrGraphFailed; DML waits with CommitSource for
// its source's mark (Source.Mark), which succeeds once a barrier injected
// into that source after the changes has committed, even when the barrier
// that answers the request fails, and fails once the source's graph is
// gone without it: an error always means not committed. When recoveries
// follow each other with no epoch committed, the next barrier waits a
// growing backoff. A store that fails a write
// (storage.ErrStoreFailed) stops the graph for good: every request gets
// the store's error until the database is reopened.
//
// Failpoints (../../internal/failpoint) sit in the dispatcher, the actor
// loop and every executor's chunk and barrier handling (failpoints.go);
// they compile away without the invariants build tag.
//
// # Invariants
//
//   - I1 alignment: an executor with several inputs forwards barrier E only
//     after it has received E on every input (Merge, Align).
//   - I2 pause: a paused scan emits no backfill chunk; checked under the
//     invariants build tag (invariants_on.go).
//   - I3 exactly once: snapshot rows and logged changes reach the view once,
//     across restarts (see StreamScan).
//   - I4 rescale: vnode ownership changes only at a barrier (an
//     UpdateMutation), and a vnode's state and backfill progress move with
//     it, being keyed by vnode. A scan receives only the changes of its
//     vnodes and a Materialize writes only rows of its vnodes; checked
//     under the invariants build tag, as is that no two actors write one
//     key in an epoch (storage).
//   - I5 upstream end: an input that ends without a barrier is an error,
//     and an actor that ends without a Stop barrier fails the graph (the
//     coordinator checks it; the stream/send and stream/upstream-end
//     failpoints test both).
//   - I6 recovery: state is only ever what committed epochs wrote.
//   - I7 watermark: a table's watermark only rises and commits with the
//     epoch whose rows raised it (WatermarkFilter); every barrier carries
//     it, so an operator built after a restart, a recovery or a rescale
//     resumes from it. An operator that closes windows (HashAgg,
//     HashJoin, TopN, EmitOnClose) emits and deletes a closed window's
//     state in the epoch that closed it, so no window is emitted twice;
//     EmitOnClose checks, under the invariants build tag, that no change
//     reaches a row it closed.
//   - I8 isolation: a creating job runs on its own barriers (CreatingJob)
//     and joins the running graph at one barrier.
package stream
