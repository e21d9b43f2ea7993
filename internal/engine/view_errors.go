package engine

import (
	"sort"
	"sync"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
)

// A view's expression that fails on a row with a data error (SQLSTATE
// class 22: a division by zero, a value out of range, a bad cast) does
// not fail the stream graph: the expression's value becomes NULL (a WHERE
// or join condition then keeps no row, a set-returning function yields
// nothing), the write that carried the row commits, and the error is
// counted here, per view and message, for streamdb_catalog.view_errors
// (expr.Guard, stream.EvalErrors). This is RisingWave's behaviour; a
// batch SELECT of the same query fails with the error, as in PostgreSQL.
//
// The log is in memory: it starts empty when the database opens.

// maxViewErrorKinds bounds the messages kept per view: messages may carry
// the failing value (a cast's), so a view could meet any number of them.
// Past the bound, a new message is counted under its SQLSTATE alone.
const maxViewErrorKinds = 64

// otherViewErrors is the message of the entry that counts the errors of
// a view past maxViewErrorKinds.
const otherViewErrors = "(further errors with this SQLSTATE; their messages were not kept)"

type viewErrorKey struct {
	code, msg string
}

type viewErrorEntry struct {
	count                 int64
	firstEpoch, lastEpoch uint64
	first, last           time.Time
}

// viewErrorLog counts views' data errors (streamdb_catalog.view_errors).
type viewErrorLog struct {
	mu     sync.Mutex
	byView map[uint32]map[viewErrorKey]*viewErrorEntry
	// onNew is called (outside mu) for the first error of each kind: the
	// engine logs it.
	onNew func(rel uint32, err error)
}

// RecordEvalError implements stream.ErrorLog.
func (l *viewErrorLog) RecordEvalError(rel uint32, epoch uint64, err error) {
	pe := pgerr.As(err)
	key := viewErrorKey{code: pe.Code, msg: pe.Message}
	now := time.Now()
	l.mu.Lock()
	if l.byView == nil {
		l.byView = map[uint32]map[viewErrorKey]*viewErrorEntry{}
	}
	kinds := l.byView[rel]
	if kinds == nil {
		kinds = map[viewErrorKey]*viewErrorEntry{}
		l.byView[rel] = kinds
	}
	e := kinds[key]
	if e == nil && len(kinds) >= maxViewErrorKinds {
		key.msg = otherViewErrors
		e = kinds[key]
	}
	isNew := e == nil
	if isNew {
		e = &viewErrorEntry{firstEpoch: epoch, first: now}
		kinds[key] = e
	}
	e.count++
	e.lastEpoch, e.last = epoch, now
	l.mu.Unlock()
	if isNew && l.onNew != nil {
		l.onNew(rel, err)
	}
}

// forget drops the errors of a view that is gone.
func (l *viewErrorLog) forget(rel uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byView, rel)
}

// snapshot returns the errors, with each view's name from name (a view it
// does not know is left out), by view name, then message.
func (l *viewErrorLog) snapshot(name func(rel uint32) (string, bool)) []systemcatalog.ViewError {
	l.mu.Lock()
	var out []systemcatalog.ViewError
	for rel, kinds := range l.byView {
		n, ok := name(rel)
		if !ok {
			continue
		}
		for k, e := range kinds {
			out = append(out, systemcatalog.ViewError{View: n, Code: k.code, Message: k.msg, Count: e.count,
				FirstEpoch: e.firstEpoch, LastEpoch: e.lastEpoch, First: e.first, Last: e.last})
		}
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].View != out[j].View {
			return out[i].View < out[j].View
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// logViewError logs the first error of a kind met by view rel's
// expressions. It runs on an actor's goroutine, which must not wait for
// db.mu (a DDL may hold it while it waits for a barrier): the view's name
// is logged when the lock is free, its id always.
func (db *DB) logViewError(rel uint32, err error) {
	name := ""
	if db.mu.TryRLock() {
		if r := db.rels[rel]; r != nil {
			name = r.Name
		}
		db.mu.RUnlock()
	}
	db.opts.Logger.Warn("a view's expression failed on a row: its value is NULL (streamdb_catalog.view_errors counts these)",
		"view", name, "view_id", rel, "err", err)
}
