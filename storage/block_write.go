package storage

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// WriteBlocks makes w gather the rows Add is given, rows of t in
// ascending key order, into columnar blocks (block.go) of up to
// blockMaxRows rows of one vnode each, keyed by their first row
// (block_keys.go), instead of writing a key per row. Only for a table
// that holds no key at all (HoldsNoKey) when the blocks commit, under
// the table's DML lock: blocks hold only new rows and never overlap.
// Call it before the first Add.
func (w *IngestWriter) WriteBlocks(t *Table) {
	w.blocks = &blockSink{t: t, enc: NewBlockEncoder(t.Types)}
}

// blockSink builds the blocks of an IngestWriter.
type blockSink struct {
	t     *Table
	enc   *BlockEncoder
	first []byte // the key of the pending block's first row
	key   []byte
	buf   []byte
	wrote bool // a block was written
}

// add adds a row to the pending block, writing the block first when the
// row does not belong in it.
func (b *blockSink) add(w *IngestWriter, key, value []byte) error {
	if id, ok := tableOfKey(key); !ok || id != b.t.ID {
		return fmt.Errorf("%w: key %x is not a row of table %d", ErrBadLayout, key, b.t.ID)
	}
	if n := b.enc.Rows(); n > 0 && (n >= blockMaxRows || !bytes.Equal(key[:tableKeyPrefixLen], b.first[:tableKeyPrefixLen])) {
		if err := b.flush(w); err != nil {
			return err
		}
	}
	if b.enc.Rows() == 0 {
		b.first = append(b.first[:0], key...)
	}
	if err := b.enc.Add(value); err != nil {
		return fmt.Errorf("storage: table %d block: %w", b.t.ID, err)
	}
	w.rows++
	return nil
}

// flush writes the pending block, if any.
func (b *blockSink) flush(w *IngestWriter) error {
	if b.enc.Rows() == 0 {
		return nil
	}
	if !b.wrote {
		// Before any block can commit: readers merge from now on.
		w.s.markBlocks(b.t.ID)
		b.wrote = true
	}
	b.key = appendBlockKey(b.key[:0], b.first)
	b.buf = b.enc.Finish(b.buf[:0])
	return w.add(b.key, b.buf, false)
}

// HoldsNoKey reports whether r sees no key at all in t's key range: no
// row, no block, no tombstone. A bulk load writes blocks only into such
// a table (IngestWriter.WriteBlocks).
func (t *Table) HoldsNoKey(r Reader) (bool, error) {
	pr, err := r.reader()
	if err != nil {
		return false, err
	}
	lower := appendTablePrefix(nil, t.ID)
	it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return false, fmt.Errorf("storage: table %d: %w", t.ID, err)
	}
	empty := !it.First()
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("storage: table %d: %w", t.ID, err)
	}
	return empty, nil
}
