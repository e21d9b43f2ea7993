package stream

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// BackfillTables are the two state tables of one backfilling scan. A
// scan of parallelism N runs as N actors that share the tables, each
// reading and writing only the rows of the upstream vnodes it owns, so the
// progress and the logged changes of a vnode can move to another actor
// with the vnode (I4).
//
// Progress: one row per upstream vnode (vnode smallint PK, done boolean,
// last_pk text holding the row encoding of the last pk emitted, rows
// bigint). (Stores written before scans ran in parallel also hold a row
// at vnode -1; it is ignored.)
//
// Log: the upstream changes that arrived after the snapshot's epoch:
// (seq bigint, op smallint, vnode smallint, the upstream row's
// columns...), distributed like the upstream (DistKey: the upstream's
// DistKey columns), so the entries of upstream vnode v are stored in vnode
// v, ordered by seq (PK: seq, then the DistKey columns). seq grows in
// arrival order within an actor and is unique within a vnode.
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
	dist := make([]int, len(upstream.DistKey))
	for i, c := range upstream.DistKey {
		dist[i] = logHeader + c
	}
	log := &storage.Table{ID: ids[1], Types: logTypes, PK: append([]int{0}, dist...), DistKey: dist}
	return &BackfillTables{Progress: prog, Log: log}
}

// legacyJobRow is the vnode of the progress row older stores kept for the
// whole scan.
const legacyJobRow = -1

// logHeader is the number of columns before the row in a log entry.
const logHeader = 3

type vnodeProgress struct {
	done   bool
	lastPK []types.Datum // nil: nothing emitted yet
	rows   int64
	dirty  bool
	// logRead is the seq of the vnode's last log entry replayed (-1:
	// none yet), to resume the next replay after.
	logRead int64
}

// backfillState is the progress of the scan actor that owns the vnodes
// in owned, loaded from and saved to the tables.
type backfillState struct {
	tables       *BackfillTables
	upstream     *storage.Table
	pkTypes      []types.Type
	owned        []uint16 // ascending
	vnodes       [storage.NumVnodes]vnodeProgress
	fresh        bool // nothing was persisted: a new backfill
	snapshotDone bool
	rowsRead     int64
	vnodesDone   int
	logWaiting   int64 // log entries waiting when the scan loaded
	logRead      int64 // log entries replayed since
	// logCols are the columns of the log entries replayed that are
	// decoded (nil: all; see logReads).
	logCols []bool
	replay  int // index in owned of the vnode being replayed
	visited int // vnodes read to their end in the current round
	// epoch is the running graph's epoch whose upstream state the scan
	// has emitted: the pinned snapshot's, then the epoch at which it last
	// found the log store drained.
	epoch uint64
	// splitsTotal, for a source backfill, is the number of offsets in
	// its range (split_backfill.go), 0 when unknown: every offset,
	// markers and malformed messages included, so an estimate.
	splitsTotal int64
}

func loadBackfillState(r storage.Reader, t *BackfillTables, upstream *storage.Table, owned storage.VnodeBitmap) (*backfillState, error) {
	p := &backfillState{tables: t, upstream: upstream, fresh: true, owned: owned.Vnodes()}
	for _, c := range upstream.PK {
		p.pkTypes = append(p.pkTypes, upstream.Types[c])
	}
	it := t.Progress.Scan(r)
	for it.Next() {
		if err := p.loadRow(it.Row(), &owned); err != nil {
			it.Close()
			return nil, err
		}
	}
	if err := closeIter(it); err != nil {
		return nil, err
	}
	p.snapshotDone = p.vnodesDone == len(p.owned)
	if p.fresh {
		// The first save writes every owned vnode's row, so a restart
		// knows the backfill had started.
		for _, v := range p.owned {
			p.vnodes[v].dirty = true
		}
	}
	return p, p.loadLog(r)
}

func closeIter(it storage.Iterator) error {
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *backfillState) loadRow(row []types.Datum, owned *storage.VnodeBitmap) error {
	v := int(row[0].(int64))
	if v == legacyJobRow || !owned.Has(uint16(v)) {
		return nil
	}
	p.fresh = false
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

// loadLog sets every owned vnode's replay position to its start and
// counts the entries waiting (for SHOW JOBS).
func (p *backfillState) loadLog(r storage.Reader) error {
	for _, v := range p.owned {
		p.vnodes[v].logRead = -1
		it := p.tables.Log.ScanVnode(r, v, nil)
		for it.Next() {
			p.logWaiting++
		}
		if err := closeIter(it); err != nil {
			return err
		}
	}
	return nil
}

// save writes the changed progress rows.
func (p *backfillState) save(w *storage.WriteBatch) error {
	for _, v := range p.owned {
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
	p.fresh = false
	return nil
}

// advance records that n rows of vnode v were emitted, row (a full
// upstream row) the last of them.
func (p *backfillState) advance(v int, row []types.Datum, n int64) {
	vp := &p.vnodes[v]
	if vp.lastPK == nil {
		vp.lastPK = make([]types.Datum, len(p.pkTypes))
	}
	for i, c := range p.upstream.PK {
		vp.lastPK[i] = row[c]
	}
	vp.rows += n
	vp.dirty = true
	p.rowsRead += n
}

func (p *backfillState) finishVnode(v int) {
	vp := &p.vnodes[v]
	vp.done, vp.dirty = true, true
	p.vnodesDone++
}

// estimateTotal estimates the snapshot rows of the owned vnodes from the
// vnodes done so far (rows hash evenly over vnodes); exact once every
// owned vnode is done.
func (p *backfillState) estimateTotal() int64 {
	if p.snapshotDone || p.vnodesDone == len(p.owned) {
		return p.rowsRead
	}
	if p.splitsTotal > 0 {
		// The range's offsets, of the owned vnodes' share (row ids hash
		// evenly over vnodes).
		return max(p.rowsRead, p.splitsTotal*int64(len(p.owned))/storage.NumVnodes)
	}
	if p.vnodesDone == 0 {
		return 0
	}
	var doneRows int64
	for _, v := range p.owned {
		if p.vnodes[v].done {
			doneRows += p.vnodes[v].rows
		}
	}
	est := doneRows * int64(len(p.owned)) / int64(p.vnodesDone)
	if est < p.rowsRead {
		est = p.rowsRead
	}
	return est
}

// consumeLog reads up to n logged changes into a chunk (nil: none),
// deleting them. It replays vnode by vnode, each vnode's changes in
// arrival order: changes of different vnodes concern different upstream
// keys, and every operator's result is independent of how the changes of
// different keys interleave. A round visits every owned vnode once and
// reads each to the end of what it sees then; round reports that this
// call ended one: every entry committed before the round began has been
// read. (A LogWriter appends as epochs commit, so "the log is empty" may
// never be seen while writes go on; a round always ends.)
func (p *backfillState) consumeLog(w *storage.WriteBatch, b *chunk.Builder, n int) (c *chunk.Chunk, round bool, err error) {
	for b.Len() < n && !round {
		full, err := p.consumeVnode(w, b, p.owned[p.replay], n)
		if err != nil {
			return nil, false, err
		}
		if full {
			break // the vnode may hold more
		}
		p.replay = (p.replay + 1) % len(p.owned)
		if p.visited++; p.visited == len(p.owned) {
			p.visited, round = 0, true
		}
	}
	if b.Len() == 0 {
		return nil, round, nil
	}
	return b.Build(), round, nil
}

// consumeVnode replays logged changes of vnode v into b, up to n rows in
// b; full reports that it stopped because b is full.
func (p *backfillState) consumeVnode(w *storage.WriteBatch, b *chunk.Builder, v uint16, n int) (full bool, err error) {
	vp := &p.vnodes[v]
	var after []types.Datum
	if vp.logRead >= 0 {
		after = []types.Datum{vp.logRead}
	}
	it := p.tables.Log.ScanVnode(w, v, after)
	if ci, ok := it.(storage.ColumnIterator); ok && p.logCols != nil {
		ci.ReadColumns(p.logCols, false)
	}
	// An update pair is never cut between two chunks (its halves share a
	// vnode, see LogWriter.log, and are logged one after the other): a
	// chunk stops one row short rather than end with an UpdateDelete,
	// and takes a pair whole when it would otherwise stay empty.
	last := chunk.Insert
	for it.Next() {
		if b.Len() >= n && last != chunk.UpdateDelete {
			full = true
			break
		}
		row := it.Row()
		op := chunk.Op(row[1].(int64))
		if op == chunk.UpdateDelete && b.Len() == n-1 && b.Len() > 0 {
			full = true
			break
		}
		last = op
		b.Append(op, row[logHeader:])
		if err := p.tables.Log.Delete(w, row); err != nil {
			it.Close()
			return false, err
		}
		vp.logRead = row[0].(int64)
		p.logRead++
	}
	return full, closeIter(it)
}

// purgeCovered deletes, at resume, the log entries whose rows the new
// snapshot will read anyway: those of unfinished vnodes with a pk past the
// vnode's position.
// r is the snapshot the scan resumes from: entries committed after it are
// not covered.
func (p *backfillState) purgeCovered(r storage.Reader, w *storage.WriteBatch) error {
	for _, v := range p.owned {
		vp := &p.vnodes[v]
		if vp.done {
			continue
		}
		if err := p.purgeVnode(r, w, v, vp); err != nil {
			return err
		}
	}
	return nil
}

func (p *backfillState) purgeVnode(r storage.Reader, w *storage.WriteBatch, v uint16, vp *vnodeProgress) error {
	it := p.tables.Log.ScanVnode(r, v, nil)
	var doomed [][]types.Datum
	for it.Next() {
		row := it.Row()
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
		p.logWaiting--
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
	// logged counts the log entries the scan's LogWriter appended since
	// the scan started (an epoch's, once its barrier passed the writer).
	logged atomic.Int64
	// throttled is the time (nanoseconds) the scan waited for its rate
	// limit: the adaptive rate's trace tells by it whether the rate held
	// the scan back (see traceAdapt).
	throttled atomic.Int64
	// epoch is the running graph's epoch whose upstream state the scan
	// has emitted, and drained whether it found the log store empty
	// since its job's barrier before the last.
	epoch   atomic.Uint64
	drained atomic.Bool
	// caughtUp: the scan drained the log store since its job's last
	// barrier, which the next one publishes (drained).
	caughtUp atomic.Bool
	// resumedAt is the phase and rows read loaded from persisted progress
	// when the scan started (its committed position then).
	resumedPhase string
	resumedRead  int64
	done         chan struct{}
	closed       atomic.Bool
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

// setEpoch publishes, at a job barrier, the running graph's epoch the
// scan has caught up with and whether it drained the log store.
func (b *BackfillProgress) setEpoch(epoch uint64, drained bool) {
	b.epoch.Store(epoch)
	b.drained.Store(drained)
	b.caughtUp.Store(false)
}

// Epoch returns the running graph's epoch whose upstream state the scan
// has emitted (0 before it loaded).
func (b *BackfillProgress) Epoch() uint64 { return b.epoch.Load() }

// Drained reports whether the scan, in the log-store phase, found the log
// empty between its job's last two barriers.
func (b *BackfillProgress) Drained() bool { return b.drained.Load() }

// markResumed records the scan's position as loaded from persisted
// progress.
func (b *BackfillProgress) markResumed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resumedPhase, b.resumedRead = b.phase, b.rowsRead
}

// Resumed returns the phase and rows read the scan started from, loaded
// from persisted (committed) progress; phase is PhaseStarting until the
// scan has loaded it.
func (b *BackfillProgress) Resumed() (phase string, read int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.resumedPhase == "" {
		return PhaseStarting, 0
	}
	return b.resumedPhase, b.resumedRead
}

// Snapshot returns the phase, rows read, estimated rows total and the
// number of logged changes not yet replayed.
func (b *BackfillProgress) Snapshot() (phase string, read, total, lag int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lag = 0
	if b.phase != PhaseDone {
		// logLag counts the entries waiting at the scan's last publish
		// less those logged since the scan started; add those.
		lag = max(0, b.logLag+b.logged.Load())
	}
	return b.phase, b.rowsRead, b.rowsTotal, lag
}

// Done is closed once the scan follows its upstream directly.
func (b *BackfillProgress) Done() <-chan struct{} { return b.done }

// noteThrottled adds the time since start to the scan's wait for its
// rate limit.
func (p *BackfillProgress) noteThrottled(start time.Time) {
	p.throttled.Add(int64(time.Since(start)))
}
