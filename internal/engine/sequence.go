package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Sequences (CREATE SEQUENCE, serial and identity columns). A sequence is
// a relation of KindSequence whose options are in its catalog entry; its
// state, PostgreSQL's (last_value, is_called), is a meta key beside the
// catalog. Values are handed out from memory, in blocks reserved with one
// durable write each: before a value is handed out, the stored state
// already covers it, as if the whole block had been handed out. After a
// crash or a restart the sequence goes on after the stored state, so a
// value handed out is never handed out again (the rest of the block is
// skipped, as PostgreSQL skips its logged values after a crash). All
// sessions share one state per sequence, under its lock, so values are
// unique across sessions and increase in the order nextval returns them.
// Blocks grow while nextval is called often (a bulk INSERT into a serial
// table makes one synced write per seqMaxBlock rows), and shrink back to
// seqMinBlock when it is not.

const (
	metaSeqPrefix = "catalog/seq/"
	seqMinBlock   = 32
	seqMaxBlock   = 1 << 16
)

func seqKey(id uint32) string { return fmt.Sprintf("%s%010d", metaSeqPrefix, id) }

// seqState is the state of one sequence.
type seqState struct {
	mu     sync.Mutex
	loaded bool
	// last and called are PostgreSQL's last_value and is_called: the
	// value handed out last (called), or the next to hand out (not).
	last   int64
	called bool
	// avail is how many values after the state the stored state covers.
	avail int64
	block int64
	// reserved is when the last block was reserved.
	reserved time.Time
}

// sequenceState returns the state of sequence id, made on first use.
func (db *DB) sequenceState(id uint32) *seqState {
	db.mu.RLock()
	st := db.seqs[id]
	db.mu.RUnlock()
	if st != nil {
		return st
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.seqs == nil {
		db.seqs = map[uint32]*seqState{}
	}
	st = db.seqs[id]
	if st == nil {
		st = &seqState{}
		db.seqs[id] = st
	}
	return st
}

// load reads the stored state of rel (caller holds st.mu).
func (db *DB) loadSequence(st *seqState, rel *catalog.Relation) error {
	if st.loaded {
		return nil
	}
	v, ok, err := db.store.GetMeta(seqKey(rel.ID))
	if err != nil {
		return err
	}
	st.last, st.called = rel.Sequence.Start, false
	if ok {
		if len(v) != 9 {
			return fmt.Errorf("streamdb: corrupt sequence state %s", seqKey(rel.ID))
		}
		st.last, st.called = int64(binary.BigEndian.Uint64(v)), v[8] == 1
	}
	st.loaded = true
	return nil
}

// storeSequence durably writes a sequence's state.
func (db *DB) storeSequence(id uint32, last int64, called bool) error {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 9), uint64(last))
	c := byte(0)
	if called {
		c = 1
	}
	return db.store.PutMeta(seqKey(id), append(b, c))
}

// sequenceRelation returns the sequence whose OID is oid.
func (db *DB) sequenceRelation(id uint32) (*catalog.Relation, error) {
	rel, ok := db.RelationByID(id)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", int64(id)+16384)
	}
	if rel.Kind != catalog.KindSequence {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", rel.Name)
	}
	return rel, nil
}

// nextSequenceValue is nextval: it advances sequence id and returns the
// new value.
func (db *DB) nextSequenceValue(id uint32) (int64, error) {
	rel, err := db.sequenceRelation(id)
	if err != nil {
		return 0, err
	}
	st := db.sequenceState(id)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := db.loadSequence(st, rel); err != nil {
		return 0, err
	}
	v, err := seqStep(rel, st.last, st.called)
	if err != nil {
		return 0, err
	}
	if st.avail == 0 {
		if err := db.reserveBlock(st, rel, v); err != nil {
			return 0, err
		}
	}
	st.last, st.called = v, true
	st.avail--
	return v, nil
}

// reserveBlock durably reserves the values from first on: as many as the
// block size allows before the sequence's bound.
func (db *DB) reserveBlock(st *seqState, rel *catalog.Relation, first int64) error {
	now := time.Now()
	switch {
	case st.block == 0 || now.Sub(st.reserved) > time.Second:
		st.block = seqMinBlock
	case st.block < seqMaxBlock:
		st.block *= 2
	}
	st.reserved = now
	seq := rel.Sequence
	k := st.block
	var room uint64 // values after first before the bound
	if seq.Increment > 0 {
		room = uint64(seq.Max-first) / uint64(seq.Increment)
	} else {
		room = uint64(first-seq.Min) / uint64(-seq.Increment)
	}
	if room < uint64(k-1) {
		k = int64(room) + 1
	}
	lastOfBlock := first + (k-1)*seq.Increment
	if err := db.storeSequence(rel.ID, lastOfBlock, true); err != nil {
		return err
	}
	st.avail = k
	return nil
}

// seqStep returns the value nextval hands out after the state (last,
// called): last itself when not called, else the next one, wrapping
// around with CYCLE.
func seqStep(rel *catalog.Relation, last int64, called bool) (int64, error) {
	seq := rel.Sequence
	if !called {
		return last, nil
	}
	inc := seq.Increment
	if inc > 0 {
		if last > math.MaxInt64-inc || last+inc > seq.Max {
			if !seq.Cycle {
				return 0, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", rel.Name, seq.Max)
			}
			return seq.Min, nil
		}
		return last + inc, nil
	}
	if last < math.MinInt64-inc || last+inc < seq.Min {
		if !seq.Cycle {
			return 0, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", rel.Name, seq.Min)
		}
		return seq.Max, nil
	}
	return last + inc, nil
}

// setSequenceValue is setval: the sequence's state becomes (v, called),
// stored before it returns.
func (db *DB) setSequenceValue(id uint32, v int64, called bool) error {
	rel, err := db.sequenceRelation(id)
	if err != nil {
		return err
	}
	seq := rel.Sequence
	if v < seq.Min || v > seq.Max {
		return pgerr.New(pgerr.NumericOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, rel.Name, seq.Min, seq.Max)
	}
	return db.resetSequence(rel, v, called)
}

// resetSequence durably sets rel's state to (v, called).
func (db *DB) resetSequence(rel *catalog.Relation, v int64, called bool) error {
	st := db.sequenceState(rel.ID)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := db.storeSequence(rel.ID, v, called); err != nil {
		return err
	}
	st.loaded, st.last, st.called, st.avail = true, v, called, 0
	return nil
}

// sequenceValues returns the state of a sequence, as pg_sequences and a
// SELECT from it show it: its last value (ok false when none was handed
// out) and whether it was called.
func (db *DB) sequenceValues(rel *catalog.Relation) (last int64, called bool, err error) {
	st := db.sequenceState(rel.ID)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := db.loadSequence(st, rel); err != nil {
		return 0, false, err
	}
	return st.last, st.called, nil
}

// forgetSequence drops the state of a dropped sequence.
func (db *DB) forgetSequence(id uint32) error {
	db.mu.Lock()
	delete(db.seqs, id)
	db.mu.Unlock()
	return db.store.DeleteMeta(seqKey(id))
}

// invalidateSequenceBlock makes the next nextval of rel reserve a new
// block (its options changed).
func (db *DB) invalidateSequenceBlock(id uint32) {
	st := db.sequenceState(id)
	st.mu.Lock()
	st.avail = 0
	st.mu.Unlock()
}
