package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/systemcatalog"
)

// maxRecoveries is how many recent recoveries the table keeps.
const maxRecoveries = 100

// recoveryLog keeps the recent recoveries (streamdb_catalog.recoveries).
type recoveryLog struct {
	mu   sync.Mutex
	seq  int64
	rows []systemcatalog.Recovery // oldest first, at most maxRecoveries
}

func (l *recoveryLog) add(at time.Time, relation string, cause error, rebuild time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.rows = append(l.rows, systemcatalog.Recovery{Seq: l.seq, At: at, Relation: relation, Cause: cause.Error(), Rebuild: rebuild})
	if len(l.rows) > maxRecoveries {
		l.rows = l.rows[len(l.rows)-maxRecoveries:]
	}
}

func (l *recoveryLog) snapshot() []systemcatalog.Recovery {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]systemcatalog.Recovery(nil), l.rows...)
}

// failedRelation names the relation whose actor caused err, if one did.
func (db *DB) failedRelation(err error) string {
	var ae *stream.ActorError
	if !errors.As(err, &ae) {
		return ""
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	for id, rt := range db.runtime {
		for _, a := range rt.actors {
			if a == ae.Actor {
				if r := db.rels[id]; r != nil {
					return r.Name
				}
			}
		}
	}
	return ""
}
