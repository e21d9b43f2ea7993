package storage

import (
	"encoding/binary"

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
// Key format 3 introduced this; format 2 keyed an array by its text.
//
// An array of two or more dimensions (lower bounds are always 1) follows
// arrayEnd with its shape: arrayShape+ndims, then each dimension's length
// as a big-endian uint32. What follows a one-dimensional array's key opens
// with keyNull or keyPresent (the next column's key), which are below
// arrayShape, so keys stay distinct and order as array_cmp does: by the
// elements, then by their number, then by the number of dimensions, then
// by the dimensions' lengths.
const (
	arrayEnd      byte = 0x00
	arrayShape    byte = 0x10
	arrayNullElem byte = 0xFF
)

// appendArrayKey appends the key of the array whose canonical text is s,
// of array type t, after its marker. On error buf comes back as it was.
func appendArrayKey(buf []byte, t types.Type, s string) ([]byte, error) {
	elem := t.ElemType()
	a, err := types.ParseArrayValue(s, elem)
	if err != nil {
		return buf, err
	}
	for _, e := range a.Elems {
		if e == nil {
			buf = append(buf, arrayNullElem)
			continue
		}
		buf = AppendDatumKeyOf(buf, elem, e)
	}
	buf = append(buf, arrayEnd)
	if a.NDims() < 2 {
		return buf, nil
	}
	buf = append(buf, arrayShape+byte(a.NDims()))
	for _, d := range a.Dims {
		buf = binary.BigEndian.AppendUint32(buf, uint32(d))
	}
	return buf, nil
}

// decodeArrayShape reads the shape after a multidimensional array's
// arrayEnd, if there is one: the array of elems with it, and the rest of
// buf.
func decodeArrayShape(buf []byte, elems []types.Datum) (types.ArrayValue, []byte, error) {
	a := types.OneDim(elems)
	if len(buf) == 0 || buf[0] <= arrayShape+1 || buf[0] > arrayShape+types.MaxArrayDims {
		return a, buf, nil
	}
	n := int(buf[0] - arrayShape)
	buf = buf[1:]
	if len(buf) < 4*n {
		return a, nil, errCorrupt("array key", "short shape")
	}
	a.Dims = make([]int, n)
	size := 1
	for i := range a.Dims {
		a.Dims[i] = int(binary.BigEndian.Uint32(buf[4*i:]))
		size *= a.Dims[i]
	}
	if size != len(elems) {
		return a, nil, errCorrupt("array key", "shape does not match the elements")
	}
	return a, buf[4*n:], nil
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
			a, rest, err := decodeArrayShape(buf[1:], elems)
			if err != nil {
				return nil, nil, err
			}
			return types.FormatArrayValue(a, elem), rest, nil
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
