package stream

import "errors"

// errAppendOnlyDelete fails an operator planned for an insert-only input
// (AggSpec.AppendOnly, TopNSpec.AppendOnly) that was sent a delete: it
// keeps too little state to apply one, and a wrong result must not pass
// for a right one. The planner proves an input append-only from the
// catalog (sources, APPEND ONLY tables) and the plan (filters,
// projections, inner joins, UNION ALL), so this is a bug if it happens.
var errAppendOnlyDelete = errors.New("stream: a delete reached an operator planned for an append-only input")
