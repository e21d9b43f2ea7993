// Package distsim is a deterministic simulation of streamdb run as
// several processes over Kafka (docs/distributed.md), written to test
// that design before any of it is built: exactly once (I3) and recovery
// (I6) while processes crash, pause, come back as zombies and trade
// partitions and vnodes at barriers.
//
// # The model
//
// Broker is an in-memory Kafka: partitioned logs; transactions whose
// records are appended as they are produced and become visible to
// read_committed readers when they commit (a reader stops at the first
// record of an open transaction, the last stable offset, and skips
// aborted ones); transactional ids with producer epochs, where
// InitProducer aborts the id's open transaction and fences older
// producers; transaction timeouts that abort and fence; and one consumer
// group (Group) with generations, static members, expulsion of members
// that miss a rebalance, offsets committed through transactions with the
// member's generation checked (KIP-447), and OffsetFetch that answers
// UNSTABLE_OFFSET_COMMIT while an open transaction holds offsets for the
// partition.
//
// Each process runs the job's two stages, as tasks of its assignment:
//
//	input partition i --srcTask--> repartition partition vnodeRange(key)
//	repartition partition q --aggTask--> changelog q, output q
//
// A source task is a split reader (exec/stream.SplitSource's role): it
// reads one input partition and routes each record to the repartition
// partition of its key's vnode (storage.VnodeOf, the engine's hash; the
// vnode ranges of storage.SplitVnodes name the partitions), tagged with
// its source partition and the epoch of that partition's last barrier.
// An aggregate task is a HashAgg over one vnode range (count and sum per
// key), its state in the process's memory, restored from its changelog
// partition when the task starts. At a barrier a process writes, in one
// transaction: a marker with the new epoch from each of its source
// partitions to every repartition partition, each aggregate's changed
// keys to the changelog and the output, and the offsets of every task
// with the epoch as their metadata. The aggregate aligns the markers of
// all source partitions (aggTask) and commits the aligned epoch.
//
// Sim is the scheduler. Seeded by Config.Seed (math/rand/v2, no clock:
// time is the event count), it interleaves input, process steps,
// barriers, crashes (everything not committed is lost), restarts,
// pauses (a paused process the group expels, or whose instance is
// restarted, resumes as a zombie), rebalances at random points (a member
// revokes its partitions at a barrier) and transaction timeouts; then it
// lets the system quiesce and checks. Everything runs on the caller's
// goroutine: no goroutine is started, and a seed replays exactly.
//
// # Checks
//
//   - I6 (CheckState): at every commit and every restore, an aggregate's
//     state at committed epoch A is the query over the input records each
//     source partition read before its first committed barrier at or
//     after A, computed from the input topic directly.
//   - I3 (CheckOutput): once quiet, the output read_committed and folded
//     by key (the sum of the changes, and the last value) is the query
//     over the whole input.
//   - Zombies (CheckZombies): no transaction commits after its producer
//     was fenced, and none carries offsets sent after its process was
//     expelled.
//   - I4: a record only reaches the aggregate of its vnode range.
//
// Faults are broken variants (offsets outside the transaction, no
// fencing, no stable offset fetch, a read_uncommitted restore, no
// replay filter, committing the read position); the tests show each is
// caught. A failure prints the seed and the end of its trace;
// STREAMDB_SIM_SEED=n STREAMDB_SIM_TRACE=1 replays one seed with its
// whole trace, STREAMDB_SIM_SEEDS=n runs n seeds.
package distsim
