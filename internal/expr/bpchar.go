package expr

import (
	"github.com/streamdb/streamdb/internal/types"
)

// character(n) (bpchar): a string padded with blanks to its width
// (types/bpchar.go). As in Postgres, it is a string type whose trailing
// blanks do not count: comparisons, length() and the conversion to text
// and varchar drop them (text || x, lower(x) and the other text
// functions see the value without them); octet_length counts them.

const tBpchar = types.IDBpchar

func init() {
	for _, op := range comparisons {
		addBinary(op, tBpchar, tBpchar, tBool, comparison(op, types.TBpchar))
	}
}

// bpcharLength is length(bpchar), without the trailing blanks;
// bpcharOctetLength is octet_length(bpchar), with them.
var (
	bpcharLength = fn1(tBpchar, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(types.BpcharLength(a[0].(string))), nil
	})
	bpcharOctetLength = fn1(tBpchar, tInt4, func(a []types.Datum) (types.Datum, error) {
		return int64(len(a[0].(string))), nil
	})
)

// bpcharConverter converts bpchar to text and varchar (without its
// trailing blanks, as rtrim1 does); nil for other casts.
func bpcharConverter(from, to types.Type, explicit bool) convertFn {
	if from.ID != tBpchar || !to.IsString() {
		return nil
	}
	return func(v types.Datum) (types.Datum, error) {
		s := types.BpcharTrim(v.(string))
		if to.ID == types.IDVarchar {
			return types.CheckVarchar(s, to, explicit)
		}
		return s, nil
	}
}
