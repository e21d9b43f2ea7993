package engine

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Meta keys of the catalog in the store.
const (
	metaRelPrefix  = "catalog/rel/"
	metaNextID     = "catalog/next_id"
	metaDropPrefix = "catalog/drop/" // state of dropped relations left to purge
	// metaKeyFormat is the key encoding version (storage.KeyFormat) the
	// store's state was written in; absent in stores older than version 2.
	metaKeyFormat = "catalog/key_format"
)

func relKey(id uint32) string  { return fmt.Sprintf("%s%010d", metaRelPrefix, id) }
func dropKey(id uint32) string { return fmt.Sprintf("%s%010d", metaDropPrefix, id) }

// loadCatalog reads the relations from the store. Views still being
// created are kept: their backfill resumes from its persisted progress.
// Drops a crash interrupted are finished.
func (db *DB) loadCatalog() error {
	if err := db.purgeDropped(); err != nil {
		return err
	}
	keys, vals, err := db.store.ScanMeta(metaRelPrefix)
	if err != nil {
		return fmt.Errorf("streamdb: reading catalog: %w", err)
	}
	for i := range keys {
		r := new(catalog.Relation)
		if err := json.Unmarshal(vals[i], r); err != nil {
			return fmt.Errorf("streamdb: corrupt catalog entry %s: %w", keys[i], err)
		}
		if r.Adaptive {
			r.Parallelism = db.opts.Parallelism
		}
		db.rels[r.ID] = r
		db.byName[r.Name] = r
	}
	if err := db.loadSchemas(); err != nil {
		return err
	}
	v, ok, err := db.store.GetMeta(metaNextID)
	if err != nil {
		return err
	}
	db.nextID = 1
	if ok {
		db.nextID = binary.BigEndian.Uint32(v)
	}
	if err := db.dropOrphanSequences(); err != nil {
		return err
	}
	return db.checkKeyFormat()
}

// checkKeyFormat refuses a store whose state was written in another key
// encoding than this build's, and records the encoding in a store that
// has none yet. A store of an older format (1: before the version was
// recorded; 2: before arrays were keyed by their elements) is upgraded in
// place when none of its state can hold a key whose encoding changed
// since (checkKeyUpgrade), and refused otherwise: those keys would be
// neither found nor in order.
func (db *DB) checkKeyFormat() error {
	v, ok, err := db.store.GetMeta(metaKeyFormat)
	if err != nil {
		return err
	}
	from := uint32(1)
	if ok {
		if len(v) != 4 {
			return fmt.Errorf("streamdb: corrupt catalog entry %s", metaKeyFormat)
		}
		if from = binary.BigEndian.Uint32(v); from == storage.KeyFormat {
			return nil
		}
		if from != 2 {
			return fmt.Errorf("streamdb: the data directory's state is in key format %d; this streamdb reads format %d", from, storage.KeyFormat)
		}
	}
	if err := db.checkKeyUpgrade(from); err != nil {
		return err
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], storage.KeyFormat)
	return db.store.PutMeta(metaKeyFormat, b[:])
}

// checkKeyUpgrade refuses a store of key format from whose state may hold
// keys encoded differently in this build's format: intervals (format 1
// keyed them by their fields, not their span) and arrays (formats 1 and 2
// keyed them by their text, not their elements). A relation's columns show
// their types; a materialized view's state may also key arrays its query
// computes without returning them, so one whose query may compute arrays
// is refused too.
func (db *DB) checkKeyUpgrade(from uint32) error {
	const dump = "dump it with COPY TO using the older streamdb and load it into a new data directory"
	for _, r := range db.rels {
		for _, c := range r.Columns {
			if from < 2 && (c.Type.ID == types.IDInterval || (c.Type.ID == types.IDArray && c.Type.Elem == types.IDInterval)) {
				return fmt.Errorf("streamdb: the data directory was written by an older streamdb that keyed intervals by their fields, not their span, and %s %q has an interval column %q: %s", r.Kind, r.Name, c.Name, dump)
			}
			if c.Type.ID == types.IDArray {
				return fmt.Errorf("streamdb: the data directory was written by an older streamdb that keyed arrays by their text, not their elements, and %s %q has an array column %q: %s", r.Kind, r.Name, c.Name, dump)
			}
		}
		if r.Kind == catalog.KindMaterializedView && mayComputeArrays(r.Definition) {
			return fmt.Errorf("streamdb: the data directory was written by an older streamdb that keyed arrays by their text, not their elements, and materialized view %q may compute arrays: drop it using the older streamdb, then create it again", r.Name)
		}
	}
	return nil
}

// mayComputeArrays reports whether a view's query may compute array
// values: whether it names an array function, an array constructor or
// an array type, or a function that returns an array.
func mayComputeArrays(query string) bool {
	q := strings.ToLower(query)
	for _, s := range []string{"array", "[", "regexp_match", "current_schemas"} {
		if strings.Contains(q, s) {
			return true
		}
	}
	return false
}

// beginDrop removes a relation from the stored catalog and records its
// state tables to purge, in one durable write, before its actors stop:
// after a crash at any point of a DROP (or of the removal of a view whose
// creation failed) the relation is either whole in the catalog, with the
// state its actors kept up to date, or gone; never in the catalog with
// its state half purged, or stale because its actors had stopped. Open
// purges what a crash left (purgeDropped).
func (db *DB) beginDrop(r *catalog.Relation) error {
	ids, err := json.Marshal(r.StateTables())
	if err != nil {
		return err
	}
	return db.store.UpdateMeta([]string{relKey(r.ID)}, map[string][]byte{dropKey(r.ID): ids})
}

// cancelDrop undoes beginDrop, for a drop that could not stop the
// relation's actors.
func (db *DB) cancelDrop(r *catalog.Relation) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return db.store.UpdateMeta([]string{dropKey(r.ID)}, map[string][]byte{relKey(r.ID): b})
}

// finishDrop deletes the state tables of a relation beginDrop removed.
func (db *DB) finishDrop(id uint32, tables []uint32) error {
	for _, t := range tables {
		if err := db.store.DropTable(t); err != nil {
			return fmt.Errorf("streamdb: dropping state of relation %d: %w", id, err)
		}
		if failpoint.Enabled {
			if err := failpoint.Hit(failpoint.CatalogDropPurge); err != nil {
				return err
			}
		}
	}
	return db.store.DeleteMeta(dropKey(id))
}

func (db *DB) finishDropOf(r *catalog.Relation) error {
	return db.finishDrop(r.ID, r.StateTables())
}

// purgeDropped finishes the drops a crash interrupted (at Open).
func (db *DB) purgeDropped() error {
	keys, vals, err := db.store.ScanMeta(metaDropPrefix)
	if err != nil {
		return fmt.Errorf("streamdb: reading dropped relations: %w", err)
	}
	for i := range keys {
		var tables []uint32
		if err := json.Unmarshal(vals[i], &tables); err != nil || len(tables) == 0 {
			return fmt.Errorf("streamdb: corrupt drop record %s: %v", keys[i], err)
		}
		if err := db.finishDrop(tables[0], tables); err != nil {
			return err
		}
	}
	return nil
}

// replaceRelation publishes a new version of a relation. Relations are
// copy-on-write: readers hold pointers without locks, so a change is a new
// object, never a write to a published one.
func (db *DB) replaceRelation(r *catalog.Relation) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.rels[r.ID] = r
	db.byName[r.Name] = r
}

// saveRelation durably writes a relation's catalog entry.
func (db *DB) saveRelation(r *catalog.Relation) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return db.store.PutMeta(relKey(r.ID), b)
}

// allocID reserves a relation / state table id (caller holds ddlMu).
func (db *DB) allocID() (uint32, error) {
	id := db.nextID
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], id+1)
	if err := db.store.PutMeta(metaNextID, b[:]); err != nil {
		return 0, err
	}
	db.nextID++
	return id, nil
}

// Relation implements catalog.Reader.
func (db *DB) Relation(name string) (*catalog.Relation, bool) {
	if r, ok := systemcatalog.Relation(name); ok {
		return r, true
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	r, ok := db.byName[name]
	return r, ok
}

// RelationByID implements catalog.Reader.
func (db *DB) RelationByID(id uint32) (*catalog.Relation, bool) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	r, ok := db.rels[id]
	return r, ok
}

// relationsSorted returns all relations in id (creation) order.
func (db *DB) relationsSorted() []*catalog.Relation {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]*catalog.Relation, 0, len(db.rels))
	for _, r := range db.rels {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// dependents returns the views that read relation id.
func (db *DB) dependents(id uint32) []*catalog.Relation {
	var out []*catalog.Relation
	for _, r := range db.relationsSorted() {
		for _, d := range r.Deps {
			if d == id {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// actorSeq hands out actor ids.
type actorSeq struct{ n atomic.Uint32 }

func (s *actorSeq) next() stream.ActorID { return stream.ActorID(s.n.Add(1)) }

// rowIDGen generates hidden row ids: microseconds since the epoch shifted
// left, plus a sequence, so ids grow across restarts.
type rowIDGen struct{ last atomic.Int64 }

func (g *rowIDGen) next() int64 {
	for {
		last := g.last.Load()
		id := time.Now().UnixMicro() << 8
		if id <= last {
			id = last + 1
		}
		if g.last.CompareAndSwap(last, id) {
			return id
		}
	}
}
