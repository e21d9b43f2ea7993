package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// AppendRowKey appends the storage key of a full row (see Key) to buf.
// Only the row's DistKey and PK columns are read.
func (t *Table) AppendRowKey(buf []byte, row []types.Datum) ([]byte, error) {
	return t.appendRowKey(buf, row)
}

// KeyProbe tells which keys exist in a table, best for keys asked in
// ascending order: it walks one iterator forward, so a sorted batch of lookups costs
// about one pass over the keys' neighbourhoods rather than a point read
// each. Not safe for concurrent use; Close it.
type KeyProbe struct {
	it    kvIter
	empty bool
}

// NewKeyProbe returns a probe over the table's rows as r sees them.
func (t *Table) NewKeyProbe(r Reader) (*KeyProbe, error) {
	it, empty, err := t.probeIter(r)
	if err != nil {
		return nil, err
	}
	p := &KeyProbe{it: it, empty: empty}
	return p, nil
}

// Empty reports whether the table held no rows when the probe was made.
func (p *KeyProbe) Empty() bool { return p.empty }

// Has reports whether key exists. Keys asked in ascending order cost a
// short step each; any order is correct.
func (p *KeyProbe) Has(key []byte) (bool, error) {
	if p.empty {
		return false, nil
	}
	// Pebble turns a seek past the previous one into a short step forward.
	if !p.it.SeekGE(key) {
		return false, p.it.Error()
	}
	return bytes.Equal(p.it.Key(), key), nil
}

// Close releases the probe.
func (p *KeyProbe) Close() error { return p.it.Close() }

// probeIter returns an iterator over all of the table's rows as r sees
// them, positioned at the first; empty says there is none.
func (t *Table) probeIter(r Reader) (it kvIter, empty bool, err error) {
	lower := appendTablePrefix(nil, t.ID)
	it, err = t.newKV(r, lower, prefixEnd(lower))
	if errors.Is(err, ErrClosed) || errors.Is(err, ErrWriteOnly) {
		return nil, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("storage: table %d probe: %w", t.ID, err)
	}
	empty = !it.First()
	if err := it.Error(); err != nil {
		it.Close()
		return nil, false, fmt.Errorf("storage: table %d probe: %w", t.ID, err)
	}
	return it, empty, nil
}
