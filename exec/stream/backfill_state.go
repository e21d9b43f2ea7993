package stream

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// BackfillTables are the two state tables of one backfilling scan.
//
// Progress: one row per vnode (vnode smallint PK, done boolean, last_pk
// text holding the row encoding of the last pk emitted, rows bigint), plus
// a job row at vnode -1 whose done column says the snapshot is finished.
//
// Log: the upstream changes that arrived after the snapshot's epoch, in
// arrival order: (seq bigint PK, op smallint, vnode smallint, the upstream
// row's columns...).
type BackfillTables struct {
	Progress *storage.Table
	Log      *storage.Table
}

// NumBackfillTables is how many state table ids a scan needs.
const NumBackfillTables = 2

// NewBackfillTables returns the layouts for a scan of upstream with the
// given state table ids.
func NewBackfillTables(ids []uint32, upstream *storage.Table) *BackfillTables {
	prog := &storage.Table{ID: ids[0],
		Types: []types.Type{types.TInt16, types.TBool, types.TText, types.TInt64}, PK: []int{0}}
	logTypes := append([]types.Type{types.TInt64, types.TInt16, types.TInt16}, upstream.Types...)
	log := &storage.Table{ID: ids[1], Types: logTypes, PK: []int{0}}
	return &BackfillTables{Progress: prog, Log: log}
}

// jobRow is the vnode of the progress row that describes the whole scan.
const jobRow = -1

// logHeader is the number of columns before the row in a log entry.
const logHeader = 3

type vnodeProgress struct {
	done   bool
	lastPK []types.Datum // nil: nothing emitted yet
	rows   int64
	dirty  bool
}

// backfillState is a scan's progress, loaded from and saved to its tables.
type backfillState struct {
	tables       *BackfillTables
	upstream     *storage.Table
	pkTypes      []types.Type
	vnodes       [storage.NumVnodes]vnodeProgress
	fresh        bool // nothing was persisted: a new backfill
	snapshotDone bool
	dirtyJob     bool
	rowsRead     int64
	vnodesDone   int
	nextSeq      int64 // seq of the next log entry
	readSeq      int64 // seq of the next entry to replay
	logPending   int64
	row          []types.Datum
}

func loadBackfillState(r storage.Reader, t *BackfillTables, upstream *storage.Table) (*backfillState, error) {
	p := &backfillState{tables: t, upstream: upstream, fresh: true}
	for _, c := range upstream.PK {
		p.pkTypes = append(p.pkTypes, upstream.Types[c])
	}
	it := t.Progress.Scan(r)
	for it.Next() {
		if err := p.loadRow(it.Row()); err != nil {
			it.Close()
			return nil, err
		}
	}
	if err := closeIter(it); err != nil {
		return nil, err
	}
	return p, p.loadLogBounds(r)
}

func closeIter(it storage.Iterator) error {
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *backfillState) loadRow(row []types.Datum) error {
	p.fresh = false
	v := int(row[0].(int64))
	if v == jobRow {
		p.snapshotDone = row[1].(bool)
		return nil
	}
	vp := &p.vnodes[v]
	vp.done = row[1].(bool)
	vp.rows = row[3].(int64)
	p.rowsRead += vp.rows
	if vp.done {
		p.vnodesDone++
	}
	if s, ok := row[2].(string); ok && s != "" {
		pk, err := storage.DecodeRow([]byte(s), p.pkTypes, nil)
		if err != nil {
			return fmt.Errorf("stream: corrupt backfill progress of vnode %d: %w", v, err)
		}
		vp.lastPK = pk
	}
	return nil
}

// loadLogBounds finds the first and next sequence numbers of the log.
func (p *backfillState) loadLogBounds(r storage.Reader) error {
	it := p.tables.Log.Scan(r)
	first := true
	for it.Next() {
		seq := it.Row()[0].(int64)
		if first {
			p.readSeq, first = seq, false
		}
		p.nextSeq = seq + 1
		p.logPending++
	}
	return closeIter(it)
}

// save writes the changed progress rows.
func (p *backfillState) save(w *storage.WriteBatch) error {
	if p.dirtyJob || p.fresh {
		if err := p.tables.Progress.Insert(w, []types.Datum{int64(jobRow), p.snapshotDone, "", int64(0)}); err != nil {
			return err
		}
		p.dirtyJob, p.fresh = false, false
	}
	for v := range p.vnodes {
		vp := &p.vnodes[v]
		if !vp.dirty {
			continue
		}
		var last types.Datum
		if vp.lastPK != nil {
			enc, err := storage.EncodeRow(nil, p.pkTypes, vp.lastPK)
			if err != nil {
				return err
			}
			last = string(enc)
		}
		if err := p.tables.Progress.Insert(w, []types.Datum{int64(v), vp.done, last, vp.rows}); err != nil {
			return err
		}
		vp.dirty = false
	}
	return nil
}

// advance records that row of vnode v was emitted.
func (p *backfillState) advance(v int, row []types.Datum) error {
	vp := &p.vnodes[v]
	if vp.lastPK == nil {
		vp.lastPK = make([]types.Datum, len(p.pkTypes))
	}
	for i, c := range p.upstream.PK {
		vp.lastPK[i] = row[c]
	}
	vp.rows++
	vp.dirty = true
	p.rowsRead++
	return nil
}

func (p *backfillState) finishVnode(v int) {
	vp := &p.vnodes[v]
	vp.done, vp.dirty = true, true
	p.vnodesDone++
}

// estimateTotal estimates the snapshot's rows from the vnodes done so far
// (rows hash evenly over vnodes); exact once every vnode is done.
func (p *backfillState) estimateTotal() int64 {
	if p.snapshotDone || p.vnodesDone == storage.NumVnodes {
		return p.rowsRead
	}
	if p.vnodesDone == 0 {
		return 0
	}
	var doneRows int64
	for v := range p.vnodes {
		if p.vnodes[v].done {
			doneRows += p.vnodes[v].rows
		}
	}
	est := doneRows * storage.NumVnodes / int64(p.vnodesDone)
	if est < p.rowsRead {
		est = p.rowsRead
	}
	return est
}

// appendLog appends one upstream change to the log store.
func (p *backfillState) appendLog(w *storage.WriteBatch, op chunk.Op, row []types.Datum) error {
	p.row = append(p.row[:0], p.nextSeq, int64(op), int64(p.upstream.Vnode(row)))
	p.row = append(p.row, row...)
	if err := p.tables.Log.Insert(w, p.row); err != nil {
		return err
	}
	p.nextSeq++
	p.logPending++
	return nil
}

// consumeLog reads up to n logged changes in order into a chunk, deleting
// them; nil when the log is empty.
func (p *backfillState) consumeLog(w *storage.WriteBatch, b *chunk.Builder, n int) (*chunk.Chunk, error) {
	var after []types.Datum
	if p.readSeq > 0 {
		after = []types.Datum{p.readSeq - 1}
	}
	it := p.tables.Log.ScanVnode(w, 0, after)
	for b.Len() < n && it.Next() {
		row := it.Row()
		b.Append(chunk.Op(row[1].(int64)), row[logHeader:])
		if err := p.tables.Log.Delete(w, row); err != nil {
			it.Close()
			return nil, err
		}
		p.readSeq = row[0].(int64) + 1
		p.logPending--
	}
	if err := closeIter(it); err != nil {
		return nil, err
	}
	if b.Len() == 0 {
		return nil, nil
	}
	return b.Build(), nil
}

// purgeCovered deletes, at resume, the log entries whose rows the new
// snapshot will read anyway: those of unfinished vnodes with a pk past the
// vnode's position.
func (p *backfillState) purgeCovered(w *storage.WriteBatch) error {
	it := p.tables.Log.Scan(w)
	var doomed [][]types.Datum
	for it.Next() {
		row := it.Row()
		vp := &p.vnodes[int(row[2].(int64))]
		if vp.done {
			continue
		}
		covered, err := p.pastPosition(vp, row[logHeader:])
		if err != nil {
			it.Close()
			return err
		}
		if covered {
			doomed = append(doomed, append([]types.Datum(nil), row...))
		}
	}
	if err := closeIter(it); err != nil {
		return err
	}
	for _, row := range doomed {
		if err := p.tables.Log.Delete(w, row); err != nil {
			return err
		}
		p.logPending--
	}
	return nil
}

// pastPosition reports whether row's pk sorts after the vnode's last
// emitted pk (always, when nothing was emitted).
func (p *backfillState) pastPosition(vp *vnodeProgress, row []types.Datum) (bool, error) {
	if vp.lastPK == nil {
		return true, nil
	}
	var a, b []byte
	var err error
	for i, c := range p.upstream.PK {
		if a, err = storage.AppendKey(a, p.pkTypes[i], row[c]); err != nil {
			return false, err
		}
		if b, err = storage.AppendKey(b, p.pkTypes[i], vp.lastPK[i]); err != nil {
			return false, err
		}
	}
	return bytes.Compare(a, b) > 0, nil
}

// Backfill phases as SHOW JOBS reports them.
const (
	// PhaseStarting: the scan has not yet loaded its persisted progress.
	PhaseStarting = "starting"
	PhaseSnapshot = "snapshot"
	PhaseLogStore = "log store"
	PhaseDone     = "finishing"
)

// BackfillProgress is a scan's live progress, written by its actor and read
// by SHOW JOBS. Done is closed when the scan has caught up.
type BackfillProgress struct {
	mu        sync.Mutex
	phase     string
	rowsRead  int64
	rowsTotal int64
	logLag    int64
	done      chan struct{}
	closed    atomic.Bool
}

// NewBackfillProgress returns progress of a scan that has not started.
func NewBackfillProgress() *BackfillProgress {
	return &BackfillProgress{phase: PhaseStarting, done: make(chan struct{})}
}

func (b *BackfillProgress) set(phase string, read, total, lag int64) {
	b.mu.Lock()
	b.phase, b.rowsRead, b.rowsTotal, b.logLag = phase, read, total, lag
	b.mu.Unlock()
	if phase == PhaseDone && b.closed.CompareAndSwap(false, true) {
		close(b.done)
	}
}

// Snapshot returns the phase, rows read, estimated rows total and the
// number of logged changes not yet replayed.
func (b *BackfillProgress) Snapshot() (phase string, read, total, lag int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.phase, b.rowsRead, b.rowsTotal, b.logLag
}

// Done is closed once the scan follows its upstream directly.
func (b *BackfillProgress) Done() <-chan struct{} { return b.done }
