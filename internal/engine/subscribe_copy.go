package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// tempSubscriptionRetention is the retention of the subscription a
// COPY (SUBSCRIBE ...) or DB.Subscribe of a relation makes for itself.
const tempSubscriptionRetention = time.Hour

var tempSubscriptionSeq atomic.Uint64

// followRelation returns the subscription a reader of name reads: name
// itself when it is one; for a table or materialized view, a temporary
// subscription of it, which drop removes.
func (db *DB) followRelation(ctx context.Context, name string) (sub string, drop func(), err error) {
	rel, ok := db.Relation(name)
	if !ok {
		_, own := catalog.SplitName(name)
		return "", nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", own)
	}
	switch rel.Kind {
	case catalog.KindSubscription:
		return rel.Name, func() {}, nil
	case catalog.KindTable, catalog.KindMaterializedView:
	default:
		return "", nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table, materialized view or subscription", rel.Name)
	}
	tmp := fmt.Sprintf("__sdb_subscribe_%d_%d", time.Now().UnixNano(), tempSubscriptionSeq.Add(1))
	cs := &planner.CreateSubscription{Name: tmp, From: rel, Retention: tempSubscriptionRetention}
	if err := db.createSubscriptionOf(ctx, cs, true, discardWriter{}); err != nil {
		return "", nil, err
	}
	return tmp, func() {
		if r, ok := db.Relation(tmp); ok {
			db.ddlMu.Lock()
			defer db.ddlMu.Unlock()
			if err := db.dropRelation(context.Background(), r, true, discardWriter{}); err != nil {
				db.opts.Logger.Warn("dropping a temporary subscription", "subscription", tmp, "err", err)
			}
		}
	}, nil
}

// copySubscribe runs COPY (SUBSCRIBE [TO] name [WITH (snapshot = false)])
// TO STDOUT, as Materialize's: a row per change, (mz_timestamp, mz_diff,
// columns...), with mz_timestamp the epoch it committed in and mz_diff 1
// for a row added, -1 for one removed (an update is both), streamed as
// changes commit until the client cancels (57014). By default it starts
// with the current rows (diff 1).
func (s *Session) copySubscribe(ctx context.Context, n *sql.SubscribeStmt, opts pgcopy.Options, cw pgwire.CopyOutWriter, w ResultWriter) error {
	ctx = s.withIdentity(ctx)
	name := n.Name
	if r, ok := catalog.LookupName(s.catalog(), s.catalog().SearchPath(), name); ok {
		name = r.Name
	}
	sub, drop, err := s.db.followRelation(ctx, name)
	if err != nil {
		return pgerr.As(err).WithPosition(n.NamePos)
	}
	defer drop()
	r, err := s.db.openSubscription(ctx, sub, SubscriptionStart{Full: !n.NoSnapshot})
	if err != nil {
		return err
	}
	defer r.close()
	rc := r.columns()
	cols := append([]Column{{Name: "mz_timestamp", Type: types.TInt64}, {Name: "mz_diff", Type: types.TInt64}}, rc[:len(rc)-2]...)
	out := &copyOut{cw: cw, inner: w, opts: opts}
	if err := out.Columns(cols); err != nil {
		return err
	}
	row := make([]types.Datum, len(cols))
	for {
		got, err := r.fetch(ctx, 1024, time.Second, func(c []types.Datum) error {
			k := len(c)
			row[0], row[1] = c[k-1], int64(1)
			if op := c[k-2]; op == "Delete" || op == "UpdateDelete" {
				row[1] = int64(-1)
			}
			copy(row[2:], c[:k-2])
			return out.Row(row)
		})
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return pgerr.As(err)
		}
		if got > 0 {
			if f, ok := out.raw.(interface{ Flush() error }); ok {
				if err := f.Flush(); err != nil {
					return err
				}
			}
		}
	}
}

// discardWriter is a ResultWriter for statements run on the engine's own
// behalf.
type discardWriter struct{}

func (discardWriter) Columns([]Column) error      { return nil }
func (discardWriter) Row([]types.Datum) error     { return nil }
func (discardWriter) Complete(string) error       { return nil }
func (discardWriter) Notice(string, string) error { return nil }
