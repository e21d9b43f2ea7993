// Package types defines streamdb's SQL types and the Go representation of
// their values. Every layer shares it: the binder types expressions with
// it, executors and chunks carry its values, storage encodes them and the
// wire protocol formats them. It imports nothing of streamdb's but pgerr,
// so every package can.
//
// # Types
//
// A Type is an ID and its modifiers: Width of varchar(n), Precision and
// Scale of numeric(p,s), Elem of an array, and Vector for the catalogs'
// int2vector and oidvector. It is a comparable value: varchar(3) and
// varchar are different Types of one ID, and code that means "same kind
// of value" compares IDs. String gives the name format_type prints, OID
// the Postgres type OID, ByName (DDL) and ExprTypeByName (casts) read a
// type name.
//
// IDUnknown is the type of an untyped string literal or NULL until its
// context gives it one (see internal/expr); no stored column has it. The
// types from IDOid to IDRegrole (oid, the reg* types) exist in expressions
// and the system catalogs only: tables cannot store them; arrays, json,
// jsonb and bytea, after them (IDs are persisted, so new types go at the
// end), can. CatalogType
// lists Postgres types that have no values here (pseudo-types, name) so
// pg_type can name them.
//
// # Datums
//
// A Datum is one value, as an interface holding the Go type of its SQL
// type:
//
//	type            Datum Go type       Arrow type
//	NULL (any)      nil                 (validity bitmap)
//	boolean         bool                Boolean
//	smallint        int64               Int16
//	integer         int64               Int32
//	bigint          int64               Int64
//	real            float64             Float32
//	double          float64             Float64
//	numeric         *apd.Decimal        Binary (numeric_binary.go, plain)
//	text, varchar   string              String
//	date            Date                Date32
//	timestamp       Timestamp           Timestamp(us)
//	timestamptz     Timestamp           Timestamp(us, "UTC")
//	interval        Interval            MonthDayNanoInterval
//	oid, reg*       int64               Int64 (the OID)
//	T[]             string              String (canonical {a,"b c",NULL})
//	json, jsonb     string              String (input text; normal form)
//	bytea           string              String (the raw bytes)
//	uuid            string              String (its 16 bytes)
//	time            int64               Int64 (microseconds since midnight)
//	timetz          int64               Int64 (time and zone, PackTimeTZ)
//	character(n)    string              String (blank-padded to n)
//	inet, cidr      string              String (bytes in network_cmp order)
//
// (internal/chunk converts between Datums and Arrow arrays.) The Type, not
// the Datum, says which SQL type a value has, so every function taking a
// Datum takes its Type too. The representation keeps these invariants,
// which code producing Datums must keep:
//
//   - Integers are int64 whatever the column width; the Type says the
//     width, and range checks (22003) happen where values are produced:
//     parsing, casts, arithmetic, assignment to a column.
//   - A real is a float64 holding a value already rounded to float32.
//   - A *apd.Decimal is immutable once built: never modify one you did not
//     allocate. Its exponent is its display scale, as in Postgres (1.50 is
//     150e-2 and prints 1.50); parsed values have no positive exponent and
//     no negative zero (NormalizeNumeric). NaN and ±Infinity are Decimal
//     forms.
//   - Date counts days and Timestamp microseconds from 1970-01-01 (UTC; a
//     timestamp without time zone is its wall-clock reading taken as UTC).
//     The extreme values of each are ±infinity; DateValid and
//     TimestampValid give the finite range.
//   - Interval keeps months, days and microseconds apart, as Postgres
//     does, because their lengths vary.
//   - An array is the canonical text Postgres's array_out prints, so two
//     arrays of one type are equal exactly when their strings are; only
//     one-dimensional arrays with lower bound 1 exist.
//   - A bytea is its bytes, not its text: any bytes, compared as
//     memcmp then length (Go's string order); only Parse and Format
//     (hex, \x0102) see its text form (bytea.go). So are uuid and inet /
//     cidr (Type.IsRawBytes), built so that byte order is their SQL
//     order (uuid.go, inet.go).
//   - time and timetz are int64s whose integer order is their SQL order
//     (timeofday.go, timetz.go); the Type, not the Datum, tells them
//     from integers.
//   - A character(n) keeps its padding; it compares, keys and converts
//     to text without its trailing blanks (bpchar.go).
//
// # Text formats
//
// Parse reads Postgres's text input format for a type (what a string
// literal cast to it accepts; 22P02, 22007, 22008, 22003 on bad input) and
// Format writes its text output format, as psql shows it from a server
// with DateStyle ISO, TimeZone UTC, IntervalStyle postgres and
// extra_float_digits 1 (Format reads no session setting). NULL has no
// text form: callers render it (Format gives ""). The reg* types parse and format as bare numbers here; their names
// need the catalog, which the engine supplies.
//
// # Comparison and keys
//
// This package does not order values. expr.Compare orders two non-NULL
// Datums of one Type as Postgres's btree operator class does (numeric
// 1.0 = 1.00, float -0 = 0 with NaN above every number, text by bytes,
// intervals by their span with 30-day months); NULLs are the caller's to
// place (Sort, storage keys). storage's memcomparable key encoding
// (storage/memcmp.go) writes the same order as bytes, and a row's vnode
// hashes that encoding, so values that compare equal share a key and a
// vnode; the one exception is intervals, whose keys tell '1 mon' from
// '30 days'. The batch executors' hash keys (exec/batch/key.go) group
// such intervals together.
package types
