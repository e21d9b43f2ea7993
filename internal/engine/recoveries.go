package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/types"
)

// recoveriesName is the catalog table of the streaming graph's recent
// recoveries: each time an actor failed and the graph was rebuilt from
// committed state, with the root cause and how long the rebuild took.
const recoveriesName = "streamdb_catalog.recoveries"

var recoveryColumns = []Column{
	{Name: "seq", Type: types.TInt64}, // recoveries since the database opened; max(seq) counts them
	{Name: "at", Type: types.TTimestampTZ},
	{Name: "relation", Type: types.TText}, // whose actor failed, when known
	{Name: "cause", Type: types.TText},
	{Name: "rebuild_ms", Type: types.TFloat64},
}

// maxRecoveries is how many recent recoveries the table keeps.
const maxRecoveries = 100

// recoveryLog keeps the recent recoveries.
type recoveryLog struct {
	mu   sync.Mutex
	seq  int64
	rows [][]types.Datum // oldest first, at most maxRecoveries
}

func (l *recoveryLog) add(at time.Time, relation string, cause error, rebuild time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	var rel types.Datum
	if relation != "" {
		rel = relation
	}
	l.rows = append(l.rows, []types.Datum{l.seq, types.Timestamp(at.UnixMicro()), rel, cause.Error(),
		float64(rebuild.Microseconds()) / 1000})
	if len(l.rows) > maxRecoveries {
		l.rows = l.rows[len(l.rows)-maxRecoveries:]
	}
}

func (l *recoveryLog) snapshot() [][]types.Datum {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]types.Datum(nil), l.rows...)
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
