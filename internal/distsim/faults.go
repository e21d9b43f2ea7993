package distsim

// Faults are deliberately broken variants of the design, each the
// removal of one of the pieces docs/distributed.md says exactly-once
// rests on. The tests run them to show that the checks catch each one
// (some seed fails); the zero value is the design as written.
type Faults struct {
	// OffsetsOutsideTxn commits source and repartition offsets when they
	// are sent, outside the transaction, as a consumer's own commit
	// would: a crash before the commit loses the epoch's output but not
	// its offsets, so input is lost (I3).
	OffsetsOutsideTxn bool
	// NoZombieFencing gives every incarnation a transactional id of its
	// own (no producer-epoch fencing) and has the group accept offsets
	// from any generation (no KIP-447 fencing): a zombie commits its
	// epoch after its partitions moved, and input counts twice (I3).
	NoZombieFencing bool
	// UnstableOffsetFetch answers OffsetFetch with the offset committed
	// so far while a transaction holding newer offsets is still open: a
	// new owner starts before the old owner's last epoch commits, and
	// that epoch's input is processed twice (I3, I6).
	UnstableOffsetFetch bool
	// RestoreUncommitted restores state from the changelog
	// read_uncommitted, aborted and open transactions included (I6).
	RestoreUncommitted bool
	// NoReplayFilter has the aggregate apply the repartition records it
	// reads again after a restore although the restored state already
	// holds them (those tagged before its committed epoch) (I3, I6).
	NoReplayFilter bool
	// CommitReadPosition has the aggregate commit its read position
	// instead of the position of its first record still held for
	// alignment: after a failure those records are never applied (I3).
	CommitReadPosition bool
}
