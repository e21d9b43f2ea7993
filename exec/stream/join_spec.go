package stream

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// JoinKind is the kind of an equi-join.
type JoinKind uint8

// The join kinds HashJoin maintains.
const (
	JoinInner JoinKind = iota
	JoinLeftOuter
	JoinRightOuter
	JoinFullOuter
	// JoinLeftSemi outputs the left rows that have a match (EXISTS, IN),
	// once each; JoinLeftAnti those that have none (NOT EXISTS). Both
	// output the left columns only and track each left row's degree, as
	// a left outer join does for its padded rows.
	JoinLeftSemi
	JoinLeftAnti
)

func (k JoinKind) String() string {
	switch k {
	case JoinInner:
		return "inner"
	case JoinLeftOuter:
		return "left outer"
	case JoinRightOuter:
		return "right outer"
	case JoinFullOuter:
		return "full outer"
	case JoinLeftSemi:
		return "left semi"
	case JoinLeftAnti:
		return "left anti"
	}
	return fmt.Sprintf("JoinKind(%d)", uint8(k))
}

// preserves reports whether unmatched rows of side s (0 left, 1 right)
// appear in the output, padded with NULLs.
func (k JoinKind) preserves(s int) bool {
	return k == JoinFullOuter || s == 0 && (k == JoinLeftOuter || k.filtersLeft()) || s == 1 && k == JoinRightOuter
}

// filtersLeft reports whether the join only keeps or drops left rows
// (semi and anti joins).
func (k JoinKind) filtersLeft() bool { return k == JoinLeftSemi || k == JoinLeftAnti }

// JoinSpec describes an equi-join of two inputs: left.LeftKeys[i] =
// right.RightKeys[i] for every i (NULL keys never match), and Cond.
type JoinSpec struct {
	Kind                  JoinKind
	LeftTypes, RightTypes []types.Type
	LeftKeys, RightKeys   []int
	// LeftPK and RightPK are the stream keys of the inputs.
	LeftPK, RightPK []int
	// Cond is a residual condition over the left row followed by the right
	// row; nil means true.
	Cond expr.Expr
	// Watermark, when not nil, closes join keys: the watermark of table
	// Watermark.Table bounds the first key pair on both sides.
	Watermark *KeyWatermark
	// Interval, when not nil, drops the rows of either side that no row
	// still to come can reach, by the conjuncts of Cond that bound a
	// column of one side by one of the other.
	Interval *IntervalWatermark
}

// KeyWatermark is how a HashJoin or a TopN drops the state no row still
// to come can reach (a join on a window, as Nexmark's q5 and q8 join
// windows computed over a stream; the top rows of each window): every
// row still to come (on either side of a join) has a first key (join key,
// partition column) of at least the least of Bounds, evaluated over the
// one-column row [the watermark of table Table]. State rows with a first
// key below it can no more be matched, retracted or ranked: they are
// deleted. The first key leads the state tables' keys, so they are a
// range of each vnode.
type KeyWatermark struct {
	Table  uint32
	Bounds []expr.Expr
}

// NumStateTables returns how many state table ids NewHashJoin takes: one
// per side, left first.
func (JoinSpec) NumStateTables() int { return 2 }

// OutTypes returns the output column types: left columns then right columns
// (for outer joins the padded side's columns hold NULLs).
func (s JoinSpec) OutTypes() []types.Type {
	if s.Kind.filtersLeft() {
		return slices.Clone(s.LeftTypes)
	}
	return slices.Concat(s.LeftTypes, s.RightTypes)
}

// OutPK returns the output stream key: the left stream key followed by the
// right one (in output column positions); a semi or anti join's is the
// left one.
func (s JoinSpec) OutPK() []int {
	pk := slices.Clone(s.LeftPK)
	if s.Kind.filtersLeft() {
		return pk
	}
	for _, c := range s.RightPK {
		pk = append(pk, len(s.LeftTypes)+c)
	}
	return pk
}

func (s JoinSpec) validate() error {
	if s.Kind > JoinLeftAnti {
		return fmt.Errorf("stream: hash join: unknown kind %d", s.Kind)
	}
	if len(s.LeftKeys) != len(s.RightKeys) {
		return fmt.Errorf("stream: hash join: %d left keys, %d right keys", len(s.LeftKeys), len(s.RightKeys))
	}
	check := func(cols []int, n int) error {
		for _, c := range cols {
			if c < 0 || c >= n {
				return fmt.Errorf("stream: hash join: column %d out of range", c)
			}
		}
		return nil
	}
	if s.Watermark != nil && (len(s.LeftKeys) == 0 || len(s.Watermark.Bounds) == 0) {
		return fmt.Errorf("stream: hash join: a watermark without a join key")
	}
	if err := s.Interval.validate(len(s.LeftTypes), len(s.RightTypes)); err != nil {
		return err
	}
	if err := check(slices.Concat(s.LeftKeys, s.LeftPK), len(s.LeftTypes)); err != nil {
		return err
	}
	return check(slices.Concat(s.RightKeys, s.RightPK), len(s.RightTypes))
}

// joinSide is one input of a HashJoin and its state table. The table holds
// every row of the side whose join key has no NULL (a NULL key never
// matches, so such rows need no state):
//
//	the input row | degree int64 (only when the side is preserved)
//
// PK: the join key columns followed by the stream key columns not already
// in the join key; DistKey: the join key, so ScanPrefix(join key) finds a
// key's rows. The degree of a row of a preserved side is the number of rows
// of the other side it currently matches (join key and Cond); it is 0
// exactly when the row's NULL-padded row is in the output.
type joinSide struct {
	types     []types.Type
	keys      []int
	table     *storage.Table
	preserved bool
	// dirty holds, by encoded state key, the preserved rows whose degree
	// changed in this epoch; they are written at the barrier. Writing each
	// change at once would pile up versions of hot rows in the batch, which
	// every later prefix scan must step over.
	dirty map[string][]types.Datum
	kbuf  []byte
	// epoch holds this epoch's writes to the table (see epochWrites).
	epoch      *epochWrites
	wkey, wval []byte // scratch of stage
	// delKey is a deletion stage holds back (delPending), whose join key
	// prefix is delKey[:delPlen] (see putPending).
	delKey     []byte
	delPlen    int
	delPending bool
	// added counts the rows stored since the side was last cleaned
	// (JoinSpec.Interval).
	added int64
	// sameKeys: the other side's join key columns have the same types,
	// so the prefix keys of a join key in the two tables differ only in
	// the table id.
	sameKeys bool

	storedBuf, keyVals []types.Datum // scratch of stored and key
}

// rowKey encodes a stored row's state key, to index dirty.
func (s *joinSide) rowKey(stored []types.Datum) string {
	s.kbuf = s.kbuf[:0]
	for _, c := range s.table.PK {
		s.kbuf, _ = storage.AppendKey(s.kbuf, s.table.Types[c], stored[c])
	}
	return string(s.kbuf)
}

// current returns the latest version of stored row m: the dirty one when
// its degree changed in this epoch.
func (s *joinSide) current(m []types.Datum) []types.Datum {
	if len(s.dirty) == 0 {
		return m
	}
	if d, ok := s.dirty[s.rowKey(m)]; ok {
		return d
	}
	return m
}

// flushDirty stages the rows whose degree changed.
func (s *joinSide) flushDirty() error {
	for k, row := range s.dirty {
		if err := s.stage(row, false, nil); err != nil {
			return err
		}
		delete(s.dirty, k)
	}
	return nil
}

// stage stages the write (del: the deletion) of stored, a row of the
// state table whose join key has no NULL, in the epoch's writes. probed,
// when not nil, is the other side's prefix key (AppendPrefixKey) of the
// row's join key, which gives this side's when the key types agree (see
// sameKeys).
func (s *joinSide) stage(stored []types.Datum, del bool, probed []byte) error {
	var err error
	if probed != nil && s.sameKeys {
		s.wkey = append(s.wkey[:0], probed...)
		s.wkey = storage.SetKeyTable(s.wkey, s.table.ID)
	} else {
		key, ok := s.key(stored)
		if !ok {
			return fmt.Errorf("stream: hash join: staging a row with a NULL join key")
		}
		if s.wkey, err = s.table.AppendPrefixKey(s.wkey[:0], key); err != nil {
			return err
		}
	}
	plen := len(s.wkey)
	for _, c := range s.table.PK[len(s.keys):] {
		if s.wkey, err = storage.AppendKey(s.wkey, s.table.Types[c], stored[c]); err != nil {
			return err
		}
	}
	if del {
		s.putPending()
		s.delKey, s.delPlen, s.delPending = append(s.delKey[:0], s.wkey...), plen, true
		return nil
	}
	if s.delPending && bytes.Equal(s.delKey, s.wkey) {
		s.delPending = false // overwritten
	}
	s.putPending()
	s.wval = s.wval[:0]
	if s.wval, err = storage.EncodeRow(s.wval, s.table.Types, stored); err != nil {
		return err
	}
	s.epoch.put(s.wkey, plen, s.wval, false)
	return nil
}

// putPending stages the deletion stage holds back, if any. A deletion
// waits for the next write: an update that keeps a row's state key (its
// join key and stream key) arrives as a delete and an insert of the same
// key, and the insert's write replaces the deletion, which then need not
// be written at all (half the writes of such an epoch, each an insert
// into the memtable on the commit's path). Nothing reads the side's
// writes before link, which puts the pending deletion first.
func (s *joinSide) putPending() {
	if s.delPending {
		s.delPending = false
		s.epoch.put(s.delKey, s.delPlen, nil, true)
	}
}

// link makes the side's staged writes findable (epochWrites.link).
func (s *joinSide) link() {
	s.putPending()
	s.epoch.link()
}

// flushEpoch hands the epoch's staged writes to w's epoch (all of them
// ingested at a creating job's barrier: see epochWrites.flush).
func (s *joinSide) flushEpoch(st *storage.Store, w *storage.WriteBatch, job bool) error {
	s.putPending()
	return s.epoch.flush(st, w, job)
}

func newJoinSide(id uint32, ts []types.Type, keys, pk []int, preserved bool) *joinSide {
	tableTypes := slices.Clone(ts)
	if preserved {
		tableTypes = append(tableTypes, types.TInt64)
	}
	tpk := slices.Clone(keys)
	for _, c := range pk {
		if !slices.Contains(tpk, c) {
			tpk = append(tpk, c)
		}
	}
	t := &storage.Table{ID: id, Types: tableTypes, PK: tpk, DistKey: slices.Clone(keys)}
	return &joinSide{types: ts, keys: keys, table: t, preserved: preserved, epoch: newEpochWrites(true)}
}

// degreeCol is the index of the degree column of a stored row.
func (s *joinSide) degreeCol() int { return len(s.types) }

// stored returns the state-table row for row: row itself, with the degree
// appended when the side is preserved (in a buffer reused by the next
// call).
func (s *joinSide) stored(row []types.Datum, degree types.Datum) []types.Datum {
	if !s.preserved {
		return row
	}
	s.storedBuf = append(append(s.storedBuf[:0], row...), degree)
	return s.storedBuf
}

// key returns the join key of row and whether it can match (no NULL); the
// key is valid until the next call.
func (s *joinSide) key(row []types.Datum) ([]types.Datum, bool) {
	s.keyVals = s.keyVals[:0]
	for _, c := range s.keys {
		if row[c] == nil {
			return nil, false
		}
		s.keyVals = append(s.keyVals, row[c])
	}
	return s.keyVals, true
}
