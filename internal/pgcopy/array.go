package pgcopy

import (
	"encoding/binary"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// DecodeBinaryArray reads an array in PostgreSQL's binary form (array_recv:
// the number of dimensions, a has-NULLs flag, the element type's OID, a
// size and lower bound per dimension, then each element as a length (-1
// for NULL) and its bytes) as a one-dimensional array of t's elements,
// each decoded by elem; the Datum is the array's text, as arrays are kept.
func DecodeBinaryArray(v []byte, t types.Type, elem func([]byte) (types.Datum, error)) (types.Datum, error) {
	bad := pgerr.New(pgerr.InvalidBinaryRep, "incorrect binary data format")
	if len(v) < 12 {
		return nil, bad
	}
	ndim := int32(binary.BigEndian.Uint32(v))
	v = v[12:]
	switch {
	case ndim == 0:
		return types.FormatArray(nil, t.ElemType()), nil
	case ndim != 1:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	case len(v) < 8:
		return nil, bad
	}
	n := int32(binary.BigEndian.Uint32(v))
	v = v[8:]
	if n < 0 || int(n) > len(v)/4 {
		return nil, bad
	}
	elems := make([]types.Datum, n)
	for i := range elems {
		if len(v) < 4 {
			return nil, bad
		}
		size := int32(binary.BigEndian.Uint32(v))
		v = v[4:]
		if size == -1 {
			continue
		}
		if size < 0 || int(size) > len(v) {
			return nil, bad
		}
		d, err := elem(v[:size])
		if err != nil {
			return nil, err
		}
		elems[i], v = d, v[size:]
	}
	if len(v) != 0 {
		return nil, bad
	}
	return types.FormatArray(elems, t.ElemType()), nil
}
