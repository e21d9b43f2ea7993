// Package catalog describes the relations streamdb knows: tables and
// materialized views, their columns, keys and dependencies. Descriptors are
// plain data, persisted as JSON in the store by the root package, which owns
// the catalog and guards it with its own lock.
package catalog

import (
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// Kind tells tables from materialized views.
type Kind uint8

// Relation kinds.
const (
	KindTable Kind = iota
	KindMaterializedView
	// KindSystem is a read-only relation computed from the database's live
	// state (streamdb_catalog.*); it has no stored rows.
	KindSystem
	// KindSource is a stream of rows from a connector (CREATE SOURCE): it
	// stores no rows; views over it see the rows produced from their
	// creation on.
	KindSource
	// KindView is a plain view (CREATE VIEW): a stored query (Definition)
	// with no rows and no actors, expanded where a query names it.
	KindView
	// KindIndex is an index (CREATE INDEX): a materialized view of a
	// table's (or materialized view's) columns keyed by the index
	// columns (see Index).
	KindIndex
	// KindSubscription is a subscription (CREATE SUBSCRIPTION): the
	// change log of the relation Deps[0], kept for Retention.
	KindSubscription
	// KindSink is a sink (CREATE SINK): the changes of its Definition (a
	// query over Deps), delivered to the connector of Connector; it
	// stores no rows of its own.
	KindSink
	// KindSequence is a sequence (CREATE SEQUENCE, or the one a serial or
	// identity column owns): Sequence holds its options; it has no rows
	// and no actors, and its state (the values handed out) lives in the
	// store beside the catalog (see the engine's sequence.go).
	KindSequence
)

// Virtual reports whether relations of kind k have no actors and no
// stored rows: plain views and sequences.
func (k Kind) Virtual() bool { return k == KindView || k == KindSequence }

func (k Kind) String() string {
	switch k {
	case KindTable:
		return "table"
	case KindSystem:
		return "system view"
	case KindSource:
		return "source"
	case KindView:
		return "view"
	case KindIndex:
		return "index"
	case KindSubscription:
		return "subscription"
	case KindSink:
		return "sink"
	case KindSequence:
		return "sequence"
	}
	return "materialized view"
}

// State is where a relation is in its life.
type State uint8

// Relation states. A view is Creating until its backfill completes.
const (
	StateCreated State = iota
	StateCreating
)

// Column describes one column. Hidden columns (a table's generated row id, a
// view's stream key columns that the query does not project) are stored but
// not shown by SELECT * or \d.
type Column struct {
	Name    string     `json:"name"`
	Type    types.Type `json:"type"`
	NotNull bool       `json:"not_null,omitempty"`
	Hidden  bool       `json:"hidden,omitempty"`
	// Default is the column's DEFAULT expression as written ("" for
	// none: NULL).
	Default string `json:"default,omitempty"`
	// Comment is the column's COMMENT ON COLUMN ("" for none).
	Comment string `json:"comment,omitempty"`
	// Dropped marks a column ALTER TABLE ... DROP COLUMN removed: its
	// slot stays (rows keep their layout, nothing is rewritten), Hidden,
	// renamed to DroppedName so no name finds it, and read as NULL, as
	// PostgreSQL keeps a dropped attribute (attisdropped).
	Dropped bool `json:"dropped,omitempty"`
	// Missing, when not nil, is the value (types.Format of Type) the rows
	// stored before the column was added (ALTER TABLE ... ADD COLUMN ...
	// DEFAULT constant) read for it: they were not rewritten (see
	// storage/missing.go). Nil: NULL.
	Missing *string `json:"missing,omitempty"`
	// Identity is IdentityAlways or IdentityByDefault for a column
	// GENERATED ... AS IDENTITY ("" otherwise); IdentitySeq is the id of
	// the sequence that fills it.
	Identity    string `json:"identity,omitempty"`
	IdentitySeq uint32 `json:"identity_seq,omitempty"`
	// Generated is the expression of a column GENERATED ALWAYS AS (expr)
	// STORED, as written ("" for none): computed from the other columns
	// of each row written.
	Generated string `json:"generated,omitempty"`
}

// Identity kinds (Column.Identity), as pg_attribute.attidentity.
const (
	IdentityAlways    = "a"
	IdentityByDefault = "d"
)

// Check is a CHECK constraint of a table: every row written must not
// make Expr false.
type Check struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
}

// DroppedName is the name a dropped column is given: PostgreSQL's, which
// no identifier a user writes unquoted can match.
func DroppedName(i int) string { return fmt.Sprintf("........pg.dropped.%d........", i+1) }

// Watermark is a relation's WATERMARK FOR Column AS Expr: its watermark
// is the greatest value of Expr over the rows it took, raised at each
// barrier, and a row whose Column is below the watermark (or NULL) when
// it arrives is late: dropped, and counted. State is the id of the state
// table that keeps the watermark and the count.
type Watermark struct {
	Column int    `json:"column"`
	Expr   string `json:"expr"`
	State  uint32 `json:"state"`
}

// Relation is a table or a materialized view.
type Relation struct {
	ID      uint32   `json:"id"`
	Name    string   `json:"name"`
	Kind    Kind     `json:"kind"`
	State   State    `json:"state"`
	Columns []Column `json:"columns"`
	// PK holds the indexes of the primary (stream) key columns: rows are
	// unique on them and stored in their order.
	PK []int `json:"pk"`
	// DistKey holds the indexes of the columns whose hash picks a row's
	// vnode (a subset of PK).
	DistKey []int `json:"dist_key"`
	// RowID is true when PK is a hidden generated row id.
	RowID bool `json:"row_id,omitempty"`
	// Definition is the SELECT of a materialized view, as written.
	Definition string `json:"definition,omitempty"`
	// SearchPath is the search path a view's Definition binds with (that
	// of the session that created it); empty for public alone.
	SearchPath []string `json:"search_path,omitempty"`
	// TimeZone is the TimeZone setting a materialized view's Definition
	// binds with (that of the session that created it: its time zone
	// dependent expressions keep their meaning whoever reads the view);
	// empty for UTC.
	TimeZone string `json:"time_zone,omitempty"`
	// Deps lists the relations a view reads.
	Deps []uint32 `json:"deps,omitempty"`
	// Internal lists the ids of the state tables the view's operators own,
	// in the order the planner allocated them.
	Internal []uint32 `json:"internal,omitempty"`
	// Storage is the state table holding a table's rows when it is not
	// ID (0): ALTER TABLE ... ALTER COLUMN ... TYPE writes the rewritten
	// rows into a new one (see DataID).
	Storage uint32 `json:"storage,omitempty"`
	// Parallelism is the number of actors of each partitioned fragment of
	// a view's job (0: a view recorded before views ran in parallel, run
	// with 1). Actor i of a fragment owns the vnodes
	// storage.SplitVnodes(Parallelism)[i], so a rebuild reproduces the
	// same actors and vnode ownership.
	Parallelism int `json:"parallelism,omitempty"`
	// Adaptive makes Parallelism follow the database's default (the
	// number of cores unless configured): it is reset to it at every
	// open. Views and tables created without a parallelism, or altered
	// to SET PARALLELISM = ADAPTIVE | DEFAULT, are adaptive.
	Adaptive bool `json:"adaptive,omitempty"`
	// BackfillRateLimit caps the rows per second a view's backfill reads
	// (0: no limit).
	BackfillRateLimit int64 `json:"backfill_rate_limit,omitempty"`
	// BackfillPaused holds the view's backfill (ALTER ... PAUSE).
	BackfillPaused bool `json:"backfill_paused,omitempty"`
	// BackfillRateZero is a backfill rate limit of 0, which also holds
	// the backfill; it is independent of PAUSE/RESUME.
	BackfillRateZero bool `json:"backfill_rate_zero,omitempty"`
	// BackfillAdaptive makes the backfill's rate follow the load
	// (backfill_rate_limit = 'adaptive'): it keeps the running graph's
	// barrier latency under BackfillLatencyTarget (microseconds).
	BackfillAdaptive      bool  `json:"backfill_adaptive,omitempty"`
	BackfillLatencyTarget int64 `json:"backfill_latency_target,omitempty"`
	// BackfillQuarantined: the view's job failed BackfillFailures times
	// in a row with BackfillError and was paused (BackfillPaused) until a
	// RESUME (see the failure policy in ../../job_failures.go).
	BackfillQuarantined bool   `json:"backfill_quarantined,omitempty"`
	BackfillFailures    int    `json:"backfill_failures,omitempty"`
	BackfillError       string `json:"backfill_error,omitempty"`
	// DMLRateLimit caps the rows per second DML statements write into a
	// table (0: no limit).
	DMLRateLimit int64 `json:"dml_rate_limit,omitempty"`
	// DMLPaused holds a table's DML statements (a DML rate limit of 0).
	DMLPaused bool `json:"dml_paused,omitempty"`
	// AppendOnly: the table takes INSERTs only (APPEND ONLY; a source is
	// append-only by nature).
	AppendOnly bool `json:"append_only,omitempty"`
	// OnConflict is what an INSERT of a primary key already in the table
	// does, RisingWave's ON CONFLICT clause of CREATE TABLE: one of the
	// Conflict* words; "" fails it (23505), as in PostgreSQL.
	OnConflict string `json:"on_conflict,omitempty"`
	// Watermark, when not nil, is the table's or source's WATERMARK FOR.
	Watermark *Watermark `json:"watermark,omitempty"`
	// CloseWindows: the view's aggregates close the groups a watermark
	// passed (windows of TUMBLE or HOP over a watermark column), dropping
	// their state; views created before watermarks travelled keep their
	// state layout without. EmitOnWindowClose: EMIT ON WINDOW CLOSE, a
	// group's row is emitted once, when it closes.
	CloseWindows      bool `json:"close_windows,omitempty"`
	EmitOnWindowClose bool `json:"emit_on_window_close,omitempty"`
	// Retention, of a subscription, is how long its log keeps a change
	// (microseconds; 0: forever).
	Retention int64 `json:"retention,omitempty"`
	// Temporary: a subscription made for one COPY (SUBSCRIBE ...) or
	// DB.Subscribe of a relation, dropped when it ends (and at Open).
	Temporary bool `json:"temporary,omitempty"`
	// TempOwner, of a temporary table (CREATE TEMP TABLE), is the
	// backend process ID of the session that owns it (its schema is
	// TempSchema(TempOwner)); 0 for any other relation. The session's
	// end drops it, and Open drops any a crash left.
	TempOwner uint32 `json:"temp_owner,omitempty"`
	// Filling: a table CREATE TABLE AS has created and is filling. No
	// statement sees it by name until the fill has committed and the
	// mark is cleared; one left by a crash is dropped at Open.
	Filling bool `json:"filling,omitempty"`
	// Connector holds the connector options of a source or of a table fed
	// by a connector (WITH connector = ...); nil for a plain table.
	Connector map[string]string `json:"connector,omitempty"`
	// ConnectorBase is the source's creation time (µs since 1970), the
	// reference for generated timestamps.
	ConnectorBase int64 `json:"connector_base,omitempty"`
	// SourceRateLimit caps the rows per second a connector produces
	// (0: its own rate); SourcePaused (ALTER SOURCE ... PAUSE) and
	// SourceRateZero (a limit of 0) hold it.
	SourceRateLimit int64 `json:"source_rate_limit,omitempty"`
	SourcePaused    bool  `json:"source_paused,omitempty"`
	SourceRateZero  bool  `json:"source_rate_zero,omitempty"`
	// Index describes an index (KindIndex); nil for other kinds.
	Index *Index `json:"index,omitempty"`
	// Sequence holds a sequence's options (KindSequence); nil for other
	// kinds.
	Sequence *Sequence `json:"sequence,omitempty"`
	// Checks are a table's CHECK constraints, in creation order.
	Checks []Check `json:"checks,omitempty"`
	// Uniques are a table's UNIQUE constraints.
	Uniques []Unique `json:"uniques,omitempty"`
	// Comment is the relation's COMMENT ON ("" for none): pg_description
	// and obj_description show it.
	Comment string `json:"comment,omitempty"`
	// Bound holds, for each relation the view's Definition reads that an
	// ALTER has changed since the view was created (renamed it or its
	// columns, added or dropped columns), that relation as the
	// Definition names it: see bound.go.
	Bound map[uint32]*BoundRel `json:"bound,omitempty"`
	// ShownDefinition is Definition as SHOW CREATE and pg_get_viewdef
	// show it once a relation it names was renamed: with the names as
	// they are now (PostgreSQL shows a view's query from what it is
	// bound to). Empty: Definition. It only shows; Definition and Bound
	// are what binds.
	ShownDefinition string `json:"shown_definition,omitempty"`
	// Narrowed is set on a relation as a view created before columns
	// were added to it knows it (AsBoundBy): its stored rows may hold
	// more columns than Columns. Never stored.
	Narrowed bool `json:"-"`
}

// SourceHeld reports whether the relation's connector is held: paused,
// or rate-limited to 0.
func (r *Relation) SourceHeld() bool { return r.SourcePaused || r.SourceRateZero }

// VisibleColumns returns the indexes of the columns that are not hidden.
func (r *Relation) VisibleColumns() []int {
	var out []int
	for i, c := range r.Columns {
		if !c.Hidden {
			out = append(out, i)
		}
	}
	return out
}

// Shown returns the definition to show (ShownDefinition).
func (r *Relation) Shown() string {
	if r.ShownDefinition != "" {
		return r.ShownDefinition
	}
	return r.Definition
}

// ColumnTypes returns the types of all columns, hidden included.
func (r *Relation) ColumnTypes() []types.Type {
	ts := make([]types.Type, len(r.Columns))
	for i, c := range r.Columns {
		ts[i] = c.Type
	}
	return ts
}

// Reader is the catalog as the binder and planner see it.
type Reader interface {
	// Relation returns the relation named name (already case-folded).
	Relation(name string) (*Relation, bool)
	// RelationByID returns the relation with the given id.
	RelationByID(id uint32) (*Relation, bool)
}

// BackfillHeld reports whether the view's backfill is held: paused, or
// rate-limited to 0.
func (r *Relation) BackfillHeld() bool { return r.BackfillPaused || r.BackfillRateZero }

// AdaptiveTarget is the barrier latency an adaptive backfill keeps the
// running graph under; 0 when the backfill's rate is not adaptive.
func (r *Relation) AdaptiveTarget() time.Duration {
	if !r.BackfillAdaptive {
		return 0
	}
	return time.Duration(r.BackfillLatencyTarget) * time.Microsecond
}

// StateTables returns the ids of the state tables r owns: its rows' (its
// own id), its operators' (Internal) and its watermark filter's.
func (r *Relation) StateTables() []uint32 {
	ids := append([]uint32{r.ID}, r.Internal...)
	if r.Watermark != nil {
		ids = append(ids, r.Watermark.State)
	}
	if r.Storage != 0 {
		ids = append(ids, r.Storage)
	}
	return ids
}

// DataID is the state table holding r's rows: Storage, or ID when it is
// 0.
func (r *Relation) DataID() uint32 {
	if r.Storage != 0 {
		return r.Storage
	}
	return r.ID
}

// Table conflict behaviors (Relation.OnConflict), as SHOW CREATE TABLE
// writes them after ON CONFLICT.
const (
	ConflictOverwrite = "DO UPDATE FULL"        // the new row replaces the old one
	ConflictIgnore    = "DO NOTHING"            // the old row stays
	ConflictIfNotNull = "DO UPDATE IF NOT NULL" // the new row's non-NULL columns replace the old's
)
