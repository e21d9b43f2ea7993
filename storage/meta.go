package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// Meta keys are 'm' | key. Keys starting with reservedMetaPrefix belong to
// the store itself: PutMeta and DeleteMeta refuse them and ScanMeta skips
// them. The committed epoch lives there, as 8 bytes big-endian, written in
// the same Pebble batch as the epoch's state.
const reservedMetaPrefix = "\x00"

var epochKey = metaKey(reservedMetaPrefix + "committed_epoch")

func metaKey(key string) []byte {
	return append([]byte{metaPrefix}, key...)
}

func encodeEpoch(epoch uint64) []byte { return binary.BigEndian.AppendUint64(nil, epoch) }

// loadEpoch reads the committed epoch record at Open.
func (s *Store) loadEpoch() error {
	v, ok, err := s.getMeta(epochKey)
	if err != nil || !ok {
		return err
	}
	if len(v) != 8 {
		return errCorrupt("committed epoch record", "bad length")
	}
	s.epoch.Store(binary.BigEndian.Uint64(v))
	return nil
}

// CommittedEpoch returns the last committed epoch (0 for a new store).
func (s *Store) CommittedEpoch() uint64 { return s.epoch.Load() }

func checkMetaKey(key string) error {
	if strings.HasPrefix(key, reservedMetaPrefix) {
		return fmt.Errorf("storage: meta key %q is reserved", key)
	}
	return nil
}

// PutMeta durably stores a metadata value (catalog entries, id counters).
func (s *Store) PutMeta(key string, value []byte) error {
	if err := checkMetaKey(key); err != nil {
		return err
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.guard(func() error { return s.db.Set(metaKey(key), value, s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: put meta %q: %w", key, err)
	}
	return nil
}

// GetMeta reads a metadata value; ok is false when absent.
func (s *Store) GetMeta(key string) (value []byte, ok bool, err error) {
	return s.getMeta(metaKey(key))
}

func (s *Store) getMeta(k []byte) ([]byte, bool, error) {
	if s.closed.Load() {
		return nil, false, ErrClosed
	}
	v, closer, err := s.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("storage: get meta %q: %w", k[1:], err)
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// UpdateMeta durably deletes the metadata keys dels and stores puts, all
// in one write: after a crash either all of it is done or none.
func (s *Store) UpdateMeta(dels []string, puts map[string][]byte) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, k := range dels {
		if err := checkMetaKey(k); err != nil {
			return err
		}
		if err := b.Delete(metaKey(k), nil); err != nil {
			return err
		}
	}
	for k, v := range puts {
		if err := checkMetaKey(k); err != nil {
			return err
		}
		if err := b.Set(metaKey(k), v, nil); err != nil {
			return err
		}
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.guard(func() error { return b.Commit(s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: update meta: %w", err)
	}
	return nil
}

// DeleteMeta durably deletes a metadata value.
func (s *Store) DeleteMeta(key string) error {
	if err := checkMetaKey(key); err != nil {
		return err
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.guard(func() error { return s.db.Delete(metaKey(key), s.writeOpts) }); err != nil {
		return fmt.Errorf("storage: delete meta %q: %w", key, err)
	}
	return nil
}

// ScanMeta returns every metadata key/value whose key starts with prefix,
// in key order.
func (s *Store) ScanMeta(prefix string) (keys []string, values [][]byte, err error) {
	if s.closed.Load() {
		return nil, nil, ErrClosed
	}
	lower := metaKey(prefix)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return nil, nil, fmt.Errorf("storage: scan meta %q: %w", prefix, err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := string(it.Key()[1:])
		if strings.HasPrefix(k, reservedMetaPrefix) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			break
		}
		keys = append(keys, k)
		values = append(values, append([]byte(nil), v...))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, nil, fmt.Errorf("storage: scan meta %q: %w", prefix, err)
	}
	return keys, values, nil
}
