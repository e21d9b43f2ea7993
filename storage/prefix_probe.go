package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// AppendPrefixKey appends the key prefix shared by the rows whose first
// len(prefix) pk columns equal prefix: the rows ScanPrefix(prefix) finds.
// The prefix must cover the DistKey columns, as for ScanPrefix.
func (t *Table) AppendPrefixKey(buf []byte, prefix []types.Datum) ([]byte, error) {
	if !t.distLeadsPK() || len(prefix) < len(t.DistKey) {
		vnode, err := t.pkVnode(prefix)
		if err != nil {
			return buf, err
		}
		return t.appendPKKey(buf, vnode, prefix)
	}
	// The DistKey columns lead the pk: their encoding, which the vnode
	// hashes, is the start of the prefix's.
	start := len(buf)
	buf, err := t.appendPKKey(buf, 0, prefix[:len(t.DistKey)])
	if err != nil {
		return buf[:start], err
	}
	pkStart := start + tableKeyPrefixLen
	binary.BigEndian.PutUint16(buf[pkStart-2:], vnodeOfDistKey(buf[pkStart:]))
	for j := len(t.DistKey); j < len(prefix); j++ {
		typ, err := t.colType(t.PK[j])
		if err != nil {
			return buf[:start], err
		}
		if buf, err = AppendKey(buf, typ, prefix[j]); err != nil {
			return buf[:start], fmt.Errorf("table %d pk column %d: %w", t.ID, t.PK[j], err)
		}
	}
	return buf, nil
}

// distLeadsPK reports whether the DistKey columns are the leading PK
// columns, in order.
func (t *Table) distLeadsPK() bool {
	if len(t.DistKey) > len(t.PK) {
		return false
	}
	for i, c := range t.DistKey {
		if t.PK[i] != c {
			return false
		}
	}
	return true
}

// PrefixProbe finds rows by pk prefix (keys made by AppendPrefixKey) with
// one iterator for many lookups: a batch of lookups asked in ascending key
// order costs one forward walk with short seeks, instead of an iterator
// made, positioned and closed per lookup (ScanPrefix). It sees the table as
// r did when the probe was made. Not safe for concurrent use; Close it.
type PrefixProbe struct {
	t     *Table
	it    kvIter
	empty bool
	row   []types.Datum
	// sought is the key GetAscending last sought, when ascending: the
	// iterator is then at the first row at or after it (valid: there is
	// one). Get and Scan reposition the iterator and clear ascending.
	sought    []byte
	ascending bool
	valid     bool
}

// NewPrefixProbe returns a probe over the table's rows as r sees them now.
func (t *Table) NewPrefixProbe(r Reader) (*PrefixProbe, error) {
	it, empty, err := t.probeIter(r)
	if err != nil {
		return nil, err
	}
	return &PrefixProbe{t: t, it: it, empty: empty}, nil
}

// Empty reports whether the table held no rows when the probe was made.
func (p *PrefixProbe) Empty() bool { return p.empty }

// Scan calls fn with each row whose key starts with key, in pk order. The
// row is valid only during the call.
func (p *PrefixProbe) Scan(key []byte, fn func(row []types.Datum) error) error {
	return p.ScanKeys(key, func(_ []byte, row []types.Datum) error { return fn(row) })
}

// ScanKeys is Scan, and fn is also given each row's key (valid, like the
// row, only during the call).
func (p *PrefixProbe) ScanKeys(key []byte, fn func(key []byte, row []types.Datum) error) error {
	if p.empty {
		return nil
	}
	p.ascending = false
	for ok := p.it.SeekGE(key); ok && bytes.HasPrefix(p.it.Key(), key); ok = p.it.Next() {
		v, err := p.it.ValueAndErr()
		if err == nil {
			p.row, err = p.t.DecodeRow(v, p.row)
		}
		if err != nil {
			return fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
		}
		if err := fn(p.it.Key(), p.row); err != nil {
			return err
		}
	}
	if err := p.it.Error(); err != nil {
		return fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
	}
	return nil
}

// Get calls fn with the row whose key is key, a whole key (AppendPrefixKey
// of every pk value), if there is one: a point lookup, which skips the
// files whose bloom filter rules the key out (Scan must seek into every
// level). The row is valid only during the call.
func (p *PrefixProbe) Get(key []byte, fn func(row []types.Datum) error) error {
	if p.empty {
		return nil
	}
	p.ascending = false
	if p.it.SeekPrefixGE(key) && bytes.Equal(p.it.Key(), key) {
		v, err := p.it.ValueAndErr()
		if err == nil {
			p.row, err = p.t.DecodeRow(v, p.row)
		}
		if err != nil {
			return fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
		}
		return fn(p.row)
	}
	if err := p.it.Error(); err != nil {
		return fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
	}
	return nil
}

// ascendingSteps bounds the rows GetAscending steps over before it seeks.
const ascendingSteps = 8

// GetAscending is Get for lookups asked in ascending key order, as a join
// probes a chunk's keys: it steps the iterator forward to the key when
// the key lies a few rows past the last one sought, and seeks only
// otherwise. The keys of a chunk are often a run of neighbouring rows
// (a snapshot read in key order, an UPDATE of a range of ids), and a
// step costs a fraction of a seek, which positions every level of the
// LSM. A key below the last one sought is sought afresh.
func (p *PrefixProbe) GetAscending(key []byte, fn func(row []types.Datum) error) error {
	row, found, err := p.GetAscendingInto(key, p.row)
	p.row = row
	if err != nil || !found {
		return err
	}
	return fn(row)
}

// GetAscendingInto is GetAscending that decodes the row, if there is
// one, into dst's backing array when it has room (as DecodeRow does) and
// returns it: a caller that keeps the rows it finds (a join's probe of a
// chunk) decodes each straight into its store of them, with no copy.
func (p *PrefixProbe) GetAscendingInto(key []byte, dst []types.Datum) (row []types.Datum, found bool, err error) {
	if p.empty {
		return dst, false, nil
	}
	ok := p.valid
	switch {
	case !p.ascending || bytes.Compare(key, p.sought) < 0:
		ok = p.it.SeekGE(key)
	default:
		// The iterator is at the first row at or after p.sought <= key.
		for steps := 0; ok && bytes.Compare(p.it.Key(), key) < 0; steps++ {
			if steps == ascendingSteps {
				ok = p.it.SeekGE(key)
				break
			}
			ok = p.it.Next()
		}
	}
	p.sought, p.valid, p.ascending = append(p.sought[:0], key...), ok, true
	if ok && bytes.Equal(p.it.Key(), key) {
		v, err := p.it.ValueAndErr()
		if err == nil {
			dst, err = p.t.DecodeRow(v, dst)
		}
		if err != nil {
			return dst, false, fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
		}
		return dst, true, nil
	}
	if err := p.it.Error(); err != nil {
		p.ascending = false
		return dst, false, fmt.Errorf("storage: table %d probe: %w", p.t.ID, err)
	}
	return dst, false, nil
}

// Close releases the probe.
func (p *PrefixProbe) Close() error { return p.it.Close() }
