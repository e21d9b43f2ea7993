package expr

import (
	"github.com/streamdb/streamdb/internal/types"
)

// uuid: a string of its 16 bytes (types/uuid.go), ordered byte-wise;
// it converts to and from the string types only, as Postgres's uuid does.

const tUUID = types.IDUUID

func init() {
	for _, op := range comparisons {
		addBinary(op, tUUID, tUUID, tBool, comparison(op, types.TUUID))
	}
	register(func(name string, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return &call{name: name, typ: types.TUUID, fn: func([]types.Datum) (types.Datum, error) {
			return types.RandomUUID(), nil
		}}, nil
	}, "gen_random_uuid")
}
