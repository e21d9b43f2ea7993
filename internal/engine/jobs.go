package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// job is a materialized view being created: its backfill runs in the
// stream graph; a goroutine of the DB (runJob) waits for every scan to
// catch up, commits, and marks the view created. Its id is the view's
// relation id.
//
// The progress objects belong to the running graph: a recovery rebuilds
// the job's actors (resuming from persisted progress) and replaces them,
// closing changed so runJob looks again.
type job struct {
	rel     *catalog.Relation
	started time.Time

	mu       sync.Mutex
	progress []*stream.BackfillProgress
	creating *stream.CreatingJob // the job on its own barriers (nil: none yet)
	changed  chan struct{}
	maxPct   float64 // progress shown never goes backwards
	lastRead int64
	lastAt   time.Time
	rate     float64

	cancel     chan struct{} // closed to cancel the job
	cancelOnce sync.Once
	done       chan struct{} // closed when the job ended
	endOnce    sync.Once
	err        error // why it ended, nil when the view was created

	// Failures of the job's actors (job_failures.go), under mu.
	failures  int           // identical failures in a row, without progress
	failKey   string        // the last failure's text
	failPos   jobPosition   // where the job was at the last failure
	lastErr   string        // shown by SHOW JOBS
	lastCause error         // the last failure (nil after a restart)
	held      chan struct{} // closed while the job is quarantined
}

func newJob(rel *catalog.Relation, progress []*stream.BackfillProgress, creating *stream.CreatingJob) *job {
	j := &job{rel: rel, started: time.Now(), progress: progress, creating: creating, changed: make(chan struct{}),
		cancel: make(chan struct{}), done: make(chan struct{}), lastAt: time.Now(), held: make(chan struct{})}
	if rel.BackfillQuarantined {
		j.failures, j.failKey, j.lastErr = rel.BackfillFailures, rel.BackfillError, rel.BackfillError
		close(j.held)
	}
	return j
}

// setProgress replaces the progress objects and the creating job after a
// rebuild.
func (j *job) setProgress(p []*stream.BackfillProgress, creating *stream.CreatingJob) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.progress, j.creating = p, creating
	close(j.changed)
	j.changed = make(chan struct{})
}

func (j *job) current() ([]*stream.BackfillProgress, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.progress, j.changed
}

func (j *job) requestCancel() { j.cancelOnce.Do(func() { close(j.cancel) }) }

// jobStatus is one line of SHOW JOBS.
type jobStatus struct {
	id        uint32
	statement string
	phase     string
	pct       float64
	read      int64
	total     int64
	rate      float64
	lag       int64
	// epoch is the running graph's epoch whose upstream state the job
	// has caught up with (the least of its scans'), ownEpoch the last of
	// its own barriers committed, joined when it joined the graph.
	epoch    uint64
	ownEpoch uint64
	joined   time.Time
	// adaptiveRate is an adaptive backfill's current rate (rows/s).
	adaptiveRate int64
	// adaptiveTarget is the latency target it works to (CreatingJob.Target).
	adaptiveTarget time.Duration
}

// status sums the scans' progress.
func (j *job) status() jobStatus {
	ps, _ := j.current()
	st := jobStatus{id: j.rel.ID, statement: "CREATE MATERIALIZED VIEW " + quoteName(j.rel.Name) + " AS " + j.rel.Definition}
	if j.rel.Kind == catalog.KindIndex {
		st.statement = j.rel.Definition // CREATE INDEX ...
	}
	if j.rel.Kind == catalog.KindSink {
		st.statement = "CREATE SINK " + quoteName(j.rel.Name) + " AS " + j.rel.Definition
	}
	phases := map[string]int{}
	// done and sized: the snapshot rows read of the scans that know their
	// snapshot's size (at most that size: it is an estimate), and those
	// sizes; known counts those scans.
	var done, sized int64
	known := 0
	for i, p := range ps {
		if e := p.Epoch(); i == 0 || e < st.epoch {
			st.epoch = e
		}
		ph, read, total, lag := p.Snapshot()
		phases[ph]++
		st.read += read
		st.total += total
		st.lag += lag
		if total > 0 {
			done, sized, known = done+min(read, total), sized+total, known+1
		}
	}
	switch {
	case phases[stream.PhaseStarting] > 0 || len(ps) == 0:
		st.phase = stream.PhaseStarting
	case phases[stream.PhaseSnapshot] > 0:
		st.phase = stream.PhaseSnapshot
	case phases[stream.PhaseLogStore] > 0:
		st.phase = stream.PhaseLogStore
	default:
		st.phase = stream.PhaseDone
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.creating != nil {
		st.ownEpoch, st.joined = j.creating.Epoch(), j.creating.JoinedAt()
		st.adaptiveRate = j.creating.Rate()
		st.adaptiveTarget = j.creating.ShownTarget()
	}
	pct := 0.0
	switch {
	case st.phase == stream.PhaseDone:
		pct = 100
	case st.phase == stream.PhaseLogStore:
		pct = 99
	default:
		pct = snapshotPercent(done, sized, known, len(ps))
	}
	if pct < j.maxPct {
		pct = j.maxPct
	}
	j.maxPct = pct
	now := time.Now()
	if dt := now.Sub(j.lastAt).Seconds(); dt >= 0.5 {
		j.rate = float64(st.read-j.lastRead) / dt
		j.lastRead, j.lastAt = st.read, now
	}
	st.pct, st.rate = pct, j.rate
	return st
}

// snapshotPercent is the progress of a job's snapshot phase, up to 99:
// done rows read of the sized rows, once all scans have sized their
// snapshots (known of scans); 0 before, as the share of a scan not yet
// sized is not known (summing its rows read over the others' sizes
// showed a join view at 891%, and a shown progress never goes back). A
// scan's rows read count up to its size (an estimate).
func snapshotPercent(done, sized int64, known, scans int) float64 {
	if sized <= 0 || known < scans {
		return 0
	}
	return min(99, 99*float64(min(done, sized))/float64(sized))
}

// jobList returns the jobs in id order.
func (db *DB) jobList() []*job {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]*job, 0, len(db.jobs))
	for _, j := range db.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].rel.ID < out[b].rel.ID })
	return out
}

// startJob registers a job and starts the goroutine that finishes it.
func (db *DB) startJob(j *job) {
	db.mu.Lock()
	db.jobs[j.rel.ID] = j
	db.mu.Unlock()
	db.bg.Add(1)
	go func() {
		defer db.bg.Done()
		db.runJob(j)
	}()
}

// runJob waits for the job's scans to catch up, then commits and marks the
// view created; or cancels it. When the DB closes it leaves the view
// creating: the next Open resumes it.
func (db *DB) runJob(j *job) {
	for {
		ps, changed := j.current()
		switch db.waitScans(j, ps, changed) {
		case waitDone:
			err := db.coord.Checkpoint(context.Background())
			if errors.Is(err, stream.ErrGraphFailed) || err == nil && closed(changed) {
				// Rebuilt: the resumed job will catch up again. (A
				// checkpoint that succeeded on a graph rebuilt after the
				// scans caught up proves nothing: the rebuilt scans may
				// still be replaying.)
				continue
			}
			if err == nil {
				err = db.markCreated(j.rel)
			}
			db.endJob(j, err)
			return
		case waitCanceled:
			db.abandonView(j.rel, errJobCanceled)
			db.endJob(j, errJobCanceled)
			return
		case waitClosing, waitEnded:
			return
		}
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

var errJobCanceled = pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")

type waitResult uint8

const (
	waitDone waitResult = iota
	waitCanceled
	waitClosing
	waitRebuilt
	waitEnded // ended elsewhere (its view failed)
)

func (db *DB) waitScans(j *job, ps []*stream.BackfillProgress, changed <-chan struct{}) waitResult {
	for _, p := range ps {
		select {
		case <-p.Done():
		case <-changed:
			return waitRebuilt
		case <-j.cancel:
			return waitCanceled
		case <-db.closing:
			return waitClosing
		case <-j.done:
			return waitEnded
		}
	}
	return waitDone
}

func (db *DB) markCreated(rel *catalog.Relation) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "%s %q was dropped while it was created", kindWord(rel.Kind), rel.Name)
	}
	next := *cur
	next.State = catalog.StateCreated
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return nil
}

// endJob records how a job ended, once.
func (db *DB) endJob(j *job, err error) {
	j.endOnce.Do(func() {
		db.mu.Lock()
		delete(db.jobs, j.rel.ID)
		db.mu.Unlock()
		j.err = err
		close(j.done)
	})
}

// waitJob waits for a foreground CREATE: progress NOTICEs every few
// seconds; a canceled statement cancels the job.
func (db *DB) waitJob(ctx context.Context, j *job, w ResultWriter) error {
	tick := time.NewTicker(noticeInterval)
	defer tick.Stop()
	for {
		select {
		case <-j.done:
			return j.err
		case <-j.quarantined():
			return db.failWaitedJob(j)
		case <-tick.C:
			st := j.status()
			msg := fmt.Sprintf("%s %q: %s %.1f%% (%d of %d rows, %.0f rows/s)",
				kindWord(j.rel.Kind), j.rel.Name, st.phase, st.pct, st.read, st.total, st.rate)
			if err := w.Notice("NOTICE", msg); err != nil {
				return db.cancelWaitedJob(j, err)
			}
		case <-ctx.Done():
			return db.cancelWaitedJob(j, pgerr.As(ctx.Err()))
		case <-db.closing:
			return pgerr.New(pgerr.AdminShutdown, "terminating: the database is closing; the view will resume creating when it reopens")
		}
	}
}

// cancelWaitedJob cancels the job of a foreground CREATE whose statement
// failed with err (a CancelRequest, a client gone) and waits for the job to
// end, so that the failed statement leaves no view behind. A view created
// before the cancel reached its job stays, and the statement succeeds:
// the cancel came too late.
func (db *DB) cancelWaitedJob(j *job, err error) error {
	j.requestCancel()
	select {
	case <-j.done:
	case <-db.closing: // the job stops without ending; it resumes at the next Open
		return err
	}
	if j.err == nil {
		return nil
	}
	return err
}

// noticeInterval is how often a foreground CREATE reports progress.
var noticeInterval = 3 * time.Second

// cancelJob cancels a creating view's job and waits for it to end.
func (db *DB) cancelJob(id uint32) error {
	db.mu.RLock()
	j := db.jobs[id]
	db.mu.RUnlock()
	if j == nil {
		return pgerr.New(pgerr.UndefinedObject, "job %d does not exist", id)
	}
	j.requestCancel()
	<-j.done
	return nil
}

// waitAllJobs blocks until every job running now has ended.
func (db *DB) waitAllJobs(ctx context.Context) error {
	for _, j := range db.jobList() {
		select {
		case <-j.done:
		case <-j.quarantined():
			return j.quarantineError()
		case <-ctx.Done():
			return pgerr.As(ctx.Err())
		case <-db.closing:
			return errClosing
		}
	}
	return nil
}

func (db *DB) showJobs(w ResultWriter) error {
	if err := w.Columns(jobColumns); err != nil {
		return err
	}
	rows := db.jobRows()
	for _, r := range rows {
		if err := w.Row(r); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(rows)))
}
