package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/streamdb/streamdb/internal/types"
)

// Table is the layout of one state table: rows of Types, unique on and
// ordered by the PK columns (each ascending, NULLs first), spread over
// vnodes by the hash of the DistKey columns (a subset of PK). Keys are
// tableID | vnode | memcomparable(pk); values encode the whole row.
//
// A Table is a plain value: it holds no state and may be shared by any
// number of goroutines.
type Table struct {
	ID      uint32
	Types   []types.Type
	PK      []int
	DistKey []int
	// Missing, when not empty, holds per column the value a row stored
	// without that column reads for it (nil: NULL): the DEFAULT of a
	// column added after the row was written (see missing.go).
	Missing []types.Datum
	// Prefix: rows may hold more columns than Types, of which only the
	// first len(Types) are read (see missing.go).
	Prefix bool
}

// Vnode returns the vnode of row (a full row of t). A row that does not fit
// the layout yields 0; Insert reports such rows as errors.
func (t *Table) Vnode(row []types.Datum) uint16 {
	v, _ := t.rowVnode(row)
	return v
}

func (t *Table) colType(c int) (types.Type, error) {
	if c < 0 || c >= len(t.Types) {
		return types.Type{}, fmt.Errorf("%w: table %d has no column %d", ErrBadLayout, t.ID, c)
	}
	return t.Types[c], nil
}

// rowVnode hashes the DistKey columns of a full row.
func (t *Table) rowVnode(row []types.Datum) (uint16, error) {
	if len(row) != len(t.Types) {
		return 0, fmt.Errorf("%w: table %d: row has %d columns, want %d", ErrBadLayout, t.ID, len(row), len(t.Types))
	}
	var scratch [64]byte
	buf := scratch[:0]
	for _, c := range t.DistKey {
		typ, err := t.colType(c)
		if err != nil {
			return 0, err
		}
		if buf, err = AppendKey(buf, typ, row[c]); err != nil {
			return 0, err
		}
	}
	return vnodeOfDistKey(buf), nil
}

// pkVnode hashes the DistKey columns found in pk, a prefix of the PK
// values; every DistKey column must lie within it.
func (t *Table) pkVnode(pk []types.Datum) (uint16, error) {
	var scratch [64]byte
	buf := scratch[:0]
	for _, c := range t.DistKey {
		j := t.pkPos(c)
		if j < 0 || j >= len(pk) {
			return 0, fmt.Errorf("%w: table %d: dist key column %d not within the %d given pk columns", ErrBadLayout, t.ID, c, len(pk))
		}
		typ, err := t.colType(c)
		if err != nil {
			return 0, err
		}
		if buf, err = AppendKey(buf, typ, pk[j]); err != nil {
			return 0, err
		}
	}
	return vnodeOfDistKey(buf), nil
}

func vnodeOfDistKey(enc []byte) uint16 {
	if len(enc) == 0 {
		return 0
	}
	return VnodeOfKey(enc)
}

// pkPos returns the position of column c in PK, or -1.
func (t *Table) pkPos(c int) int {
	for j, p := range t.PK {
		if p == c {
			return j
		}
	}
	return -1
}

// Key returns the storage key of a full row: two rows occupy the same
// place in the table exactly when their keys are equal.
func (t *Table) Key(row []types.Datum) ([]byte, error) { return t.appendRowKey(nil, row) }

// appendRowKey appends the key of a full row. The DistKey columns are
// encoded where the pk will go, hashed, and then overwritten: the caller's
// buffer serves both, so a reused buffer costs no allocation per row.
func (t *Table) appendRowKey(buf []byte, row []types.Datum) ([]byte, error) {
	if len(row) != len(t.Types) {
		return buf, fmt.Errorf("%w: table %d: row has %d columns, want %d", ErrBadLayout, t.ID, len(row), len(t.Types))
	}
	start := len(buf)
	buf = appendVnodePrefix(buf, t.ID, 0)
	pkStart := len(buf)
	for _, c := range t.DistKey {
		typ, err := t.colType(c)
		if err != nil {
			return buf[:start], err
		}
		if buf, err = AppendKey(buf, typ, row[c]); err != nil {
			return buf[:start], err
		}
	}
	binary.BigEndian.PutUint16(buf[pkStart-2:], vnodeOfDistKey(buf[pkStart:]))
	buf = buf[:pkStart]
	for _, c := range t.PK {
		typ, err := t.colType(c)
		if err != nil {
			return buf, err
		}
		if buf, err = AppendKey(buf, typ, row[c]); err != nil {
			return buf, fmt.Errorf("table %d pk column %d: %w", t.ID, c, err)
		}
	}
	return buf, nil
}

// appendPKKey appends the key prefix of pk values (a prefix of the PK
// columns) within one vnode.
func (t *Table) appendPKKey(buf []byte, vnode uint16, pk []types.Datum) ([]byte, error) {
	if len(pk) > len(t.PK) {
		return buf, fmt.Errorf("%w: table %d: %d pk values for %d pk columns", ErrBadLayout, t.ID, len(pk), len(t.PK))
	}
	buf = appendVnodePrefix(buf, t.ID, vnode)
	for j, d := range pk {
		typ, err := t.colType(t.PK[j])
		if err != nil {
			return buf, err
		}
		if buf, err = AppendKey(buf, typ, d); err != nil {
			return buf, fmt.Errorf("table %d pk column %d: %w", t.ID, t.PK[j], err)
		}
	}
	return buf, nil
}

// Insert stages row (inserting or overwriting the row with its pk).
func (t *Table) Insert(w *WriteBatch, row []types.Datum) error {
	var err error
	if w.key, err = t.appendRowKey(w.key[:0], row); err != nil {
		return err
	}
	if w.val, err = EncodeRow(w.val[:0], t.Types, row); err != nil {
		return fmt.Errorf("table %d: %w", t.ID, err)
	}
	return w.set(w.key, w.val)
}

// Delete stages the deletion of the row with row's pk (row is a full row;
// only its pk columns matter).
func (t *Table) Delete(w *WriteBatch, row []types.Datum) error {
	var err error
	if w.key, err = t.appendRowKey(w.key[:0], row); err != nil {
		return err
	}
	return w.delete(w.key)
}

// Get returns the row whose pk columns equal pk (len(pk) == len(PK)).
func (t *Table) Get(r Reader, pk []types.Datum) (row []types.Datum, ok bool, err error) {
	if len(pk) != len(t.PK) {
		return nil, false, fmt.Errorf("%w: table %d: get with %d pk values for %d pk columns", ErrBadLayout, t.ID, len(pk), len(t.PK))
	}
	pr, err := r.reader()
	if err != nil {
		return nil, false, err
	}
	vnode, err := t.pkVnode(pk)
	if err != nil {
		return nil, false, err
	}
	key, err := t.appendPKKey(nil, vnode, pk)
	if err != nil {
		return nil, false, err
	}
	return t.getKey(r, pr, key)
}

// getKey reads the row of key: its row key (a tombstone: none) or, in a
// table with blocks, the block row it falls in.
func (t *Table) getKey(r Reader, pr pebble.Reader, key []byte) ([]types.Datum, bool, error) {
	v, closer, err := pr.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		// Checked after the read: a read that could see blocks merges.
		if !r.owner().hasBlocks(t.ID) {
			return nil, false, nil
		}
		return t.getBlockRow(r, key)
	}
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
	}
	defer closer.Close()
	if isTombstone(v) {
		return nil, false, nil
	}
	row, err := t.DecodeRow(v, nil)
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
	}
	return row, true, nil
}

// getBlockRow reads the row of key through the merge of rows and blocks.
func (t *Table) getBlockRow(r Reader, key []byte) ([]types.Datum, bool, error) {
	it, err := t.newKV(r, key, prefixEnd(key))
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
	}
	defer it.Close()
	if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
		if err := it.Error(); err != nil {
			return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
		}
		return nil, false, nil
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
	}
	row, err := t.DecodeRow(v, nil)
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d get: %w", t.ID, err)
	}
	return row, true, nil
}
