package pgwire

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/streamdb/streamdb/internal/types"
)

// arrayValue converts an array Datum (its canonical text) to the slice
// pgtype's array codec encodes, each element converted as pgValue does.
func arrayValue(d types.Datum, t types.Type) (any, error) {
	s, _ := d.(string)
	a, err := types.ParseArrayValue(s, t.ElemType())
	if err != nil {
		return nil, err
	}
	out := make([]any, len(a.Elems))
	for i, e := range a.Elems {
		if e == nil {
			continue
		}
		if out[i], err = pgValue(e, t.ElemType()); err != nil {
			return nil, err
		}
	}
	if a.NDims() < 2 {
		return out, nil
	}
	dims := make([]pgtype.ArrayDimension, a.NDims())
	for i, n := range a.Dims {
		dims[i] = pgtype.ArrayDimension{Length: int32(n), LowerBound: 1}
	}
	return pgtype.Array[any]{Elements: out, Dims: dims, Valid: true}, nil
}
