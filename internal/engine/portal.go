package engine

import (
	"context"

	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
)

// OpenPortal implements pgwire.PortalOpener: a SELECT executed with a
// row limit is read through a QueryIter, a chunk at a time as the client
// asks for rows; any other statement runs through w, as Execute runs it.
func (s *Session) OpenPortal(ctx context.Context, query string, args []types.Datum, w ResultWriter) (pgwire.RowSource, error) {
	t := &portalTaker{ResultWriter: w}
	if err := s.Execute(ctx, query, args, t); err != nil {
		if t.it != nil {
			t.it.Close()
		}
		return nil, err
	}
	if t.it == nil {
		return nil, nil
	}
	return portalRows{t.it}, nil
}

// portalTaker is the iterTaker of OpenPortal: it takes a SELECT's rows
// and passes any other statement's results to the portal's writer.
type portalTaker struct {
	ResultWriter
	it *QueryIter
}

func (t *portalTaker) takeIter(it *QueryIter) { t.it = it }

// portalRows is a QueryIter as a pgwire.RowSource.
type portalRows struct{ *QueryIter }

func (r portalRows) Columns() []Column { return r.QueryIter.Columns }
