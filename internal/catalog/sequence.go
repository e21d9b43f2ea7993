package catalog

import "github.com/streamdb/streamdb/internal/types"

// Sequence is the options of a sequence (CREATE SEQUENCE), as
// PostgreSQL's pg_sequence holds them. Values go from Start by Increment
// within [Min, Max]; past the bound, a Cycle sequence starts again at the
// other bound and any other fails.
type Sequence struct {
	// Type is smallint, integer or bigint (the bounds' default range).
	Type      types.Type `json:"type"`
	Increment int64      `json:"increment"`
	Min       int64      `json:"min"`
	Max       int64      `json:"max"`
	Start     int64      `json:"start"`
	Cache     int64      `json:"cache"`
	Cycle     bool       `json:"cycle,omitempty"`
	// OwnedBy is the id of the table whose column OwnedColumn the
	// sequence belongs to (a serial or identity column, or OWNED BY); 0
	// for none. It is dropped with the table.
	OwnedBy     uint32 `json:"owned_by,omitempty"`
	OwnedColumn string `json:"owned_column,omitempty"`
}

// SequenceTypeRange returns the range of values of a sequence's type.
func SequenceTypeRange(t types.Type) (lo, hi int64) {
	switch t.ID {
	case types.IDInt16:
		return -1 << 15, 1<<15 - 1
	case types.IDInt32:
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}

// FirstUserOID is the OID of the user relation of id 0: a user
// relation's OID (its regclass) is FirstUserOID + its id.
const FirstUserOID = 16384
