package engine

import (
	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/storage"
)

// writeEngine is the engine as the write path (package write) sees it.
type writeEngine struct{ db *DB }

var _ write.Engine = writeEngine{}

func (e writeEngine) Store() *storage.Store            { return e.db.store }
func (e writeEngine) Coordinator() *stream.Coordinator { return e.db.coord }
func (e writeEngine) Closing() <-chan struct{}         { return e.db.closing }
func (e writeEngine) NextRowID() int64                 { return e.db.rowIDs.next() }

func (e writeEngine) Relation(id uint32) (*catalog.Relation, bool) { return e.db.RelationByID(id) }

func (e writeEngine) Reader(snap storage.Reader) batch.Source {
	return &snapshotSource{db: e.db, snap: snap}
}

func (e writeEngine) Table(id uint32) (*write.Table, *stream.Source, bool) {
	e.db.mu.RLock()
	rt := e.db.runtime[id]
	e.db.mu.RUnlock()
	if rt == nil || rt.table == nil {
		return nil, nil, false
	}
	return rt.table, rt.source, true
}
