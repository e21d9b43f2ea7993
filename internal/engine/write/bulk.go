package write

import (
	"bytes"
	"context"
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/storage"
)

// Bulk loading: INSERT and COPY FROM stage their rows (copyStage) with
// each row's storage key and encoded value, sorted by key (keySorter).
// At commit, under the table's DML lock, one walk of the sorted keys
// checks them (duplicates within the statement meet as neighbours; a
// KeyProbe walks the table's committed keys in the same order) and, for
// a statement of at least ingestMinRows rows, writes the rows to sstables
// as it goes (storage.IngestWriter; in several ranges of vnodes side by
// side: bulk_parts.go). The staged chunks then go into the
// table's source as always, so that views over the table see every row,
// but carrying the ingest (stream.Message.Ingest): the table's actor
// attaches it to the epoch instead of writing the rows again, and the
// epoch's commit ingests the files (storage/ingest.go). No step holds
// the whole statement in memory, and Pebble never sorts or flushes a
// batch of it.

// ingestMinRows is how many rows a statement adds, at least, for them to
// be ingested rather than written through the epoch's batch (where a
// small statement costs less: no files, no extra syncs). A variable so
// tests can send small statements through the ingest path.
var ingestMinRows int64 = 16 << 10

// checkStaged walks the staged keys of the lines up to lastLine in key
// order and returns the first line (as PostgreSQL would report, inserting
// in order) whose key repeats an earlier line's or, when probe is set, a
// committed row's, and its encoded row; badLine is -1 when there is none.
// While no line is bad it writes the rows to w, when w is not nil.
func (t *dmlTarget) checkStaged(ctx context.Context, keys *keySorter, lastLine int64, probe bool, w *storage.IngestWriter) (badRow []byte, badLine int64, err error) {
	kp, err := t.keyProbe(probe)
	if err != nil {
		return nil, -1, err
	}
	if kp != nil {
		defer kp.Close()
	}
	return checkKeys(ctx, keys.merge(), lastLine, kp, w)
}

// keyProbe returns a probe of the table's committed keys when probe is
// set and the table is not empty, else nil.
func (t *dmlTarget) keyProbe(probe bool) (*storage.KeyProbe, error) {
	if !probe {
		return nil, nil
	}
	empty, err := t.snapEmpty()
	if err != nil || empty {
		return nil, err
	}
	return t.layout.NewKeyProbe(t.snap)
}

// checkKeys is checkStaged over the keys of m, probing kp (when not nil)
// for committed keys.
func checkKeys(ctx context.Context, m keyCursor, lastLine int64, kp *storage.KeyProbe, w *storage.IngestWriter) (badRow []byte, badLine int64, err error) {
	var prev []byte
	badLine = -1
	for i := int64(1); m.next(); i++ {
		if err := ctxEvery(ctx, i); err != nil {
			return nil, -1, pgerr.As(err)
		}
		key, line := m.key(), m.line()
		if line > lastLine {
			continue
		}
		bad := false
		if prev != nil && bytes.Equal(key, prev) {
			bad = true // a later line with an earlier line's key
		} else {
			prev = append(prev[:0], key...)
			if kp != nil {
				if bad, err = kp.Has(key); err != nil {
					return nil, -1, err
				}
			}
		}
		if bad && (badLine < 0 || line < badLine) {
			badLine, badRow = line, append(badRow[:0], m.value()...)
		}
		if w != nil && badLine < 0 {
			if err := w.Add(key, m.value()); err != nil {
				return nil, -1, err
			}
		}
	}
	return badRow, badLine, m.err()
}

// commitStaged checks the rows of stage and sends them into the table
// (see commitStream), ingesting them when there are enough. dup makes the
// error of the first bad line from its encoded row; check says whether keys need checking
// (they do not for generated row ids). beforeSend, if not nil, runs once
// the rows are checked.
func (t *dmlTarget) commitStaged(ctx context.Context, stage *copyStage, check bool, dup func(row []byte, line int64) error, beforeSend func()) error {
	if _, src, ok := t.w.e.Table(t.rel.ID); ok && stage.rows >= ingestMinRows && src != nil && src.Ingests {
		in, badRow, badLine, err := t.ingestStaged(ctx, stage.keys, stage.rows, check)
		if err != nil {
			return err
		}
		if badLine >= 0 {
			return dup(badRow, badLine)
		}
		// A no-op once a commit has taken it.
		defer in.Discard()
		t.ingest = in
	} else if check {
		badRow, badLine, err := t.checkStaged(ctx, stage.keys, math.MaxInt64, check, nil)
		if err != nil {
			return err
		}
		if badLine >= 0 {
			return dup(badRow, badLine)
		}
	}
	if beforeSend != nil {
		beforeSend()
	}
	return t.commitStream(ctx, stage.rows, stage.chunks())
}

// rowDuplicate is the unique violation of the staged row encoded as
// encoded. The message shows the key as the statement wrote it (as
// PostgreSQL does): the storage key would show it normalized ('1 mon' for
// '720 hours', 1 for 1.00).
func (t *dmlTarget) rowDuplicate(encoded []byte) error {
	row, err := t.layout.DecodeRow(encoded, nil)
	if err != nil {
		return err
	}
	return t.duplicate(row)
}
