package expr

import (
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Casts of the object identifier types (oid, reg*) and of arrays, as
// pg_cast has them: integers convert to oid implicitly, oid to integer
// and bigint in assignment; oid and the reg* types convert to each other
// implicitly (they share the value). Text converts to them explicitly
// (the reg* types by number only: their name lookups need the catalog,
// which the binder supplies). An array converts to another element by
// element.

// catArray is the category of array types (pg_type.typcategory 'A').
const catArray = 'A'

func extCategory(id types.ID) byte {
	switch {
	case types.Type{ID: id}.IsOID():
		return catNumeric
	case id == types.IDArray:
		return catArray
	case id == types.IDJSON || id == types.IDJSONB || id == types.IDBytea || id == types.IDUUID:
		return catUser
	case id == types.IDInet || id == types.IDCidr:
		return catNetwork
	case id == types.IDTime || id == types.IDTimeTZ:
		return catDateTime
	case id == types.IDBpchar:
		return catString
	}
	return catUnknown
}

// extImplicitCast decides implicitCast for the oid family; decided is
// false for other types.
func extImplicitCast(from, to types.ID) (ok, decided bool) {
	f, t := types.Type{ID: from}, types.Type{ID: to}
	switch {
	case t.IsOID():
		return f.IsInteger() || f.IsOID(), true
	case f.IsOID():
		return false, true
	case from == types.IDInet || to == types.IDInet || from == types.IDCidr || to == types.IDCidr:
		return from == types.IDCidr && to == types.IDInet, true
	case from == types.IDTimeTZ || to == types.IDTimeTZ:
		return from == types.IDTime && to == types.IDTimeTZ, true
	case from == types.IDTime || to == types.IDTime:
		return from == types.IDTime && to == types.IDInterval, true
	}
	return false, false
}

// extCastLevel decides castLevel for the oid family and arrays.
func extCastLevel(from, to types.ID) (castContext, bool, bool) {
	if from == to || from == types.IDUnknown {
		return 0, false, false
	}
	if level, ok, decided := jsonCastLevel(from, to); decided {
		return level, ok, true
	}
	if level, ok, decided := inetCastLevel(from, to); decided {
		return level, ok, true
	}
	if level, ok, decided := timeTZCastLevel(from, to); decided {
		return level, ok, true
	}
	if level, ok, decided := timeCastLevel(from, to); decided {
		return level, ok, true
	}
	if ok, _ := extImplicitCast(from, to); ok {
		return ctxImplicit, true, true
	}
	f, t := types.Type{ID: from}, types.Type{ID: to}
	switch {
	case f.IsOID() && (to == types.IDInt32 || to == types.IDInt64):
		return ctxAssign, true, true
	case f.IsOID() && category(to) == catString:
		return ctxAssign, true, true
	case f.IsOID() || (t.IsOID() && category(from) != catString):
		return 0, false, true
	case from == types.IDArray && category(to) == catString:
		return ctxAssign, true, true
	case to == types.IDArray && category(from) != catString:
		return 0, false, true
	}
	return 0, false, false
}

// extConverter returns the conversions of the oid family and arrays, nil
// for others.
func extConverter(from, to types.Type, explicit bool) convertFn {
	if fn := jsonConverter(from, to); fn != nil {
		return fn
	}
	if fn := inetConverter(from, to, explicit); fn != nil {
		return fn
	}
	if fn := timeTZConverter(from, to, nil); fn != nil {
		return fn
	}
	if fn := timeConverter(from, to); fn != nil {
		return fn
	}
	if fn := bpcharConverter(from, to, explicit); fn != nil {
		return fn
	}
	switch {
	case to.IsOID() && from.IsInteger():
		return func(v types.Datum) (types.Datum, error) { return intToOID(v.(int64)) }
	case from.IsOID() && to.ID == types.IDInt32:
		return func(v types.Datum) (types.Datum, error) { return int64(int32(uint32(v.(int64)))), nil }
	case from.IsOID() && to.IsOID(), from.IsOID() && to.ID == types.IDInt64:
		return func(v types.Datum) (types.Datum, error) { return v, nil }
	case from.ID == types.IDArray && to.ID == types.IDArray:
		return arrayConverter(from, to, explicit)
	}
	return nil
}

// intToOID converts an integer to an oid: -2^31 .. 2^32-1, negative
// values wrapping around.
func intToOID(n int64) (types.Datum, error) {
	if n < -(1<<31) || n >= 1<<32 {
		return nil, pgerr.New(pgerr.NumericOutOfRange, "OID out of range")
	}
	return int64(uint32(n)), nil
}

// arrayConverter converts an array element by element.
func arrayConverter(from, to types.Type, explicit bool) convertFn {
	fe, te := from.ElemType(), to.ElemType()
	if fe == te {
		return func(v types.Datum) (types.Datum, error) { return v, nil }
	}
	level, ok := castLevel(fe.ID, te.ID)
	if !ok || (level == ctxExplicit && !explicit) {
		return func(types.Datum) (types.Datum, error) { return nil, castError(from, to, ctxExplicit) }
	}
	conv := converter(fe, te, explicit)
	return func(v types.Datum) (types.Datum, error) {
		return mapArray(v.(string), fe, te, conv)
	}
}

// mapArray applies f to each non-NULL element of the array s of elements
// of type from, keeping its shape; the result has elements of type to.
func mapArray(s string, from, to types.Type, f convertFn) (types.Datum, error) {
	a, err := types.ParseArrayValue(s, from)
	if err != nil {
		return nil, err
	}
	for i, e := range a.Elems {
		if e == nil {
			continue
		}
		if a.Elems[i], err = f(e); err != nil {
			return nil, err
		}
	}
	return types.FormatArrayValue(a, to), nil
}

func init() {
	for _, op := range comparisons {
		addBinary(op, types.IDOid, types.IDOid, tBool, comparison(op, types.Type{ID: types.IDOid}))
	}
}
