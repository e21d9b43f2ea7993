package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/streamdb/streamdb/internal/failpoint"
)

// Bulk ingestion.
//
// A statement that adds many new rows to a table (a large INSERT or COPY)
// need not stage them in an epoch's WriteBatch, where Pebble would hold
// them in memory, sort them at commit and flush them to level 0: it can
// write them, already in key order, to sstables (IngestWriter) and attach
// those to the epoch (WriteBatch.AddIngest). CommitEpoch then makes them
// part of the epoch:
//
//  1. The epoch's batch is written with Sync as always, and with it a
//     pending-ingest record naming the epoch's files (written and synced
//     to the staging directory before).
//  2. The files are ingested (Pebble links them into the LSM, at the
//     lowest level they do not overlap).
//  3. The record is deleted (Sync) and the staged files removed.
//
// A crash after 1 leaves the record: Open ingests the files again before
// anything reads the store (redo). That is safe because the files hold
// only keys the epoch adds, which no later epoch can have changed (the
// record goes before CommitEpoch returns, so no later epoch commits
// while it exists), and ingesting a key twice with the same value is no
// change. New snapshots wait from 1 to 3 (visMu), so none sees the
// epoch's other state without its ingested rows. (Reads of the Store
// itself, and through WriteBatches, which read its latest state, can:
// read tables another actor ingests into through a Snapshot.) Files staged for an
// epoch that never committed are removed at Open.
//
// The caller vouches that an ingest's keys are new and that no other
// write of the same epoch touches them (a table's DML lock gives both):
// ingested rows take a sequence number after the rest of the epoch.

// ingestFileBytes is about the largest sstable an IngestWriter writes
// before it starts another (the writer holds a bloom filter's hashes of
// every key of its file: about 10 MiB at this size).
var ingestFileBytes uint64 = 64 << 20 // a variable for tests

// ingestDirName is the staging directory, under the store's directory.
const ingestDirName = "ingest"

// pendingIngestKey is the pending-ingest record: epoch (8 bytes BE) and
// the names of its files (each a uvarint length and the bytes).
var pendingIngestKey = metaKey(reservedMetaPrefix + "pending_ingest")

// jobIngestPrefix begins the pending-ingest records of creating jobs'
// checkpoints (Store.CommitJob), one per commit (jobIngestKey), with epoch
// 0: a job's ingest is redone at Open whatever the committed epoch, which
// is safe for the same reason as an epoch's (only the job writes its keys,
// and its next commit waits for this one to return).
const jobIngestPrefix = reservedMetaPrefix + "pending_ingest/job/"

func jobIngestKey(n uint64) []byte {
	return metaKey(fmt.Sprintf("%s%016x", jobIngestPrefix, n))
}

// Ingest is a set of staged sstables holding rows for one commit. It is
// discarded (its files removed) unless a CommitEpoch takes it.
type Ingest struct {
	s      *Store
	files  []string     // names in the staging directory
	bounds []fileBounds // of files, in order
	rows   int64
	state  atomic.Int32
	// blockTables are the tables the files hold blocks of: the commit
	// records them (block_keys.go).
	blockTables []uint32
}

// fileBounds are the smallest and largest keys of a staged file.
type fileBounds struct{ first, last []byte }

// stagedFile is a staged file of a commit; bounds nil when unknown (a
// redo at Open).
type stagedFile struct {
	name   string
	bounds *fileBounds
}

const (
	ingestStaged int32 = iota
	ingestClaimed
	ingestDiscarded
)

// Rows returns the number of rows the ingest holds.
func (in *Ingest) Rows() int64 { return in.rows }

// Discard removes the ingest's files, unless a commit has taken it.
// Discarding twice is harmless.
func (in *Ingest) Discard() {
	if in == nil || !in.state.CompareAndSwap(ingestStaged, ingestDiscarded) {
		return
	}
	in.s.removeStaged(in.files)
}

// claim takes the ingest for a commit; false if it was discarded.
func (in *Ingest) claim() bool {
	return in.state.CompareAndSwap(ingestStaged, ingestClaimed)
}

// JoinIngests returns one Ingest holding the files of ins (nil ones
// skipped; nil when none holds a file), which it takes over: the caller
// commits or discards the result, not them. Their files' key ranges may
// overlap (applyIngest groups them), but not their keys.
func JoinIngests(ins ...*Ingest) *Ingest {
	var out *Ingest
	for _, in := range ins {
		if in == nil || !in.claim() {
			continue
		}
		if out == nil {
			out = &Ingest{s: in.s}
		}
		out.files = append(out.files, in.files...)
		out.bounds = append(out.bounds, in.bounds...)
		out.rows += in.rows
		for _, id := range in.blockTables {
			if !slices.Contains(out.blockTables, id) {
				out.blockTables = append(out.blockTables, id)
			}
		}
	}
	return out
}

// IngestWriter writes rows in strictly ascending key order into staged
// sstables. Not safe for concurrent use.
type IngestWriter struct {
	s      *Store
	files  []string
	bounds []fileBounds
	w      *sstable.Writer
	rows   int64
	keys   int64
	done   bool
	// blocks, when set, gathers the rows Add is given into blocks
	// (WriteBlocks).
	blocks *blockSink
}

// NewIngestWriter returns a writer of staged sstables; Finish or Abort it.
func (s *Store) NewIngestWriter() (*IngestWriter, error) {
	if err := s.writable(); err != nil {
		return nil, err
	}
	if !s.ingestDirSynced.Load() {
		if err := s.makeIngestDir(); err != nil {
			return nil, err
		}
	}
	return &IngestWriter{s: s}, nil
}

// makeIngestDir makes the staging directory, durably.
func (s *Store) makeIngestDir() error {
	if err := s.fs.MkdirAll(s.ingestDir(), 0o755); err != nil {
		return fmt.Errorf("storage: ingest staging directory: %w", err)
	}
	if err := syncDir(s.fs, s.dir); err != nil {
		return fmt.Errorf("storage: ingest staging directory: %w", err)
	}
	s.ingestDirSynced.Store(true)
	return nil
}

func syncDir(fs vfs.FS, dir string) error {
	if dir == "" {
		dir = "/" // the root of a memory FS
	}
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Store) ingestDir() string { return s.fs.PathJoin(s.dir, ingestDirName) }

func (s *Store) stagedPath(name string) string { return s.fs.PathJoin(s.ingestDir(), name) }

// Add appends a row; keys must be strictly ascending.
func (w *IngestWriter) Add(key, value []byte) error {
	if w.blocks != nil {
		return w.blocks.add(w, key, value)
	}
	w.rows++
	return w.add(key, value, false)
}

// Delete appends the deletion of key (hiding the committed row of key, if
// any); keys, those of Add included, must be strictly ascending. In a
// table with blocks the deletion is a tombstone (block_keys.go).
func (w *IngestWriter) Delete(key []byte) error {
	if w.blocks != nil {
		return fmt.Errorf("%w: a deletion among blocks", ErrBadLayout)
	}
	w.rows++
	if id, ok := tableOfKey(key); ok && w.s.hasBlocks(id) {
		return w.add(key, tombstoneValue, false)
	}
	return w.add(key, nil, true)
}

// add appends one key to the current file.
func (w *IngestWriter) add(key, value []byte, del bool) error {
	if w.w == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	var err error
	if del {
		err = w.w.Delete(key)
	} else {
		err = w.w.Set(key, value)
	}
	if err != nil {
		return fmt.Errorf("storage: ingest write: %w", err)
	}
	b := &w.bounds[len(w.bounds)-1]
	if b.first == nil {
		b.first = append([]byte(nil), key...)
	}
	b.last = append(b.last[:0], key...)
	w.keys++
	// The size estimate is not free: look every so many keys.
	if w.keys%1024 == 0 && w.w.Raw().EstimatedSize() >= ingestFileBytes {
		return w.closeFile()
	}
	return nil
}

func (w *IngestWriter) open() error {
	name := fmt.Sprintf("%06d.sst", w.s.ingestSeq.Add(1))
	f, err := w.s.fs.Create(w.s.stagedPath(name), "")
	if err != nil {
		return fmt.Errorf("storage: ingest create: %w", err)
	}
	w.files = append(w.files, name)
	w.bounds = append(w.bounds, fileBounds{})
	opts := w.s.popts.MakeWriterOptions(0, w.s.db.TableFormat())
	w.w = sstable.NewWriter(objstorageprovider.NewFileWritable(f), opts)
	return nil
}

// closeFile finishes (and syncs) the current file.
func (w *IngestWriter) closeFile() error {
	sw := w.w
	w.w = nil
	if err := sw.Close(); err != nil {
		return fmt.Errorf("storage: ingest write: %w", err)
	}
	return nil
}

// Finish ends the writer and returns its rows as an Ingest (nil when it
// holds none). The files are durable once it returns.
func (w *IngestWriter) Finish() (*Ingest, error) {
	if w.blocks != nil && !w.done {
		if err := w.blocks.flush(w); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if w.w != nil {
		if err := w.closeFile(); err != nil {
			w.Abort()
			return nil, err
		}
	}
	w.done = true
	if w.rows == 0 {
		return nil, nil
	}
	if err := w.s.syncIngestDir(); err != nil {
		w.done = false
		w.Abort()
		return nil, err
	}
	in := &Ingest{s: w.s, files: w.files, bounds: w.bounds, rows: w.rows}
	if w.blocks != nil && w.blocks.wrote {
		in.blockTables = []uint32{w.blocks.t.ID}
	}
	return in, nil
}

// Abort drops what the writer wrote. Harmless after Finish.
func (w *IngestWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.w != nil {
		_ = w.w.Close()
		w.w = nil
	}
	w.s.removeStaged(w.files)
}

func (s *Store) syncIngestDir() error {
	if err := syncDir(s.fs, s.ingestDir()); err != nil {
		return fmt.Errorf("storage: ingest sync: %w", err)
	}
	return nil
}

func (s *Store) removeStaged(files []string) {
	for _, f := range files {
		_ = s.fs.Remove(s.stagedPath(f))
	}
}

// AddIngest attaches in to the batch: committing the batch ingests it,
// and closing the batch uncommitted discards it.
func (w *WriteBatch) AddIngest(in *Ingest) error {
	if w.b == nil {
		return ErrClosed
	}
	if in.s != w.s {
		return errors.New("storage: ingest of another store")
	}
	for _, have := range w.ingests {
		if have == in {
			return nil
		}
	}
	w.ingests = append(w.ingests, in)
	return nil
}

// discardIngests discards the ingests of a batch closed uncommitted.
func (w *WriteBatch) discardIngests() {
	for _, in := range w.ingests {
		in.Discard()
	}
	w.ingests = nil
}

// claimIngests takes the ingests of batches for a commit and returns
// their files.
func claimIngests(batches []*WriteBatch) ([]stagedFile, error) {
	var files []stagedFile
	for _, w := range batches {
		if w == nil {
			continue
		}
		for _, in := range w.ingests {
			if !in.claim() {
				return nil, errors.New("storage: commit of a discarded ingest")
			}
			for i, f := range in.files {
				var b *fileBounds
				if i < len(in.bounds) {
					b = &in.bounds[i]
				}
				files = append(files, stagedFile{name: f, bounds: b})
			}
		}
	}
	return files, nil
}

func stagedNames(files []stagedFile) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	return names
}

func encodePendingIngest(epoch uint64, files []stagedFile) []byte {
	v := binary.BigEndian.AppendUint64(nil, epoch)
	for _, f := range files {
		v = binary.AppendUvarint(v, uint64(len(f.name)))
		v = append(v, f.name...)
	}
	return v
}

func decodePendingIngest(v []byte) (uint64, []string, error) {
	if len(v) < 8 {
		return 0, nil, errCorrupt("pending ingest record", "short")
	}
	epoch, v := binary.BigEndian.Uint64(v), v[8:]
	var files []string
	for len(v) > 0 {
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k) {
			return 0, nil, errCorrupt("pending ingest record", "bad name")
		}
		files = append(files, string(v[k:k+int(n)]))
		v = v[k+int(n):]
	}
	return epoch, files, nil
}

// applyIngest ingests the staged files of a committed epoch, then
// deletes the pending record and the files (steps 2 and 3 above). The
// staged files stay until the record is gone: Pebble consumes links to
// them.
//
// Pebble ingests files together only when their key ranges do not
// overlap; the files of an epoch (of several tables, or of one table's
// vnodes written by several actors) have disjoint keys but may have
// overlapping ranges, so they are ingested in groups of files whose
// ranges do not overlap (and one at a time when their bounds are
// unknown). Their keys being disjoint, the grouping does not change the
// result.
func (s *Store) applyIngest(files []stagedFile, record []byte) error {
	if failpoint.Enabled {
		if err := failpoint.Hit(failpoint.StorageIngest); err != nil {
			return err
		}
	}
	for _, group := range ingestGroups(files) {
		if err := s.ingestGroup(group); err != nil {
			return err
		}
	}
	if err := s.guard(func() error { return s.db.Delete(record, pebble.Sync) }); err != nil {
		return fmt.Errorf("storage: ingest: clearing its record: %w", err)
	}
	s.removeStaged(stagedNames(files))
	return nil
}

func (s *Store) ingestGroup(files []stagedFile) error {
	links := make([]string, len(files))
	for i, f := range files {
		links[i] = s.stagedPath(f.name + ".ingesting")
		_ = s.fs.Remove(links[i])
		if err := s.fs.Link(s.stagedPath(f.name), links[i]); err != nil {
			return fmt.Errorf("storage: ingest link: %w", err)
		}
	}
	err := s.guard(func() error { return s.db.Ingest(context.Background(), links) })
	if err != nil {
		for _, l := range links {
			_ = s.fs.Remove(l)
		}
		return fmt.Errorf("storage: ingest: %w", err)
	}
	return nil
}

// ingestGroups splits files into groups Pebble can ingest at once: files
// of known bounds, ordered by smallest key, each group taking the files
// that begin after the last one it took ends; a file of unknown bounds is
// a group of its own.
func ingestGroups(files []stagedFile) [][]stagedFile {
	var groups [][]stagedFile
	var known []stagedFile
	for _, f := range files {
		if f.bounds == nil || f.bounds.first == nil {
			groups = append(groups, []stagedFile{f})
		} else {
			known = append(known, f)
		}
	}
	slices.SortFunc(known, func(a, b stagedFile) int { return bytes.Compare(a.bounds.first, b.bounds.first) })
	for len(known) > 0 {
		var group, rest []stagedFile
		for _, f := range known {
			if len(group) == 0 || bytes.Compare(group[len(group)-1].bounds.last, f.bounds.first) < 0 {
				group = append(group, f)
			} else {
				rest = append(rest, f)
			}
		}
		groups = append(groups, group)
		known = rest
	}
	return groups
}

// recoverJobIngests redoes the ingests of creating jobs' checkpoints that
// a crash interrupted (see jobIngestPrefix).
func (s *Store) recoverJobIngests() error {
	lower := metaKey(jobIngestPrefix)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return fmt.Errorf("storage: pending job ingests: %w", err)
	}
	type pending struct {
		key   []byte
		files []stagedFile
	}
	var todo []pending
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			break
		}
		_, names, err := decodePendingIngest(v)
		if err != nil {
			_ = it.Close()
			return err
		}
		p := pending{key: append([]byte(nil), it.Key()...)}
		for _, n := range names {
			p.files = append(p.files, stagedFile{name: n})
		}
		todo = append(todo, p)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("storage: pending job ingests: %w", err)
	}
	for _, p := range todo {
		if err := s.applyIngest(p.files, p.key); err != nil {
			return fmt.Errorf("storage: redo of a job checkpoint's ingest: %w", err)
		}
	}
	return nil
}

// recoverIngest, at Open, redoes the ingest of a committed epoch that a
// crash interrupted and removes staged files no commit took.
func (s *Store) recoverIngest() error {
	v, ok, err := s.getMeta(pendingIngestKey)
	if err != nil {
		return err
	}
	if ok {
		epoch, names, err := decodePendingIngest(v)
		if err != nil {
			return err
		}
		files := make([]stagedFile, len(names))
		for i, n := range names {
			files[i] = stagedFile{name: n}
		}
		if epoch != s.epoch.Load() {
			return errCorrupt("pending ingest record", fmt.Sprintf("epoch %d, committed %d", epoch, s.epoch.Load()))
		}
		if err := s.applyIngest(files, pendingIngestKey); err != nil {
			return fmt.Errorf("storage: redo of the ingest of epoch %d: %w", epoch, err)
		}
	}
	if err := s.recoverJobIngests(); err != nil {
		return err
	}
	if err := s.fs.RemoveAll(s.ingestDir()); err != nil {
		return fmt.Errorf("storage: clearing ingest staging: %w", err)
	}
	s.ingestDirSynced.Store(false)
	return nil
}
