package sql

// Statements beyond those of stmt.go: the operator commands that steer
// streaming jobs (see ARCHITECTURE.md, "Backfill").

// AlterAction is what an AlterStmt does.
type AlterAction uint8

// Alter actions.
const (
	AlterPause          AlterAction = iota // PAUSE
	AlterResume                            // RESUME
	AlterSetParallelism                    // SET PARALLELISM {= | TO} n | DEFAULT
	AlterSetRateLimit                      // SET <name>_rate_limit {= | TO} n | DEFAULT
)

// AlterStmt is ALTER {TABLE | MATERIALIZED VIEW | SOURCE} name action.
type AlterStmt struct {
	Kind   ObjectKind
	Name   string
	Action AlterAction
	// Param is the lower-case parameter of AlterSetRateLimit
	// ("backfill_rate_limit", "source_rate_limit", ...).
	Param string
	// Value is the number set; Default is true for DEFAULT instead,
	// Adaptive for ADAPTIVE (a rate limit that follows the load, see
	// backfill_rate_limit), and Unlimited for UNLIMITED (no limit, whatever
	// the default).
	Value     int64
	Default   bool
	Adaptive  bool
	Unlimited bool
}

// AlterSystemStmt is ALTER SYSTEM SET name {= | TO} value | DEFAULT, or
// ALTER SYSTEM RESET name (Default): a parameter of the database itself,
// kept in its store across restarts (see SHOW PARAMETERS).
type AlterSystemStmt struct {
	Name    string // lower case
	Value   string // as written, quotes removed; empty when Default
	Default bool
}

// CancelJobsStmt is CANCEL JOB[S] id, ....
type CancelJobsStmt struct{ IDs []int64 }

// WaitStmt is WAIT: return once every streaming job has caught up.
type WaitStmt struct{}

func (*AlterStmt) node()       {}
func (*CancelJobsStmt) node()  {}
func (*AlterSystemStmt) node() {}
func (*WaitStmt) node()        {}
