package systemcatalog

import "github.com/streamdb/streamdb/internal/catalog"

// view is what the rows of the system relations are computed from: the
// engine, one consistent list of the relations, and the session's
// identity.
type view struct {
	e    Engine
	rels []*catalog.Relation // stored relations (created), then system ones, as pg_class lists them
	id   Identity
	// ns caches namespaces(): the built-in schemas and the user's.
	ns []namespace
	// err is why rows could not be computed (the first reason).
	err error
}

// fail records why rows could not be computed; Rows returns it.
func (v *view) fail(err error) {
	if v.err == nil {
		v.err = err
	}
}

// newView lists the relations of e for the session id.
func newView(e Engine, id Identity) *view {
	v := &view{e: e, id: id}
	for _, r := range e.Relations() {
		if r.State == catalog.StateCreated && r.Kind != catalog.KindSubscription && r.Kind != catalog.KindSink {
			v.rels = append(v.rels, r)
		}
	}
	v.rels = append(v.rels, systemRels...)
	return v
}

// lookup is a view for lookups by OID, which need no listing.
func lookup(e Engine, id Identity) *view { return &view{e: e, id: id} }
