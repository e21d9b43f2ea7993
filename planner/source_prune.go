package planner

import (
	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
)

// Column pruning at a source (see exec/stream/source_prune.go): a
// SOURCE's connector generates only the columns the scans over it read.
// Each scan's Inlet tells its exchanges the upstream's columns it reads,
// and the source's ConnectorSource asks its actor's dispatcher for their
// union before each chunk.

// inletReads returns the columns of up a scan reading read (nil: all)
// takes from its exchanges: those, up's primary key (the scan's stream
// key) and its distribution key (the exchanges hash it); nil when that is
// every column.
func inletReads(read []bool, up *catalog.Relation) []bool {
	if read == nil {
		return nil
	}
	out := make([]bool, len(up.Columns))
	copy(out, read)
	for _, c := range up.PK {
		out[c] = true
	}
	for _, c := range up.DistKey {
		out[c] = true
	}
	for _, r := range out {
		if !r {
			return out
		}
	}
	return nil
}

// pruneSource makes conn, r's connector executor when it is a
// ConnectorSource and r a SOURCE without a watermark (a table stores
// every column; a watermark's expression reads its own), generate only
// the columns a's exchanges' receivers read. a is the source's actor.
func pruneSource(r *catalog.Relation, conn stream.Executor, a *stream.Actor) {
	cs, ok := conn.(*stream.ConnectorSource)
	if !ok || r.Kind != catalog.KindSource || r.Watermark != nil {
		return
	}
	n := len(r.Columns)
	cs.SetReads(func(dst []bool) []bool { return a.Out.ReadColumns(dst, n) })
}
