// Package planner turns bound statements into executable plans: a tree of
// batch executors for a query or a DML statement's rows (BuildBatch), and
// the actors of a stream job for a materialized view (PlanView, then
// BuildViewJob) or a table (BuildTableJob). Explain and ExplainFragments
// render both for EXPLAIN.
//
// # Logical plans
//
// The binder (sql/binder) builds a logical plan from the node types of
// this package (logical.go, subquery.go, expand.go, unnest.go) and wraps
// it in a bound statement (statement.go) that the engine executes. Nodes
// are plain data. Every node outputs a row of Columns; the expressions
// inside a node (internal/expr) refer to its input row by column index,
// a Join's to the left row followed by the right one. Hidden columns are
// carried for keys (a table's row id, a view's stream key) and never
// shown. Once the binder has returned a plan nothing modifies it: a
// rewrite builds new nodes, and a node may have several parents (a CTE
// used twice).
//
// There is no optimizer: a batch plan runs as the binder built it, each
// node one executor of exec/batch (batch.go), every join a hash join on
// the equality conjuncts the binder found (Join.LeftKeys, RightKeys; with
// none, all rows share one bucket), every sort in memory. A node used
// twice gets one executor per use. Only a Filter over a Scan chooses how
// it reads: a primary key prefix (keylookup.go), else an index on the
// relation (index_access.go; an index is a view laid out by index.go).
//
// # Stream plans
//
// PlanView rewrites a view's plan (stream.go, withStreamKey) so that every
// node outputs a unique key, its stream key, which the stream executors
// need to retract and update rows: a scan's primary key; a projection keeps
// its input's key, adding hidden columns for key columns it does not
// project; an aggregate's key is its group key; a join's is the left key,
// the right key and the join key columns that carry its vnode (see
// joinWithKey); an Expand's is its input's and the window start. ORDER BY
// is dropped. A VALUES numbers its rows in a hidden key column: constant
// rows are a backfill of their own, emitted once (values.go). The view's
// columns are the query's, then the hidden key columns (_keyN); its
// primary key is the stream key.
//
// BuildViewJob cuts the plan into fragments where the rows' distribution
// must change and builds N actors per fragment, each owning a contiguous
// range of the 256 vnodes (fragment.go has the rules): a scan fragment
// per scanned relation, partitioned as that relation is; an aggregate
// after an exchange on its group key, in two phases (LocalAgg first) when
// its calls split, and in its input's actors when they are already
// partitioned by the group key; a join after exchanges of both sides on
// the join key; the view's Materialize in the last fragment when that is
// partitioned by a subset of the view's key (the view's DistKey), else
// after one more exchange. Filters and projections run where their input
// runs. A fragment with no key to partition by (a global aggregate, a
// join without equalities) has one actor; the others have the relation's
// Parallelism (at most MaxParallelism).
//
// BuildTableJob builds a table's or source's job: one actor taking the
// DML (and running the connector, if any) that materializes the rows, or,
// for a table of parallelism N, that hashes them to N actors that do.
//
// # Ownership
//
// Building a job creates actors, channels, exchanges and state contexts
// but starts nothing: the engine connects each of the StreamJob's Inlets
// to the actors of its upstream (Inlet.Connect) and hands the actors to
// the coordinator (exec/stream), which starts, owns and joins them. A job
// that never runs (EXPLAIN) is simply dropped. Jobs are built
// on one goroutine, by the engine under its DDL lock or while it rebuilds
// the graph; nothing here is safe for concurrent use.
//
// # Invariants
//
//   - Rebuilds plan the same job. The engine re-plans every view from its
//     stored definition at each open, recovery and rescale (ScanMode
//     Follow or Resume), reading its state table ids back, in allocation
//     order, from the catalog (StreamEnv.NextStateTableID) and following
//     its recorded DistKey, which only a new job (Backfill) decides. So for
//     a given view the planner must allocate the same state tables, in the
//     same order and with the same layouts, in every mode and every
//     version: a change that alters them for existing views needs a
//     migration. The stream plan files in testdata/stream show such
//     changes as a diff.
//   - Partitioning matches state. Rows reach the actor owning their
//     vnode, hashed from the same columns as the DistKey of the state
//     tables that actor writes, so each actor reads and writes only its
//     own vnodes' keys (I4, checked under the invariants build tag) and a
//     rescale moves state by moving vnodes.
//   - Every node of a stream plan has a stream key, and two actors never
//     emit changes for one key: a row's key includes what decides the
//     actor that produces it.
package planner
