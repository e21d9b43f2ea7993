package pgwire

import (
	"github.com/streamdb/streamdb/internal/types"
)

// arrayValue converts an array Datum (its canonical text) to the slice
// pgtype's array codec encodes, each element converted as pgValue does.
func arrayValue(d types.Datum, t types.Type) (any, error) {
	s, _ := d.(string)
	elems, err := types.ParseArray(s, t.ElemType())
	if err != nil {
		return nil, err
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		if e == nil {
			continue
		}
		if out[i], err = pgValue(e, t.ElemType()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
