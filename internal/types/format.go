package types

// Format renders a non-NULL Datum of type t in Postgres text output format
// (what psql shows: booleans as t/f, timestamps as 2024-01-02 03:04:05.5,
// timestamptz with +00, intervals as "1 day 02:00:00", floats with the
// shortest round-trip representation, NaN, Infinity ...).
func Format(d Datum, t Type) string { return format(d, t) }

// Parse reads a value of type t from Postgres text input format, as a
// string literal cast to t would (22P02 / 22007 / 22008 / 22003 on bad input).
func Parse(s string, t Type) (Datum, error) { return parse(s, t) }
