package catalog

import "github.com/streamdb/streamdb/internal/types"

// ZoneReader is implemented by a catalog that binds statements in a time
// zone other than UTC: a session's (its TimeZone setting), or a stored
// materialized view's (the zone it was created under).
type ZoneReader interface {
	// TimeZone is the session time zone expressions are evaluated in.
	TimeZone() *types.Zone
}

// TimeZoneOf is r's time zone: its own when it is a ZoneReader, else UTC
// (nil).
func TimeZoneOf(r Reader) *types.Zone {
	if zr, ok := r.(ZoneReader); ok {
		return zr.TimeZone()
	}
	return nil
}
