// Package storage is streamdb's state store: one Pebble database per data
// directory holding every table's rows, every operator's state and the
// catalog's metadata.
//
// # Key layout
//
// The first byte of a Pebble key names its namespace:
//
//	't' | tableID (4 bytes BE) | vnode (2 bytes BE) | memcmp(pk columns)   rows
//	'm' | key string                                                      metadata
//
// A table's rows live in [ 't'|id, 't'|id+1 ), grouped by vnode and ordered
// by primary key within a vnode, so a vnode's state is one contiguous range
// that can move as a unit (invariant I4) and a backfill can read it in pk
// order and resume after any pk. The value of a row key is the whole row
// (rowcodec.go), so keys never need decoding on the read path.
//
// memcmp (memcmp.go) is an ascending, prefix-free, memcomparable encoding:
// bytes.Compare of two encodings orders them as SQL does, NULL first. Each
// column is a marker byte (0x00 NULL, 0x01 value) followed by the value:
// integers of every width as 8 bytes big-endian with the sign bit flipped;
// floats as 8 bytes ordered like Postgres (-0 = 0, NaN above +Inf); text
// with 0x00 escaped as 0x00 0xFF and terminated by 0x00 0x01; numeric by
// sign, decimal exponent and base-100 digits (memcmp_numeric.go; equal
// values such as 1.0 and 1.00 encode equal); dates and timestamps as
// integers; intervals by their span alone, as Postgres compares them
// (30-day months, 24-hour days: '1 mon' and '30 days' encode equal,
// memcmp_interval.go). Values equal in SQL encode equal, so the encoding
// is also the key of everything that groups, joins or dedupes: executors
// key their hash tables with it (AppendDatumKey).
//
// A row's vnode is CRC-32C of the memcmp encoding of its DistKey columns,
// mod NumVnodes (vnode.go); an empty DistKey means vnode 0. The hash is
// part of the on-disk format.
//
// The committed epoch is a reserved meta key ('m' "\x00committed_epoch",
// 8 bytes BE) written in the same Pebble batch as the epoch's state.
//
// # Durability
//
// CommitEpoch writes all of an epoch's WriteBatches and its epoch record as
// one Pebble batch with Sync: after a crash the store holds either the whole
// epoch or none of it, and CommittedEpoch says which. PutMeta, DeleteMeta
// and DropTable are single synced writes. Options.NoSync turns fsync off for
// tests and benchmarks; writes then survive a process crash but not a
// machine crash. Nothing written to a WriteBatch is durable, or visible to
// other readers, before CommitEpoch.
//
// A bulk load's rows, and an executor's large epoch of writes to one
// table (a join's state or a view's rows during a backfill: the stream
// package's epochWrites), can join an epoch as sstables instead
// (WriteBatch.AddIngest, ingest.go): CommitEpoch commits the batch with a
// record of the files, ingests them, and clears the record; Open redoes
// an ingest a crash cut short, and snapshots never see the epoch without
// its ingested rows. The files may hold deletions; files whose key ranges
// overlap (their keys never do: I4) are ingested in groups that do not.
//
// # Readers and concurrency
//
// A Reader is the Store itself (latest committed state), a Snapshot (the
// committed state when it was taken) or a WriteBatch (latest committed
// state plus the batch's own writes). A WriteBatch starts unindexed and
// becomes a Pebble indexed batch at its first read, so an actor that only
// writes never pays for the index; one made by NewWriteOnlyBatch never
// does, and reads through it fail with ErrWriteOnly.
//
//   - Store: safe for concurrent use. CommitEpoch calls are serialized by an
//     internal mutex. Close must not race with other calls; iterators must
//     be closed before it, and snapshots left open are closed by it and
//     reported as ErrLeaked.
//   - Snapshot: safe for concurrent reads; Close once (twice is harmless).
//   - WriteBatch: owned by one goroutine (one actor, one epoch). CommitEpoch
//     takes ownership and closes it; Close discards it. An iterator over a
//     batch sees the batch as it was when the iterator was created and must
//     be closed before the batch is committed or closed.
//   - Iterator: owned by one goroutine; Row is valid until the next Next.
//   - Table: a layout value without state; share it freely.
package storage
