package systemcatalog

import (
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// Engine is what the system catalogs read of the database: its stored
// relations and the running state streamdb_catalog shows. The engine
// implements it. Its methods are safe for concurrent use; the slices
// they return are the caller's, the relations and fragments in them are
// shared and never changed.
type Engine interface {
	// Relations returns every stored relation, views still being created
	// included, in id (creation) order.
	Relations() []*catalog.Relation
	// RelationByID returns the stored relation with the given id.
	RelationByID(id uint32) (*catalog.Relation, bool)
	// RelationByName returns the relation with the given catalog name
	// (catalog.QualifiedName), stored or system.
	RelationByName(name string) (*catalog.Relation, bool)
	// Schemas returns the user-created schemas, in id order.
	Schemas() []catalog.Schema
	// Fragments returns the fragments of relation id's running job, with
	// their actors and the vnodes each owns; none when it runs no job.
	Fragments(id uint32) []planner.Fragment
	// RowsGenerated returns how many rows relation id's connector has
	// produced, committed or about to be; ok is false when the relation
	// has no running connector.
	RowsGenerated(id uint32) (n int64, ok bool)
	// Jobs returns the jobs creating views, in id order.
	Jobs() []Job
	// Recoveries returns the stream graph's recent recoveries, oldest
	// first.
	Recoveries() []Recovery
	// ViewErrors returns the data errors of views' expressions counted
	// since the database opened, by view and message.
	ViewErrors() []ViewError
	// Watermark returns relation id's current watermark (nil: none yet)
	// and the late rows it dropped; ok is false when the relation has no
	// running watermark filter.
	Watermark(id uint32) (wm types.Datum, late int64, ok bool)
	// StateSizes measures the state tables of every stored relation that
	// keeps state, in relation id order, from one snapshot of committed
	// state.
	StateSizes() ([]StateSize, error)
	// Subscriptions lists the subscriptions, by name, with what their
	// logs hold in one snapshot of committed state.
	Subscriptions() ([]Subscription, error)
	// SequenceState returns sequence id's last value and whether it was
	// handed out (called).
	SequenceState(id uint32) (last int64, called bool, err error)
}

// ViewError counts the rows on which one of a view's expressions failed
// with one error (streamdb_catalog.view_errors).
type ViewError struct {
	View, Code, Message   string
	Count                 int64
	FirstEpoch, LastEpoch uint64 // 0: met by the view's backfill
	First, Last           time.Time
}

// Job is a view being created, as SHOW JOBS and
// streamdb_catalog.ddl_progress list it.
type Job struct {
	ID        uint32
	Statement string // the CREATE MATERIALIZED VIEW statement
	Phase     string // one of exec/stream's Phase* names
	Progress  float64
	RowsRead  int64
	RowsTotal int64
	// RowsPerSecond is the recent read rate.
	RowsPerSecond float64
	LogLag        int64
	Elapsed       time.Duration
	// View is the current version of the view: its backfill rate limit,
	// pause and parallelism.
	View *catalog.Relation
	// Failures counts the job's identical failures in a row, LastError is
	// the last one ("" for none), and Quarantined says whether they
	// stopped the job.
	Failures    int
	LastError   string
	Quarantined bool
	// The job runs on barriers of its own until it joins the running
	// graph: Epoch is the running graph's epoch whose upstream state it
	// has caught up with (0 before it started), CommittedEpoch the
	// running graph's last, OwnEpoch the last of the job's own barriers
	// committed, Joined when it joined (zero before).
	Epoch          uint64
	CommittedEpoch uint64
	OwnEpoch       uint64
	Joined         time.Time
	// AdaptiveRate is the current rate of an adaptive backfill (View's
	// BackfillAdaptive), in rows per second.
	AdaptiveRate int64
	// AdaptiveTarget is the latency target the adaptive rate works to:
	// the one set, or more when the running graph's p99 before the job
	// was above it (0: not known yet).
	AdaptiveTarget time.Duration
}

// Recovery is one recovery of the stream graph: an actor failed and the
// graph was rebuilt from committed state.
type Recovery struct {
	Seq      int64 // recoveries since the database opened
	At       time.Time
	Relation string // whose actor failed; "" when not known
	Cause    string
	Rebuild  time.Duration
}

// Identity is the session a catalog is read for: its user (the one role,
// a superuser that owns everything), its database and its settings.
type Identity struct {
	User     string
	Database string
	// PID is the session's backend process ID (pg_backend_pid()).
	PID int32
	// Settings are the session's settings, by lower-case name.
	Settings map[string]string
	// SetConfig, when not nil, changes a setting of the session as
	// set_config(name, value, is_local) does (a nil value resets it) and
	// returns its new value.
	SetConfig func(name string, value *string, local bool) (string, error)
	// Defaults are the settings' default values (pg_settings' boot_val,
	// and whether a setting's source is "default" or "session").
	Defaults map[string]string
	// Prepared, when not nil, lists the session's prepared statements
	// (pg_prepared_statements).
	Prepared func() []PreparedStatement
}

// PreparedStatement is a prepared statement of a session, as
// pg_prepared_statements shows it.
type PreparedStatement struct {
	Name, Statement string
	PrepareTime     types.Timestamp
	ParamTypes      []types.Type
	FromSQL         bool
	// GenericPlans and CustomPlans count the executions that used a
	// generic plan or planned for their own parameter values.
	GenericPlans, CustomPlans int64
}
