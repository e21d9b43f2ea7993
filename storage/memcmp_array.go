package storage

import (
	"github.com/streamdb/streamdb/internal/types"
)

// Array keys. PostgreSQL orders arrays (array_cmp) element by element, by
// the element type's order, with a NULL element after every value, and an
// array before the longer arrays it is a prefix of: '{}' is the smallest
// array, and '{1}' < '{1,2}' < '{1,NULL}' < '{NULL}'. An array's key, after
// the keyPresent marker, is its elements' keys in order, then arrayEnd:
//
//	non-NULL element  its key (AppendDatumKeyOf of the element type),
//	                  which opens with keyPresent
//	NULL element      arrayNullElem
//	end of the array  arrayEnd
//
// arrayEnd < keyPresent < arrayNullElem gives PostgreSQL's order, and
// element keys are prefix-free, so array keys are too. Equal arrays key
// equal ('{1.5}' and '{1.50}' as numeric[], '{-0}' and '{0}' as float8[]).
// Only one-dimensional arrays with lower bound 1 exist (types.ParseArray),
// so dimensions are not keyed. Key format 3 introduced this; format 2 keyed
// an array by its text.
const (
	arrayEnd      byte = 0x00
	arrayNullElem byte = 0xFF
)

// appendArrayKey appends the key of the array whose canonical text is s,
// of array type t, after its marker. On error buf comes back as it was.
func appendArrayKey(buf []byte, t types.Type, s string) ([]byte, error) {
	elem := t.ElemType()
	elems, err := types.ParseArray(s, elem)
	if err != nil {
		return buf, err
	}
	for _, e := range elems {
		if e == nil {
			buf = append(buf, arrayNullElem)
			continue
		}
		buf = AppendDatumKeyOf(buf, elem, e)
	}
	return append(buf, arrayEnd), nil
}

// decodeArrayKey decodes an array key after its marker into the array's
// canonical text.
func decodeArrayKey(buf []byte, t types.Type) (types.Datum, []byte, error) {
	elem := t.ElemType()
	kt := elem
	if elem.IsOID() {
		kt = types.TInt64 // oid and reg* elements are keyed as the integers they hold
	}
	var elems []types.Datum
	for {
		if len(buf) == 0 {
			return nil, nil, errCorrupt("array key", "unterminated")
		}
		switch buf[0] {
		case arrayEnd:
			return types.FormatArray(elems, elem), buf[1:], nil
		case arrayNullElem:
			elems = append(elems, nil)
			buf = buf[1:]
			continue
		case keyPresent:
		default:
			return nil, nil, errCorrupt("array key", "bad element marker")
		}
		var e types.Datum
		var err error
		if e, buf, err = DecodeKey(buf, kt); err != nil {
			return nil, nil, err
		}
		elems = append(elems, e)
	}
}
