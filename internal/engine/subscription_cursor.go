package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// declareSubscriptionCursor opens a cursor over a subscription's change
// log (DECLARE name SUBSCRIPTION CURSOR FOR sub [SINCE e | FULL]): from
// now, after epoch e, or from the current rows (see subReader). Its rows
// are the followed relation's columns, op and epoch; FETCH returns what
// has committed at once, or waits up to its timeout for the first row.
func (s *Session) declareSubscriptionCursor(ctx context.Context, n *sql.DeclareStmt) (cursor, error) {
	name := n.SubscriptionName
	c := s.catalog()
	if r, ok := catalog.LookupName(c, c.SearchPath(), name); ok {
		name = r.Name
	}
	r, err := s.db.openSubscription(s.withIdentity(ctx), name, SubscriptionStart{Since: n.Since, Full: n.Full})
	if err != nil {
		return nil, err
	}
	return &subscriptionCursor{r: r}, nil
}

// subscriptionCursor is a session's cursor over a subReader.
type subscriptionCursor struct{ r *subReader }

func (c *subscriptionCursor) columns() []Column { return c.r.columns() }

func (c *subscriptionCursor) fetch(ctx context.Context, n int64, timeout time.Duration, emit func([]types.Datum) error) (int64, error) {
	if n == 0 {
		return 0, nil // no current row to return again: FETCH 0 returns none
	}
	return c.r.fetch(ctx, n, timeout, emit)
}

func (c *subscriptionCursor) close() { c.r.close() }
