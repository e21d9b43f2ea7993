// Package jsonb implements PostgreSQL 15's jsonb values in pure Go: input
// (Parse), output (String, Pretty), the btree order (Compare), and the
// jsonb operators and functions: -> ->> #> #>> @> <@ ? ?| ?& || - #-,
// jsonb_set, jsonb_insert, jsonb_strip_nulls, jsonb_typeof,
// jsonb_array_length, jsonb_object_keys, jsonb_each[_text],
// jsonb_array_elements[_text], jsonb_pretty. ValidateJSON is the json
// type's input check; Members reads a json object's members as written
// (json_each).
//
// The engine stores a jsonb value as its normal form's text, String's
// output, and parses it again to operate on it. A Value is that normal
// form: object keys sorted as PostgreSQL stores them (shorter keys first,
// then bytewise), the last of duplicate keys kept, numbers as PostgreSQL's
// numeric prints them (1.50 stays 1.50, 1e2 is 100, -0 is 0), strings
// de-escaped. Values are immutable. The engine's storage key of a jsonb
// value (its state tables' and primary keys' key) is AppendSortKey's sort
// key, a stored format that must never change; DecodeSortKey reads it
// back.
//
// Errors are *pgerr.Error with PostgreSQL's SQLSTATE, message, detail and
// hint; a JSON syntax error's Where holds PostgreSQL's context line
// ("JSON data, line 1: ...").
//
// SQL NULL versus JSON null: functions whose PostgreSQL counterparts can
// return SQL NULL return ok=false for it; JSON null is a Value of kind
// Null. Arguments that are SQL NULL are the caller's business, with the
// exceptions of path elements (the ...Nulls variants of DeletePath, Set
// and Insert take them, since PostgreSQL's errors for them depend on how
// far the path reaches) and of the key lists of ?|, ?& and - text[],
// whose NULL elements the caller drops (PostgreSQL ignores them).
//
// Known differences from PostgreSQL:
//
//   - Strings compare bytewise, as under the C (or C.UTF-8) collation;
//     PostgreSQL compares jsonb strings with the database's collation.
//   - Nesting is limited to MaxDepth levels (error 54001, as PostgreSQL's
//     "stack depth limit exceeded", whose limit depends on
//     max_stack_depth).
//   - Input is taken to be valid UTF-8 without NUL bytes, as PostgreSQL's
//     text is; invalid bytes pass through. (A string built by FromString
//     with a NUL prints as \u0000, which Parse refuses, as PostgreSQL
//     does.)
//   - jsonb's size limits other than the string length (268435455 bytes)
//     are not checked.
//
// The tests check the package against PostgreSQL 15's results, kept in
// pgcases_test.go; testdata/gen_pgcases.py regenerates them from a
// server.
package jsonb
