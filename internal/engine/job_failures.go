package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// The failure policy of a view's job (a view being created):
//
//   - When an actor of the job fails, the coordinator tears the graph down
//     and rebuilds it, and the job resumes from its persisted progress: a
//     retry. Recoveries that commit nothing in between back off (100ms,
//     doubling to 5s; stream.Coordinator).
//   - The job counts its consecutive identical failures: the same error,
//     with no progress committed in between (the position a retry resumes
//     from, phase and rows read, did not move). SHOW JOBS shows the count
//     and the last error.
//   - After Options.JobFailureLimit of them (default 3), or after the
//     first for a data error (SQLSTATE class 22: the rows that failed
//     would fail again; a view's expressions turn theirs into NULLs, see
//     view_errors.go, so this is one met elsewhere), the job is
//     quarantined: its backfill is paused,
//     and the view records quarantined, failures and the error, so a
//     restart keeps it paused and SHOW JOBS shows why. The graph stops
//     failing; other views and DML go on.
//   - A foreground CREATE waiting on the job then ends: the view is
//     dropped and CREATE fails with the error (its SQLSTATE). WAIT fails
//     rather than wait for a quarantined job.
//   - ALTER MATERIALIZED VIEW v RESUME clears the quarantine and the
//     count, and retries; DROP (then CREATE again) removes the view.
//
// A failure outside a creating view's actors (a table's, a created
// view's, a commit's) is retried by recovery the same way but counted
// against no job: streamdb_catalog.recoveries lists every recovery with
// the relation whose actor failed and the cause.

// defaultJobFailureLimit is Options.JobFailureLimit's default.
const defaultJobFailureLimit = 3

// jobPosition is how far a job had got when it failed.
type jobPosition struct {
	phase int
	read  int64
}

func phaseRank(phase string) int {
	switch phase {
	case stream.PhaseSnapshot:
		return 1
	case stream.PhaseLogStore:
		return 2
	case stream.PhaseDone:
		return 3
	}
	return 0
}

// resumedAt is where the job's attempt that just failed started: its
// committed position when the graph was built, which only grows when an
// attempt commits progress.
func (j *job) resumedAt() jobPosition {
	ps, _ := j.current()
	pos := jobPosition{phase: phaseRank(stream.PhaseDone)}
	for _, p := range ps {
		phase, read := p.Resumed()
		pos.phase = min(pos.phase, phaseRank(phase))
		pos.read += read
	}
	return pos
}

// noteFailure records a failure of the job's actors with cause and returns
// how many identical failures in a row it has had, with no progress
// committed in between.
func (j *job) noteFailure(cause error) int {
	pos := j.resumedAt()
	key := failureKey(cause)
	j.mu.Lock()
	defer j.mu.Unlock()
	// Committed progress never goes back: a lower position is an attempt
	// that failed before all its scans had loaded theirs.
	progressed := pos.after(j.failPos)
	if progressed {
		j.failPos = pos
	}
	if key != j.failKey || progressed {
		j.failures = 0
	}
	j.failures++
	j.failKey, j.lastErr, j.lastCause = key, key, cause
	return j.failures
}

// after reports whether p is further than q.
func (p jobPosition) after(q jobPosition) bool {
	return p.phase > q.phase || p.phase == q.phase && p.read > q.read
}

// failureKey is the text that identifies a failure: the first line of its
// message (a panic's carries its stack after).
func failureKey(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// isDataError reports whether err is an error of the data (SQLSTATE class
// 22, such as a division by zero), which a retry would meet again.
func isDataError(err error) bool {
	var pe *pgerr.Error
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "22")
}

// health returns the job's failures in a row, its last error ("" if none)
// and whether it is quarantined.
func (j *job) health() (failures int, lastErr string, quarantined bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	select {
	case <-j.held:
		quarantined = true
	default:
	}
	return j.failures, j.lastErr, quarantined
}

// quarantined returns a channel closed once the job is quarantined.
func (j *job) quarantined() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.held
}

func (j *job) quarantine() {
	j.mu.Lock()
	defer j.mu.Unlock()
	select {
	case <-j.held:
	default:
		close(j.held)
	}
}

// clearFailures forgets the job's failures and lifts its quarantine
// (RESUME).
func (j *job) clearFailures() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failures, j.failKey, j.lastErr, j.lastCause = 0, "", "", nil
	select {
	case <-j.held:
		j.held = make(chan struct{})
	default:
	}
}

// failureError is the error a client waiting on a quarantined job gets.
func (j *job) failureError() error {
	j.mu.Lock()
	n, cause, last := j.failures, j.lastCause, j.lastErr
	j.mu.Unlock()
	e := &pgerr.Error{Code: pgerr.Internal, Message: last}
	if cause != nil {
		e = pgerr.As(cause)
	}
	times := ""
	if n > 1 {
		times = fmt.Sprintf(" %d times in a row", n)
	}
	return &pgerr.Error{Code: e.Code, Detail: e.Detail,
		Message: fmt.Sprintf("creating %s %q failed%s: %s", kindWord(j.rel.Kind), j.rel.Name, times, e.Message)}
}

// quarantineError is the error of WAIT on a quarantined job.
func (j *job) quarantineError() error {
	n, last, _ := j.health()
	kind := kindWord(j.rel.Kind)
	return pgerr.New(pgerr.ObjectNotInPrereqState,
		"%s %q is quarantined after %d failures in a row (%s); ALTER %s %s RESUME retries it",
		kind, j.rel.Name, n, last, strings.ToUpper(kind), j.rel.Name)
}

// failedJob returns the job and relation of the creating view whose actor
// caused err, if one did.
func (db *DB) failedJob(err error) (*job, *catalog.Relation) {
	var ae *stream.ActorError
	if !errors.As(err, &ae) {
		return nil, nil
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	for id, rt := range db.runtime {
		for _, a := range rt.actors {
			if a == ae.Actor {
				rel, j := db.rels[id], db.jobs[id]
				if rel == nil || j == nil || rel.State != catalog.StateCreating {
					return nil, nil
				}
				return j, rel
			}
		}
	}
	return nil, nil
}

// noteJobFailure applies the failure policy to the job whose actor caused
// a graph failure (called by rebuildGraph, before the rebuild, so a
// quarantined job is rebuilt paused).
func (db *DB) noteJobFailure(cause error) {
	j, rel := db.failedJob(cause)
	if j == nil {
		return
	}
	var ae *stream.ActorError
	errors.As(cause, &ae)
	n := j.noteFailure(ae.Err)
	if n < db.opts.JobFailureLimit && !isDataError(ae.Err) {
		db.opts.Logger.Warn("creating view failed; resuming it from its progress",
			"view", rel.Name, "failures", n, "err", failureKey(ae.Err))
		return
	}
	next := *rel
	next.BackfillPaused, next.BackfillQuarantined = true, true
	next.BackfillFailures, next.BackfillError = n, failureKey(ae.Err)
	if err := db.saveRelation(&next); err != nil {
		db.opts.Logger.Error("recording the quarantine of a view", "view", rel.Name, "err", err)
	}
	db.replaceRelation(&next)
	j.quarantine()
	db.opts.Logger.Error("creating view quarantined: its backfill is paused until ALTER MATERIALIZED VIEW ... RESUME",
		"view", rel.Name, "failures", n, "err", failureKey(ae.Err))
}

// failWaitedJob ends the job of a foreground CREATE whose job was
// quarantined: the view goes, and CREATE fails with the job's error.
func (db *DB) failWaitedJob(j *job) error {
	err := j.failureError()
	db.abandonView(j.rel, err)
	db.endJob(j, err)
	return err
}
