package catalog

import "github.com/streamdb/streamdb/internal/types"

// Functions is implemented by a catalog that also provides functions over
// its live state: the pg_catalog functions that describe relations and
// the session (pg_get_userbyid, pg_table_is_visible, current_database ...)
// and the name lookups of the reg* types, named after Postgres's input and
// output functions (regclassin reads a relation name or number as a
// regclass, regclassout prints one; likewise regtype, regnamespace,
// regproc, regrole).
type Functions interface {
	// Function returns the function called name (lower case) for
	// arguments of the given types; ok is false when there is none.
	Function(name string, args []types.Type) (f *Func, ok bool)
}

// Func is a function a catalog implements.
type Func struct {
	// Params are the types the arguments are converted to.
	Params []types.Type
	Result types.Type
	// Strict functions yield NULL for a NULL argument without Eval.
	Strict bool
	// Eval computes the result; it must be safe for concurrent use.
	Eval func(args []types.Datum) (types.Datum, error)
}
