package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// copyTo runs COPY {table [(cols)] | (query)} TO STDOUT: the query (for a
// table, a scan of it) runs over a snapshot as a SELECT would, and its
// rows stream out as copy data. Unlike PostgreSQL, COPY of a materialized
// view TO STDOUT works: views are what streamdb is for.
func (s *Session) copyTo(ctx context.Context, n *sql.CopyStmt, opts pgcopy.Options, w ResultWriter) error {
	cw, ok := w.(pgwire.CopyOutWriter)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY TO STDOUT needs a client that reads copy data: use a PostgreSQL client or DB.CopyTo")
	}
	if n.Query != nil {
		if sub, ok := n.Query.Node.(*sql.SubscribeStmt); ok {
			return s.copySubscribe(ctx, sub, opts, cw, w)
		}
	}
	q, pick, err := s.copyQuery(n, opts)
	if err != nil {
		return err
	}
	out := &copyOut{cw: cw, inner: w, opts: opts, pick: pick}
	if err := s.db.runQuery(s.withIdentity(ctx), q, out); err != nil {
		return err
	}
	return w.Complete(fmt.Sprintf("COPY %d", out.rows))
}

// copyQuery returns the query a COPY TO runs and, for a column list, the
// positions of the listed columns among the query's (nil: all).
func (s *Session) copyQuery(n *sql.CopyStmt, opts pgcopy.Options) (*planner.Query, []int, error) {
	if n.Query != nil {
		res, err := binder.Bind(s.catalog(), n.Query, binder.Options{Time: s.instants()})
		if err != nil {
			return nil, nil, err
		}
		q, ok := res.Stmt.(*planner.Query)
		if !ok {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "COPY query must be a SELECT")
		}
		return q, nil, nil
	}
	rel, err := s.copyRelation(n)
	if err != nil {
		return nil, nil, err
	}
	if rel.Kind == catalog.KindSource {
		return nil, nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from source %q", rel.Name)
	}
	if rel.Kind == catalog.KindIndex {
		return nil, nil, pgerr.New(pgerr.WrongObjectType, "%q is an index", rel.Name)
	}
	if rel.Kind == catalog.KindView {
		e := pgerr.New(pgerr.WrongObjectType, "cannot copy from view %q", rel.Name)
		e.Hint = "Try the COPY (SELECT ...) TO variant."
		return nil, nil, e
	}
	targets, err := copyColumns(rel, n.Columns)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(targets))
	for i, c := range targets {
		names[i] = rel.Columns[c].Name
	}
	if err := checkForceColumns(opts, rel, names); err != nil {
		return nil, nil, err
	}
	var pick []int
	if n.Columns != nil {
		vis := rel.VisibleColumns()
		for _, c := range targets {
			for j, v := range vis {
				if v == c {
					pick = append(pick, j)
				}
			}
		}
	}
	return &planner.Query{Plan: planner.ScanOf(rel)}, pick, nil
}

// copyOut is the ResultWriter a COPY TO runs its query with: it writes
// the rows as copy data.
type copyOut struct {
	cw    pgwire.CopyOutWriter
	inner ResultWriter
	opts  pgcopy.Options
	pick  []int
	w     *pgcopy.Writer
	raw   io.Writer // the client's copy-out stream w writes to
	row   []types.Datum
	rows  int64
}

func (o *copyOut) Columns(cols []Column) error {
	if o.pick != nil {
		sel := make([]Column, len(o.pick))
		for i, j := range o.pick {
			sel[i] = cols[j]
		}
		cols = sel
	}
	names := make([]string, len(cols))
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		names[i], ts[i] = c.Name, c.Type
	}
	forceQuote, err := pgcopy.ColumnFlags("FORCE_QUOTE", o.opts.ForceQuote, o.opts.ForceQuoteAll, names)
	if err != nil {
		return err
	}
	out, err := o.cw.CopyOut(cols, copyFormat(o.opts.Format))
	if err != nil {
		return err
	}
	o.w, o.raw = pgcopy.NewWriter(out, o.opts, names, ts, forceQuote), out
	o.row = make([]types.Datum, len(cols))
	return o.w.Begin()
}

func (o *copyOut) Row(row []types.Datum) error {
	if o.pick != nil {
		for i, j := range o.pick {
			o.row[i] = row[j]
		}
		row = o.row
	}
	o.rows++
	return o.w.WriteRow(row)
}

// Complete ends the data; the COPY's own tag follows.
func (o *copyOut) Complete(string) error { return o.w.End() }

func (o *copyOut) Notice(severity, msg string) error { return o.inner.Notice(severity, msg) }
