package streamdb

import (
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Scan destinations, by the column's SQL type:
//
//	smallint, integer, bigint  *int, *int16, *int32, *int64 (range-checked), *float64, *float32, *apd.Decimal
//	real, double precision     *float64, *float32
//	numeric                    *apd.Decimal, *string, *float64, *float32; *int, *int32, *int64 when integral
//	boolean                    *bool
//	text, varchar, json(b)     *string, *[]byte
//	bytea                      *[]byte (a copy), *string
//	date, timestamp(tz)        *time.Time (UTC)
//	uuid                       *string, *[]byte (its text), *[16]byte (its bytes)
//	time                       *string (its text), *time.Duration (since midnight)
//	time with time zone        *string, *[]byte (its text)
//	character(n)               *string, *[]byte (blank-padded, as Postgres sends it)
//	any type                   *string (its Postgres text), *any (as Values), a sql.Scanner
//	                           (sql.NullInt64, sql.NullString ... receive what Values gives)
//
// A NULL scans into *any (nil), a sql.Scanner (Scan(nil)) or a pointer to
// a pointer (**int ... set to nil); into any other destination it is an
// error with Code 22004, as database/sql reports it.

// sqlStateNullNotAllowed is SQLSTATE null_value_not_allowed.
const sqlStateNullNotAllowed = "22004"

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// scanError names the column a Scan failed on.
func scanError(i int, name string, err error) error {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Code: pgerr.DatatypeMismatch, Message: err.Error(), cause: err}
	}
	out := *e
	out.Message = fmt.Sprintf("streamdb: Scan error on column index %d, name %q: %s", i, name, e.Message)
	return &out
}

func mismatch(_ types.Datum, t types.Type, dest any) error {
	return &Error{Code: pgerr.DatatypeMismatch, Message: fmt.Sprintf("cannot scan %s into %T", t, dest)}
}

func outOfRange(t types.Type, dest any) error {
	return &Error{Code: pgerr.NumericOutOfRange, Message: fmt.Sprintf("%s value out of range for %T", t, dest)}
}

// scanValue stores d, of SQL type t, in dest.
func scanValue(dest any, d types.Datum, t types.Type) error {
	switch p := dest.(type) {
	case *any:
		*p = engine.GoValue(d, t)
		return nil
	case *apd.Decimal: // a sql.Scanner, but exactly and NULL-checked here
		if d == nil {
			return scanNull(dest)
		}
		return scanDecimal(p, d, t)
	case sql.Scanner:
		return p.Scan(engine.GoValue(d, t))
	}
	if d == nil {
		return scanNull(dest)
	}
	if t.ID == types.IDUUID || t.ID == types.IDTime || t.ID == types.IDTimeTZ {
		return scanUUIDOrTime(dest, d, t)
	}
	switch p := dest.(type) {
	case *string:
		*p = textOf(d, t)
	case *[]byte:
		*p = []byte(textOf(d, t)) // bytea: its raw bytes (see textOf)
	case *bool:
		v, ok := d.(bool)
		if !ok {
			return mismatch(d, t, dest)
		}
		*p = v
	case *time.Time:
		v, ok := timeOf(d)
		if !ok {
			return mismatch(d, t, dest)
		}
		*p = v
	case *float64:
		v, ok := floatOf(d)
		if !ok {
			return mismatch(d, t, dest)
		}
		*p = v
	case *float32:
		v, ok := floatOf(d)
		if !ok {
			return mismatch(d, t, dest)
		}
		*p = float32(v)
	case *int, *int16, *int32, *int64:
		return scanInt(dest, d, t)
	default:
		return scanPointer(dest, d, t)
	}
	return nil
}

// textOf is d as a string: a text's own value, a bytea's raw bytes, and
// any other type's Postgres text (in UTC for timestamptz).
func textOf(d types.Datum, t types.Type) string {
	if s, ok := d.(string); ok && (t.ID == types.IDBytea || !t.IsRawBytes()) {
		return s
	}
	return types.Format(d, t)
}

// scanUUIDOrTime stores a non-NULL uuid or time in dest: a uuid as its
// text (*string, *[]byte) or its 16 bytes (*[16]byte), a time as its
// text or as the time.Duration since midnight.
func scanUUIDOrTime(dest any, d types.Datum, t types.Type) error {
	switch p := dest.(type) {
	case *string:
		*p = types.Format(d, t)
	case *[]byte:
		*p = []byte(types.Format(d, t))
	case *[16]byte:
		s, ok := d.(string)
		if !ok || len(s) != 16 {
			return mismatch(d, t, dest)
		}
		copy(p[:], s)
	case *time.Duration:
		v, ok := d.(int64)
		if !ok || t.ID != types.IDTime {
			return mismatch(d, t, dest)
		}
		*p = time.Duration(v) * time.Microsecond
	default:
		return mismatch(d, t, dest)
	}
	return nil
}

func timeOf(d types.Datum) (time.Time, bool) {
	switch v := d.(type) {
	case types.Date:
		return time.Unix(int64(v)*86400, 0).UTC(), true
	case types.Timestamp:
		return time.UnixMicro(int64(v)).UTC(), true
	}
	return time.Time{}, false
}

func floatOf(d types.Datum) (float64, bool) {
	switch v := d.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	case *apd.Decimal:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

func scanDecimal(p *apd.Decimal, d types.Datum, t types.Type) error {
	switch v := d.(type) {
	case *apd.Decimal:
		p.Set(v)
	case int64:
		p.SetInt64(v)
	case float64:
		if _, err := p.SetFloat64(v); err != nil {
			return mismatch(d, t, p)
		}
	default:
		return mismatch(d, t, p)
	}
	return nil
}

// scanInt stores an integer (or an integral numeric) in *int, *int16,
// *int32 or *int64, checking its range.
func scanInt(dest any, d types.Datum, t types.Type) error {
	var n int64
	switch v := d.(type) {
	case int64:
		n = v
	case *apd.Decimal:
		var i apd.Decimal
		if _, err := decimalCtx.RoundToIntegralExact(&i, v); err != nil || i.Cmp(v) != 0 {
			return mismatch(d, t, dest)
		}
		var err error
		if n, err = i.Int64(); err != nil {
			return outOfRange(t, dest)
		}
	default:
		return mismatch(d, t, dest)
	}
	switch p := dest.(type) {
	case *int:
		if int64(int(n)) != n {
			return outOfRange(t, dest)
		}
		*p = int(n)
	case *int16:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return outOfRange(t, dest)
		}
		*p = int16(n)
	case *int32:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return outOfRange(t, dest)
		}
		*p = int32(n)
	case *int64:
		*p = n
	}
	return nil
}

// scanNull stores a NULL: only a pointer to a pointer can hold it.
func scanNull(dest any) error {
	v := reflect.ValueOf(dest)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Pointer {
		v.Elem().Set(reflect.Zero(v.Elem().Type()))
		return nil
	}
	return &Error{Code: sqlStateNullNotAllowed, Message: fmt.Sprintf("converting NULL to %s is unsupported", elemName(dest))}
}

func elemName(dest any) string {
	t := reflect.TypeOf(dest)
	if t != nil && t.Kind() == reflect.Pointer {
		return t.Elem().String()
	}
	return fmt.Sprintf("%T", dest)
}

// scanPointer handles **T: a new T is scanned into and stored.
func scanPointer(dest any, d types.Datum, t types.Type) error {
	v := reflect.ValueOf(dest)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Pointer {
		return &Error{Code: pgerr.DatatypeMismatch, Message: fmt.Sprintf("unsupported Scan destination %T", dest)}
	}
	inner := reflect.New(v.Elem().Type().Elem())
	if err := scanValue(inner.Interface(), d, t); err != nil {
		return err
	}
	v.Elem().Set(inner)
	return nil
}
