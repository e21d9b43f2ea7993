// Package systemcatalog defines streamdb's system catalogs, the read-only
// relations that describe the database, and computes their rows:
//
//   - pg_catalog: Postgres 15's catalogs and system views (pg_class,
//     pg_attribute, pg_type, pg_proc ...), with the columns Postgres gives
//     them, so that clients' catalog queries work: psql's \d commands and
//     tab completion, drivers' metadata, GUI tools. Catalogs of objects
//     streamdb does not have (triggers, policies, publications,
//     inheritance ...) exist and are empty.
//   - information_schema: tables, columns, schemata and views, from the
//     same relations.
//   - streamdb_catalog: the engine's running state: ddl_progress (the jobs
//     creating views, which SHOW JOBS lists too), rate_limits, sources,
//     actors, fragments, recoveries, view_errors, watermarks and
//     state_sizes (each relation's state, measured in the store).
//
// # Files
//
// One file per family of relations, named after its main one: pg_class.go
// (relations, columns, indexes, constraints), pg_type.go, pg_database.go
// (database, schemas, tablespaces, settings), pg_roles.go, pg_views.go
// (pg_tables, pg_matviews, pg_indexes ...), pg_proc.go, pg_aggregate.go,
// pg_operator.go (operators and casts), pg_description.go, pg_foreign.go
// (sources as foreign tables), pg_rules.go, pg_replication.go,
// pg_text_search.go, information_schema.go; and for streamdb_catalog
// ddl_progress.go, rate_limits.go, sources.go, actors.go (actors and
// fragments), recoveries.go, view_errors.go, watermarks.go and
// state_sizes.go. Each declares its relations (schema, name, OID,
// relkind, columns as Postgres's format_type prints their types) and the
// functions that compute their rows. The built-in functions,
// aggregates, operators and casts are data taken from PostgreSQL 15
// (pg_proc_data.go, pg_aggregate_data.go, pg_operator_data.go), checked
// against each other at init and against the expression package by the
// tests. tables.go lists every relation in pg_class's order and indexes
// them; functions.go and reg.go are the catalog's SQL functions.
//
// # Where rows come from
//
// Nothing here is stored. Rows are computed at each scan (Rows) from the
// Engine interface, which the engine implements: its stored relations
// (Relations, RelationByID), the fragments and actors of each relation's
// running job (Fragments), what connectors have produced (RowsGenerated),
// the jobs creating views (Jobs), the recent recoveries (Recoveries) and
// the size of each relation's state (StateSizes), as plain values; rate
// limits and pauses are the relations' own settings. A scan fails (Rows'
// error) when the engine cannot give what its rows show. The rows that depend on the session (the user who owns
// everything, the database's name, pg_settings) read an Identity, which
// the engine passes in. A scan lists the relations once (view), so that
// the rows of one relation are consistent with each other; two relations
// read in one query may see different lists.
//
// The catalog also provides the functions that read it or the session
// (current_database, pg_table_is_visible, pg_get_indexdef,
// obj_description ...) and the reg* types' input and output (regclassin,
// regtypeout ...): Functions implements catalog.Functions, and the engine
// hands it to the binder with its catalog.Reader. RegOutput prints a
// result's reg* values as names.
//
// # Identifiers
//
// OIDs: a stored relation's OID is its catalog id plus firstUserOID
// (16384), stable across restarts as ids are never reused; the index
// behind a table's primary key and its constraint get the relation's OID
// with indexOIDBit or constraintOIDBit set. The pg_catalog and
// information_schema relations have Postgres's OIDs, the streamdb_catalog
// ones 16000 up; schemas have fixed OIDs (Postgres's for pg_catalog,
// public and information_schema, 16383 for streamdb_catalog). Types,
// built-in functions, operators and casts have their Postgres OIDs;
// functions Postgres lacks are numbered from 15900. The one role, the
// session's user, is OID 10. System relations' catalog ids (what the
// binder and planner know them by) start at 0xFFFF0000, far from stored
// ones; they are not persisted.
//
// # Invariants
//
// The package holds no state besides its tables, built at init and never
// changed, and starts no goroutine; it is safe for concurrent use. Each
// pg_catalog and information_schema relation has Postgres's hidden
// system column tableoid; streamdb_catalog's do not. Behaviour is pinned
// by tests/ (psql_meta_test.go drives psql 15, pgcatalog_builtins_test.go
// and the .slt files query the catalogs) and, where PostgreSQL is
// installed, compared with it.
package systemcatalog
