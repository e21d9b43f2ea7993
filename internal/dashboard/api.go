package dashboard

import "errors"

// ErrClosed is what a Source returns once its database has closed; the
// API answers 503 then.
var ErrClosed = errors.New("dashboard: the database is closed")

// Source is the database as the dashboard reads it. Its methods are safe
// for concurrent use and return values the caller may keep.
type Source interface {
	// Jobs returns the jobs creating views, in id order, as SHOW JOBS
	// lists them.
	Jobs() ([]Job, error)
	// Views returns the relations whose fragment graph can be shown.
	Views() ([]View, error)
	// Graph returns the fragment graph of the relation named view; ok is
	// false when there is no such relation.
	Graph(view string) (g *Graph, ok bool, err error)
	// History returns the samples taken after since (Unix milliseconds),
	// oldest first.
	History(since int64) (*HistoryReply, error)
	// Events returns the recent recoveries and the view errors.
	Events() (*Events, error)
}

// Job is a job creating a view or an index.
type Job struct {
	// Name is the relation's catalog name, Kind "materialized view" or
	// "index".
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Columns are SHOW JOBS's columns, in order, and Row the job's row of
	// SHOW JOBS by column name: numbers, strings, booleans and nulls, and
	// other types as they print.
	Columns []string       `json:"columns"`
	Row     map[string]any `json:"row"`
	// Progress is the row's progress as a fraction, 0 to 1.
	Progress float64 `json:"progress"`
	// ETASeconds estimates the time left to read the snapshot at the
	// current rate (null: not reading it, or no rate yet).
	ETASeconds *float64 `json:"eta_seconds"`
	// SQL are statements that steer the job, to copy.
	SQL []Command `json:"sql"`
}

// Command is a statement the page offers to copy, with what it does.
type Command struct {
	Label string `json:"label"`
	SQL   string `json:"sql"`
}

// View is a relation that runs fragments: a materialized view (creating
// or created), an index or a table.
type View struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

// Graph is the fragment graph of one relation's job, as
// streamdb_catalog.fragments and streamdb_catalog.actors list it.
type Graph struct {
	View  string `json:"view"`
	Kind  string `json:"kind"`
	State string `json:"state"`
	// Upstreams are the relations the job reads, by name.
	Upstreams []string   `json:"upstreams"`
	Fragments []Fragment `json:"fragments"`
	// Exchanges are the edges: from an upstream relation or a fragment
	// to a fragment.
	Exchanges []Exchange `json:"exchanges"`
}

// Fragment is one fragment of a job.
type Fragment struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
	// Operators are the fragment's operators, its top first, as
	// streamdb_catalog.fragments joins them with " <- ".
	Operators   []string `json:"operators"`
	Parallelism int      `json:"parallelism"`
	Actors      []Actor  `json:"actors"`
	// RowsOut counts the rows the fragment's actors sent downstream since
	// its graph was built (streamdb_fragment_rows_out_total).
	RowsOut int64 `json:"rows_out"`
	// RowsPerSecond is RowsOut's rate over the last sample interval
	// (null before two samples of this graph).
	RowsPerSecond *float64 `json:"rows_per_second"`
}

// Actor is one actor of a fragment and the vnodes it owns.
type Actor struct {
	ID         uint64 `json:"id"`
	VnodeCount int    `json:"vnode_count"`
	Vnodes     string `json:"vnodes"` // ranges, such as "0-63,128-191"
}

// Exchange is a hash exchange into fragment To: from fragment From of the
// same job, or from the actors of relation Upstream when it is set.
type Exchange struct {
	From     int    `json:"from"`
	Upstream string `json:"upstream,omitempty"`
	To       int    `json:"to"`
	// Key is the hash key, as streamdb_catalog.fragments prints it.
	Key string `json:"key"`
}

// HistoryReply is a stretch of history.
type HistoryReply struct {
	// IntervalMillis is the time between samples.
	IntervalMillis int64    `json:"interval_ms"`
	Samples        []Sample `json:"samples"`
}

// Sample is one sample of the history: rates and latencies over the
// interval that ends at T, and levels at T.
type Sample struct {
	T int64 `json:"t"` // Unix milliseconds
	// Barriers counts the running graph's barriers committed in the
	// interval; BarrierMeanMillis is their mean latency (injection to
	// commit), BarrierP99Millis the upper bound of the latency histogram
	// bucket that holds their 99th percentile (null: no barrier).
	Barriers          int64    `json:"barriers"`
	BarrierMeanMillis *float64 `json:"barrier_mean_ms"`
	BarrierP99Millis  *float64 `json:"barrier_p99_ms"`
	// DMLRowsPerSecond is the rate of rows written by DML and COPY FROM.
	DMLRowsPerSecond float64 `json:"dml_rows_per_second"`
	// FragmentRowsPerSecond is the rate of rows sent downstream by every
	// fragment of every job (a rebuilt graph's counters start again).
	FragmentRowsPerSecond float64 `json:"fragment_rows_per_second"`
	// BackfillRowsPerSecond sums the jobs' rows_per_second.
	BackfillRowsPerSecond float64 `json:"backfill_rows_per_second"`
	// Epoch is the epoch the running graph's next barrier starts,
	// Committed its last committed; EpochsUncommitted is the difference:
	// barriers injected whose epoch has not committed yet.
	Epoch             uint64 `json:"epoch"`
	Committed         uint64 `json:"committed"`
	EpochsUncommitted uint64 `json:"epochs_uncommitted"`
	// JobLagEpochs is the most epochs a creating job lags the running
	// graph (SHOW JOBS's lag_epochs; null: no job has started).
	JobLagEpochs *int64 `json:"job_lag_epochs"`
}

// Events are the recent recoveries and the view errors.
type Events struct {
	Recoveries []Recovery  `json:"recoveries"`
	ViewErrors []ViewError `json:"view_errors"`
}

// Recovery is a row of streamdb_catalog.recoveries.
type Recovery struct {
	Seq       int64   `json:"seq"`
	At        string  `json:"at"` // RFC 3339
	Relation  string  `json:"relation"`
	Cause     string  `json:"cause"`
	RebuildMS float64 `json:"rebuild_ms"`
}

// ViewError is a row of streamdb_catalog.view_errors.
type ViewError struct {
	View       string `json:"view"`
	Code       string `json:"code"`
	Error      string `json:"error"`
	Count      int64  `json:"count"`
	FirstEpoch uint64 `json:"first_epoch,omitempty"`
	LastEpoch  uint64 `json:"last_epoch,omitempty"`
	FirstAt    string `json:"first_at"`
	LastAt     string `json:"last_at"`
}
